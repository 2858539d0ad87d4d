// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-pack-weights{panel=16})' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-pack-weights{panel=0})' | FileCheck %s --check-prefix=OFF
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(graph-pack-weights{panel=1})' 2>&1 | FileCheck %s --check-prefix=BAD

// A [1, 128, 64] x B [64, 48] with a constant B: B becomes three contiguous 16-column panels
// [3, 64, 16], the product a matmul batched over them (A's unit batch dim broadcasts as it is:
// no reshape, which would be a kernel copying A), transposed back into [1, 128, 48].
// CHECK-LABEL: func.func @matmul
// CHECK: %[[S:.*]] = "graph.reshape"(%{{.*}}) {shape = array<i64: 64, 3, 16>}
// CHECK-NEXT: %[[P:.*]] = "graph.transpose"(%[[S]]) {perm = array<i64: 1, 0, 2>} : (tensor<64x3x16xf32>) -> tensor<3x64x16xf32>
// CHECK-NEXT: %[[M:.*]] = "graph.matmul"(%arg0, %[[P]]) : (tensor<1x128x64xf32>, tensor<3x64x16xf32>) -> tensor<3x128x16xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.transpose"(%[[M]]) {perm = array<i64: 1, 0, 2>} : (tensor<3x128x16xf32>) -> tensor<128x3x16xf32>
// CHECK-NEXT: %[[Y:.*]] = "graph.reshape"(%[[T]]) {shape = array<i64: 1, 128, 48>} : (tensor<128x3x16xf32>) -> tensor<1x128x48xf32>
// CHECK-NEXT: return %[[Y]]
// OFF-LABEL: func.func @matmul
// OFF-NEXT: "graph.constant"
// OFF-NEXT: "graph.matmul"(%arg0, %{{.*}}) : (tensor<1x128x64xf32>, tensor<64x48xf32>)
// BAD: panel must be 0 (off) or >= 2, got 1
func.func @matmul(%a: tensor<1x128x64xf32>) -> tensor<1x128x48xf32> {
  %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<64x48xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<1x128x64xf32>, tensor<64x48xf32>) -> tensor<1x128x48xf32>
  return %y : tensor<1x128x48xf32>
}

