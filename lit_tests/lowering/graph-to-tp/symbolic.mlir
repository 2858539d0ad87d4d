// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-verify,graph-fuse,graph-to-tp)' | FileCheck %s

// Sizes known only at run time (issue 28): kernels take dynamic memrefs and one `index` argument
// per symbol after their output (tp.symbols names them); a block's run-time extents are
// expressions (extent_exprs, -1 in extents); temporaries of run-time size are views of a scratch
// that mlc_main allocates per call; a concatenation at a run-time offset (a KV cache) writes a
// strided subview of its output. mlc_main reads each symbol from the first input dim that is it.
// The manifest records symbolic dims as their expressions.

// CHECK-LABEL: module attributes {mlc.manifest =
// CHECK-SAME: \22name\22: \22x\22, \22shape\22: [\22n\22, 16]
// CHECK-SAME: \22name\22: \22kv\22, \22shape\22: [2, \22p + s\22, 8]
// CHECK-SAME: \22workspace_size\22: 0
// CHECK-LABEL: func.func private @fused_softmax_relu_0(
// CHECK-SAME: %[[X:.*]]: memref<?x16xf32>, %[[OUT:.*]]: memref<?x16xf32>, %[[N:.*]]: index, %[[SCRATCH:.*]]: memref<?xi8>)
// CHECK-SAME: tp.symbols = ["n"]
// CHECK: memref.view %[[SCRATCH]][%{{.*}}][%[[N]]] : memref<?xi8> to memref<?x1xf32>
// CHECK: extent_exprs = ["n", ""], extents = array<i64: -1, 16>
// CHECK-SAME: name = "softmax_max_0"
// CHECK-LABEL: func.func private @fused_tensor_concat_1(
// CHECK-SAME: %[[PAST:.*]]: memref<2x?x8xf32>, %[[NEW:.*]]: memref<2x?x8xf32>, %[[KV:.*]]: memref<2x?x8xf32>, %[[P:.*]]: index, %[[S:.*]]: index)
// CHECK-SAME: tp.symbols = ["p", "s"]
// CHECK: "tp.block"(%[[KV]])
// CHECK: extent_exprs = ["", "p", ""]
// CHECK: %[[PART:.*]] = memref.subview %[[KV]][0, %[[P]], 0] [2, %[[S]], 8] [1, 1, 1] : memref<2x?x8xf32> to memref<2x?x8xf32, strided<[?, 8, 1], offset: ?>>
// CHECK-NEXT: "tp.block"(%[[PART]])
// CHECK: extent_exprs = ["", "s", ""]
// CHECK-LABEL: func.func @mlc_main(
// CHECK-SAME: %[[IX:.*]]: memref<?x16xf32>, %[[IPAST:.*]]: memref<2x?x8xf32>, %[[INEW:.*]]: memref<2x?x8xf32>, %[[OY:.*]]: memref<?x16xf32>, %[[OKV:.*]]: memref<2x?x8xf32>, %{{.*}}: memref<1xi8>, %{{.*}}: memref<1xi8>)
// CHECK: %[[DN:.*]] = memref.dim %[[IX]], %{{.*}} : memref<?x16xf32>
// CHECK: %[[BUF:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xi8>
// CHECK-NEXT: call @fused_softmax_relu_0(%[[IX]], %[[OY]], %[[DN]], %[[BUF]])
// CHECK-NEXT: memref.dealloc %[[BUF]]
// CHECK: %[[DP:.*]] = memref.dim %[[IPAST]]
// CHECK: %[[DS:.*]] = memref.dim %[[INEW]]
// CHECK: call @fused_tensor_concat_1(%[[IPAST]], %[[INEW]], %[[OKV]], %[[DP]], %[[DS]])
module {
  func.func @main(%x: tensor<?x16xf32, ["n", 16]>, %past: tensor<2x?x8xf32, [2, "p", 8]>, %new: tensor<2x?x8xf32, [2, "s", 8]>) -> (tensor<?x16xf32, ["n", 16]>, tensor<2x?x8xf32, [2, "p + s", 8]>) attributes {mlc.input_names = ["x", "past", "new"], mlc.output_names = ["y", "kv"]} {
    %0 = "graph.softmax"(%x) {axis = 1 : i64} : (tensor<?x16xf32, ["n", 16]>) -> tensor<?x16xf32, ["n", 16]>
    %1 = "graph.relu"(%0) : (tensor<?x16xf32, ["n", 16]>) -> tensor<?x16xf32, ["n", 16]>
    %2 = tensor.concat dim(1) %past, %new : (tensor<2x?x8xf32, [2, "p", 8]>, tensor<2x?x8xf32, [2, "s", 8]>) -> tensor<2x?x8xf32, [2, "p + s", 8]>
    return %1, %2 : tensor<?x16xf32, ["n", 16]>, tensor<2x?x8xf32, [2, "p + s", 8]>
  }
}
