// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-cse)' | FileCheck %s

// Identical graph ops merge; ops that differ in an attribute or operand do not.
// CHECK-LABEL: func.func @merge
// CHECK-NEXT: %[[R:.*]] = "graph.relu"(%arg0)
// CHECK-NEXT: %[[S0:.*]] = "graph.softmax"(%[[R]]) {axis = 0 : i64}
// CHECK-NEXT: %[[S1:.*]] = "graph.softmax"(%[[R]]) {axis = -1 : i64}
// CHECK-NEXT: %[[A:.*]] = "graph.add"(%[[R]], %[[R]])
// CHECK-NEXT: %[[B:.*]] = "graph.add"(%[[A]], %[[S0]])
// CHECK-NEXT: %[[C:.*]] = "graph.add"(%[[B]], %[[S1]])
// CHECK-NEXT: return %[[C]]
func.func @merge(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "graph.softmax"(%0) {axis = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %3 = "graph.softmax"(%1) {axis = -1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %4 = "graph.add"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %5 = "graph.add"(%4, %2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %6 = "graph.add"(%5, %3) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %6 : tensor<2xf32>
}

// Identical reads in one tp block merge.
// CHECK-LABEL: func.func @reads
// CHECK: %[[A:.*]] = "tp.read"
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[A]]
func.func @reads(%A: memref<4xf32>, %O: memref<4xf32>) {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<4xf32>) -> f32
    %b = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<4xf32>) -> f32
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {name = "double", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// Sizes known only at run time: two identical ops on a run-time sized value merge.
// CHECK-LABEL: func.func @symbolic_duplicates
// CHECK-NEXT: %[[A:.*]] = "graph.relu"(%arg0) : (tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]>
// CHECK-NOT: "graph.relu"
// CHECK: return %[[A]], %[[A]]
func.func @symbolic_duplicates(%x: tensor<?x8xf32, ["seq", 8]>) -> (tensor<?x8xf32, ["seq", 8]>, tensor<?x8xf32, ["seq", 8]>) {
  %a = "graph.relu"(%x) : (tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]>
  %b = "graph.relu"(%x) : (tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]>
  return %a, %b : tensor<?x8xf32, ["seq", 8]>, tensor<?x8xf32, ["seq", 8]>
}
