// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-verify,graph-fuse,graph-to-tp)' | FileCheck %s

// Bounded run-time sizes (issue 28): with `n` at most 64, the softmax kernel's scratch (a row
// maximum and a row sum per row: 2 x 64 x 4 bytes at the bound, each padded to 64 bytes) is
// planned in the workspace at its bound, a view with the run-time row count; mlc_main
// allocates nothing per call.

// CHECK-LABEL: module attributes {mlc.manifest =
// CHECK-SAME: \22workspace_size\22: 512
// CHECK-LABEL: func.func @mlc_main(
// CHECK-SAME: %[[IX:.*]]: memref<?x16xf32>, %[[OY:.*]]: memref<?x16xf32>, %{{.*}}: memref<1xi8>, %[[WORK:.*]]: memref<512xi8>)
// CHECK-NOT: memref.alloc
// CHECK: %[[DN:.*]] = memref.dim %[[IX]], %{{.*}} : memref<?x16xf32>
// CHECK: %[[VIEW:.*]] = memref.view %[[WORK]][%{{.*}}][%{{.*}}] : memref<512xi8> to memref<?xi8>
// CHECK-NEXT: call @fused_softmax_relu_0(%[[IX]], %[[OY]], %[[DN]], %[[VIEW]])
// CHECK-NOT: memref.dealloc
module {
  func.func @main(%x: tensor<?x16xf32, ["n", 16]>) -> tensor<?x16xf32, ["n", 16]> attributes {mlc.input_names = ["x"], mlc.output_names = ["y"], mlc.symbol_bounds = {n = array<i64: 1, 64>}} {
    %0 = "graph.softmax"(%x) {axis = 1 : i64} : (tensor<?x16xf32, ["n", 16]>) -> tensor<?x16xf32, ["n", 16]>
    %1 = "graph.relu"(%0) : (tensor<?x16xf32, ["n", 16]>) -> tensor<?x16xf32, ["n", 16]>
    return %1 : tensor<?x16xf32, ["n", 16]>
  }
}
