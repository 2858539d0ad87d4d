// RUN: mlc-opt %s --split-input-file | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-verify,mlc-cse,mlc-dce)' | FileCheck %s
// Symbolic dims: a `?` named by the tensor's encoding (one int or expression per dim). The shape
// rules tie them: a matmul's K must be the same dim on both sides, a concat adds them.

// CHECK-LABEL: func.func @attention_scores
// CHECK-SAME: tensor<?x?x64xf32, ["batch", "seq", 64]>
// CHECK: "graph.batch_matmul"{{.*}} -> tensor<?x?x?xf32, ["batch", "seq", "seq"]>
// CHECK: "graph.softmax"{{.*}} -> tensor<?x?x?xf32, ["batch", "seq", "seq"]>
func.func @attention_scores(%q: tensor<?x?x64xf32, ["batch", "seq", 64]>, %kt: tensor<?x64x?xf32, ["batch", 64, "seq"]>) -> tensor<?x?x?xf32, ["batch", "seq", "seq"]> {
  %s = "graph.batch_matmul"(%q, %kt) : (tensor<?x?x64xf32, ["batch", "seq", 64]>, tensor<?x64x?xf32, ["batch", 64, "seq"]>) -> tensor<?x?x?xf32, ["batch", "seq", "seq"]>
  %p = "graph.softmax"(%s) {axis = -1 : i64} : (tensor<?x?x?xf32, ["batch", "seq", "seq"]>) -> tensor<?x?x?xf32, ["batch", "seq", "seq"]>
  return %p : tensor<?x?x?xf32, ["batch", "seq", "seq"]>
}

// -----

// CHECK-LABEL: func.func @kv_cache
// CHECK: tensor.concat dim(1) {{.*}} -> tensor<1x?x64xf32, [1, "past + seq", 64]>
// CHECK: "graph.relu"{{.*}} -> tensor<1x?x64xf32, [1, "past + seq", 64]>
func.func @kv_cache(%past: tensor<1x?x64xf32, [1, "past", 64]>, %new: tensor<1x?x64xf32, [1, "seq", 64]>) -> tensor<1x?x64xf32, [1, "past + seq", 64]> {
  %c = tensor.concat dim(1) %past, %new : (tensor<1x?x64xf32, [1, "past", 64]>, tensor<1x?x64xf32, [1, "seq", 64]>) -> tensor<1x?x64xf32, [1, "past + seq", 64]>
  %r = "graph.relu"(%c) : (tensor<1x?x64xf32, [1, "past + seq", 64]>) -> tensor<1x?x64xf32, [1, "past + seq", 64]>
  return %r : tensor<1x?x64xf32, [1, "past + seq", 64]>
}

// -----

// Sizes read as data: position ids as a range of run-time length, a length as a vector.
// CHECK-LABEL: func.func @positions
// CHECK: "graph.range"(%{{.*}}, %{{.*}}) {size = ["seq"]} : (tensor<i64>, tensor<i64>) -> tensor<?xi64, ["seq"]>
// CHECK: "graph.dim_values"() {values = ["batch*seq", 4]} : () -> tensor<2xi64>
// CHECK: "graph.reshape"(%{{.*}}) {shape = ["batch*seq", 4]} : (tensor<?x?x4xf32, ["batch", "seq", 4]>) -> tensor<?x4xf32, ["batch*seq", 4]>
func.func @positions(%x: tensor<?x?x4xf32, ["batch", "seq", 4]>) -> (tensor<?xi64, ["seq"]>, tensor<2xi64>, tensor<?x4xf32, ["batch*seq", 4]>) {
  %start = "graph.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %step = "graph.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %pos = "graph.range"(%start, %step) {size = ["seq"]} : (tensor<i64>, tensor<i64>) -> tensor<?xi64, ["seq"]>
  %n = "graph.dim_values"() {values = ["batch*seq", 4]} : () -> tensor<2xi64>
  %flat = "graph.reshape"(%x) {shape = ["batch*seq", 4]} : (tensor<?x?x4xf32, ["batch", "seq", 4]>) -> tensor<?x4xf32, ["batch*seq", 4]>
  return %pos, %n, %flat : tensor<?xi64, ["seq"]>, tensor<2xi64>, tensor<?x4xf32, ["batch*seq", 4]>
}
