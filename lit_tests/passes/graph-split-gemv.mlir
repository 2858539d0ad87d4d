// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-split-gemv{threads=2 min-bytes=0})' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-split-gemv{threads=1 min-bytes=0})' | FileCheck %s --check-prefix=ONE
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-split-gemv{threads=2})' | FileCheck %s --check-prefix=SMALL
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(graph-split-gemv{threads=0})' 2>&1 | FileCheck %s --check-prefix=BAD

// One row times a constant [256, 48]: each of 2 threads gets 128 contiguous rows of B (a
// reshape, no copy) and the matching half of a; the partial rows are summed after.
// CHECK-LABEL: func.func @gemv
// CHECK: %[[B:.*]] = "graph.reshape"(%{{.*}}) {shape = array<i64: 2, 128, 48>} : (tensor<256x48xf32>) -> tensor<2x128x48xf32>
// CHECK-NEXT: %[[A:.*]] = "graph.reshape"(%arg0) {shape = array<i64: 2, 1, 128>} : (tensor<1x256xf32>) -> tensor<2x1x128xf32>
// CHECK-NEXT: %[[P:.*]] = "graph.matmul"(%[[A]], %[[B]]) : (tensor<2x1x128xf32>, tensor<2x128x48xf32>) -> tensor<2x1x48xf32>
// CHECK-NEXT: %[[Y:.*]] = "graph.reduce_sum"(%[[P]]) {axes = array<i64: 0>, keepdims = 0 : i64} : (tensor<2x1x48xf32>) -> tensor<1x48xf32>
// CHECK-NEXT: return %[[Y]]
// ONE-LABEL: func.func @gemv
// ONE: "graph.matmul"(%arg0, %{{.*}}) : (tensor<1x256xf32>, tensor<256x48xf32>)
// SMALL-LABEL: func.func @gemv
// SMALL: "graph.matmul"(%arg0, %{{.*}}) : (tensor<1x256xf32>, tensor<256x48xf32>)
// BAD: threads must be >= 1, got 0
func.func @gemv(%a: tensor<1x256xf32>) -> tensor<1x48xf32> {
  %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<256x48xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<1x256xf32>, tensor<256x48xf32>) -> tensor<1x48xf32>
  return %y : tensor<1x48xf32>
}

// Gemm (a classifier's dense layer): alpha and C after the sum; a [1, 1, K] row keeps its shape.
// CHECK-LABEL: func.func @dense
// CHECK: "graph.matmul"(%{{.*}}, %{{.*}}) : (tensor<2x1x32xf32>, tensor<2x32x16xf32>) -> tensor<2x1x16xf32>
// CHECK-NEXT: %[[S:.*]] = "graph.reduce_sum"
// CHECK: %[[Y:.*]] = "graph.mul"(%[[S]], %{{.*}}) : (tensor<1x16xf32>, tensor<1xf32>)
// CHECK-NEXT: "graph.add"(%[[Y]], %{{.*}})
// CHECK-NOT: "graph.dense"
// CHECK-LABEL: func.func @row3
// CHECK: "graph.reduce_sum"
// CHECK-NEXT: "graph.reshape"(%{{.*}}) {shape = array<i64: 1, 1, 16>}
func.func @dense(%a: tensor<1x64xf32>) -> tensor<1x16xf32> {
  %b = "graph.constant"() {value = #graph.param<"db">} : () -> tensor<64x16xf32>
  %c = "graph.constant"() {value = #graph.param<"dc">} : () -> tensor<16xf32>
  %y = "graph.dense"(%a, %b, %c) {alpha = 2.0 : f32, beta = 1.0 : f32, transA = 0 : i64, transB = 0 : i64} : (tensor<1x64xf32>, tensor<64x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}
func.func @row3(%a: tensor<1x1x64xf32>) -> tensor<1x1x16xf32> {
  %b = "graph.constant"() {value = #graph.param<"rb">} : () -> tensor<64x16xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<1x1x64xf32>, tensor<64x16xf32>) -> tensor<1x1x16xf32>
  return %y : tensor<1x1x16xf32>
}

// Left whole: several rows (each would re-read B from cache), a K the threads do not divide,
// a matrix computed at run time.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: "graph.reduce_sum"
// CHECK: return
func.func @left_alone(%a: tensor<4x64xf32>, %o: tensor<1x63xf32>, %m: tensor<64x16xf32>, %v: tensor<1x64xf32>) -> (tensor<4x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>) {
  %b = "graph.constant"() {value = #graph.param<"lb">} : () -> tensor<64x16xf32>
  %b2 = "graph.constant"() {value = #graph.param<"lb2">} : () -> tensor<63x16xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
  %z = "graph.matmul"(%o, %b2) : (tensor<1x63xf32>, tensor<63x16xf32>) -> tensor<1x16xf32>
  %w = "graph.matmul"(%v, %m) : (tensor<1x64xf32>, tensor<64x16xf32>) -> tensor<1x16xf32>
  return %y, %z, %w : tensor<4x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>
}
