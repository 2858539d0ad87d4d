// mlc passes and upstream passes in one pipeline; verified after each pass.
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-verify,mlc-cse,mlc-dce,func.func(canonicalize,cse,convert-linalg-to-loops),canonicalize)' | FileCheck %s

// CHECK-LABEL: func.func @graph_part
// CHECK-NEXT: %[[R:.*]] = "graph.relu"(%arg0)
// CHECK-NEXT: %[[S:.*]] = "graph.add"(%[[R]], %[[R]])
// CHECK-NEXT: return %[[S]]
func.func @graph_part(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 1.0 : f32
  %0 = "graph.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "graph.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.exp"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "graph.add"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// CHECK-LABEL: func.func @linalg_part
// CHECK: scf.for
// CHECK-NEXT: memref.store
// CHECK-NOT: linalg.fill
func.func @linalg_part(%m: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%m : memref<8xf32>)
  return
}