// Two images: the weights are the same for both, so their rows are the rows of one product
// (16 of them, not two products of 8), written back as [2, 8, 48].
// CHECK-LABEL: func.func @batched
// CHECK: %[[A:.*]] = "graph.reshape"(%arg0) {shape = array<i64: 16, 64>} : (tensor<2x8x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT: %[[M:.*]] = "graph.matmul"(%[[A]], %{{.*}}) : (tensor<16x64xf32>, tensor<3x64x16xf32>) -> tensor<3x16x16xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.transpose"(%[[M]]) {perm = array<i64: 1, 0, 2>}
// CHECK-NEXT: "graph.reshape"(%[[T]]) {shape = array<i64: 2, 8, 48>}
func.func @batched(%a: tensor<2x8x64xf32>) -> tensor<2x8x48xf32> {
  %b = "graph.constant"() {value = #graph.param<"bb">} : () -> tensor<64x48xf32>
  %y = "graph.matmul"(%a, %b) : (tensor<2x8x64xf32>, tensor<64x48xf32>) -> tensor<2x8x48xf32>
  return %y : tensor<2x8x48xf32>
}

// Gemm: alpha and beta * C become ops after the packed product.
// CHECK-LABEL: func.func @dense
// CHECK: %[[M:.*]] = "graph.matmul"(%arg0, %{{.*}}) : (tensor<32x64xf32>, tensor<2x64x16xf32>) -> tensor<2x32x16xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.transpose"(%[[M]]) {perm = array<i64: 1, 0, 2>}
// CHECK-NEXT: %[[Y:.*]] = "graph.reshape"(%[[T]]) {shape = array<i64: 32, 32>}
// CHECK: %[[Y2:.*]] = "graph.mul"(%[[Y]], %{{.*}}) : (tensor<32x32xf32>, tensor<1xf32>)
// CHECK: %[[C:.*]] = "graph.mul"(%{{.*}}, %{{.*}}) : (tensor<32xf32>, tensor<1xf32>)
// CHECK-NEXT: "graph.add"(%[[Y2]], %[[C]])
// CHECK-NOT: "graph.dense"
func.func @dense(%a: tensor<32x64xf32>) -> tensor<32x32xf32> {
  %b = "graph.constant"() {value = #graph.param<"db">} : () -> tensor<64x32xf32>
  %c = "graph.constant"() {value = #graph.param<"dc">} : () -> tensor<32xf32>
  %y = "graph.dense"(%a, %b, %c) {alpha = 2.0 : f32, beta = 0.5 : f32, transA = 0 : i64, transB = 0 : i64} : (tensor<32x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// Left alone: a matrix-vector product (1 row), columns the panel does not divide, an operand
// that is not a constant, a transposed A.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: "graph.transpose"
// CHECK: "graph.matmul"(%arg0, %{{.*}}) : (tensor<1x64xf32>, tensor<64x48xf32>)
// CHECK: "graph.matmul"(%arg1, %{{.*}}) : (tensor<16x64xf32>, tensor<64x40xf32>)
// CHECK: "graph.matmul"(%arg1, %arg2)
// CHECK: "graph.dense"(%arg3, %{{.*}}) {{.*}}transA = 1
// CHECK-NOT: "graph.transpose"
func.func @kept(%v: tensor<1x64xf32>, %a: tensor<16x64xf32>, %x: tensor<64x48xf32>, %at: tensor<64x16xf32>) -> (tensor<1x48xf32>, tensor<16x40xf32>, tensor<16x48xf32>, tensor<16x48xf32>) {
  %b = "graph.constant"() {value = #graph.param<"kb">} : () -> tensor<64x48xf32>
  %b40 = "graph.constant"() {value = #graph.param<"kb40">} : () -> tensor<64x40xf32>
  %y0 = "graph.matmul"(%v, %b) : (tensor<1x64xf32>, tensor<64x48xf32>) -> tensor<1x48xf32>
  %y1 = "graph.matmul"(%a, %b40) : (tensor<16x64xf32>, tensor<64x40xf32>) -> tensor<16x40xf32>
  %y2 = "graph.matmul"(%a, %x) : (tensor<16x64xf32>, tensor<64x48xf32>) -> tensor<16x48xf32>
  %y3 = "graph.dense"(%at, %b) {alpha = 1.0 : f32, beta = 1.0 : f32, transA = 1 : i64, transB = 0 : i64} : (tensor<64x16xf32>, tensor<64x48xf32>) -> tensor<16x48xf32>
  return %y0, %y1, %y2, %y3 : tensor<1x48xf32>, tensor<16x40xf32>, tensor<16x48xf32>, tensor<16x48xf32>
}

// Sizes known only at run time: rows batch*seq of a product with constant weights; the panels
// are packed as for static rows and the rows stay run-time sized.
// CHECK-LABEL: func.func @symbolic_rows
// CHECK: %[[P:.*]] = "graph.transpose"(%{{.*}}) {perm = array<i64: 1, 0, 2>} : (tensor<64x4x16xf32>) -> tensor<4x64x16xf32>
// CHECK: %[[X:.*]] = "graph.reshape"(%arg0) {shape = ["batch", 1, "seq", 64]}
// CHECK-NEXT: %[[M:.*]] = "graph.matmul"(%[[X]], %[[P]]) : (tensor<?x1x?x64xf32, ["batch", 1, "seq", 64]>, tensor<4x64x16xf32>) -> tensor<?x4x?x16xf32, ["batch", 4, "seq", 16]>
// CHECK: "graph.reshape"(%{{.*}}) {shape = ["batch", "seq", 64]}
// OFF-LABEL: func.func @symbolic_rows
// OFF: "graph.matmul"(%arg0, %{{.*}}) : (tensor<?x?x64xf32, ["batch", "seq", 64]>, tensor<64x64xf32>)
func.func @symbolic_rows(%x: tensor<?x?x64xf32, ["batch", "seq", 64]>) -> tensor<?x?x64xf32, ["batch", "seq", 64]> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<64x64xf32>
  %y = "graph.matmul"(%x, %w) : (tensor<?x?x64xf32, ["batch", "seq", 64]>, tensor<64x64xf32>) -> tensor<?x?x64xf32, ["batch", "seq", 64]>
  return %y : tensor<?x?x64xf32, ["batch", "seq", 64]>
}
