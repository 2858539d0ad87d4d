// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-dce)' | FileCheck %s

// Dead graph ops go, transitively; live ones and the ops feeding them stay.
// CHECK-LABEL: func.func @dead_chain
// CHECK-NEXT: %[[R:.*]] = "graph.relu"(%arg0)
// CHECK-NEXT: return %[[R]]
func.func @dead_chain(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "graph.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "graph.add"(%1, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = "graph.constant"() {value = #graph.param<"unused">} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Unused reads inside a tp block go; the block itself writes memory and stays.
// CHECK-LABEL: func.func @dead_read
// CHECK: "tp.block"
// CHECK-NEXT: %[[A:.*]] = "tp.read"
// CHECK-NEXT: gpu.yield %[[A]]
func.func @dead_read(%A: memref<4xf32>, %O: memref<4xf32>) {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<4xf32>) -> f32
    %b = "tp.read"(%O) {map = affine_map<(i) -> (i)>} : (memref<4xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "copy", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// Sizes known only at run time: an unused op on a run-time sized value goes.
// CHECK-LABEL: func.func @symbolic_dead
// CHECK-NEXT: %[[A:.*]] = "graph.relu"(%arg0) : (tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]>
// CHECK-NEXT: return %[[A]]
func.func @symbolic_dead(%x: tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]> {
  %a = "graph.relu"(%x) : (tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]>
  %dead = "graph.exp"(%x) : (tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]>
  return %a : tensor<?x8xf32, ["seq", 8]>
}
