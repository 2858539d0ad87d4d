// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s
// RUN: mlc-opt %inputs/symbolic_winograd.mlir --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s --check-prefix=SYMBOLIC

// The same transforms on a run-time batch (Inputs/symbolic_winograd.mlir; winograd_output
// takes the batch from its 9*batch tiles): the kernels take `batch` after their output, the
// blocks' batch axis runs to it, the products' tile axis to 9*batch.
// SYMBOLIC-LABEL: func.func private @fused_winograd_input_0(
// SYMBOLIC-SAME: %{{.*}}: memref<?x1x5x6x8xf32>, %{{.*}}: memref<16x?x8xf32>, %{{.*}}: index, %{{.*}}: memref<?xi8>)
// SYMBOLIC-SAME: tp.symbols = ["batch"]
// SYMBOLIC: extent_exprs = ["batch", "", "", "", ""], extents = array<i64: -1, 3, 8, 1, 8>{{.*}}name = "winograd_rows_1"
// SYMBOLIC: extent_exprs = ["", "batch", "", "", "", ""], extents = array<i64: 4, -1, 3, 3, 1, 8>{{.*}}name = "winograd_in_5"
// SYMBOLIC-LABEL: func.func private @fused_winograd_output_1(
// SYMBOLIC-SAME: tp.symbols = ["batch"]
// SYMBOLIC: extent_exprs = ["", "9*batch", ""], extents = array<i64: 4, -1, 8>{{.*}}name = "winograd_rows_0"
// SYMBOLIC: extent_exprs = ["batch", "", "", "", ""], extents = array<i64: -1, 1, 3, 3, 8>{{.*}}name = "winograd_out_2"

// F(2x2, 3x3) on a 5 x 6 output: 3 x 3 tiles, one pass per dimension. The input transform
// copies the input into a zero-bordered 8 x 8 buffer; then one block per row a of B^T sums its
// two inputs down the columns of every tile row (a = 0: rows 2 ty and 2 ty + 2, signs 1, -1)
// into T[a, n, ty, column, ..]; then one block per row b of B^T, with a as an axis, sums along
// the columns (b = 0: columns 2 tx and 2 tx + 2) into V[4 a + b, 9 n + 3 ty + tx, channel].
// The output transform: one block per row i of A^T over every b, tile and channel
// (R[i, b] = M[b] + M[4 + b] + M[8 + b] for i = 0), then one block per position (i, j) of
// the 2 x 2 tile, with the bias: position row 1 has 2 tile rows (5 rows = 3 tiles, 2 x 3 - 1).
// CHECK-DAG: #[[$R0:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1 * 2, d2, d4)>
// CHECK-DAG: #[[$R2:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1 * 2 + 2, d2, d4)>
// CHECK-DAG: #[[$T0:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$C0:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3 * 2, d4, d5)>
// CHECK-DAG: #[[$C2:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3 * 2 + 2, d4, d5)>
// CHECK-DAG: #[[$V0:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0 * 4, d1 * 9 + d2 * 3 + d3, d4 * 8 + d5)>
// CHECK-DAG: #[[$M0:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$M4:.*]] = affine_map<(d0, d1, d2) -> (d0 + 4, d1, d2)>
// CHECK-DAG: #[[$M8:.*]] = affine_map<(d0, d1, d2) -> (d0 + 8, d1, d2)>
// CHECK-DAG: #[[$Y00:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 * 2, d3 * 2, d4)>
// CHECK-LABEL: func.func private @fused_winograd_input_0(
// CHECK: %[[P:.*]] = memref.view {{.*}} to memref<1x1x8x8x8xf32>
// CHECK: name = "pad_0"
// CHECK: %[[T:.*]] = memref.view {{.*}} to memref<4x1x3x8x1x8xf32>
// CHECK-NEXT: "tp.block"(%[[T]]) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read"(%[[P]]) {map = #[[$R0]]}
// CHECK-NEXT: %[[B:.*]] = "tp.read"(%[[P]]) {map = #[[$R2]]}
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: gpu.yield %[[D]] : f32
// CHECK-NEXT: }) {axes = ["n", "ty", "col", "cb", "ci"], combiner = "none", extents = array<i64: 1, 3, 8, 1, 8>, init, kinds = "SSSSS", name = "winograd_rows_1", out_map = #[[$T0]]
// CHECK-COUNT-3: name = "winograd_rows_
// CHECK-NEXT: "tp.block"(%arg1) ({
// CHECK-NEXT: %[[E:.*]] = "tp.read"(%[[T]]) {map = #[[$C0]]}
// CHECK-NEXT: %[[F:.*]] = "tp.read"(%[[T]]) {map = #[[$C2]]}
// CHECK-NEXT: %[[G:.*]] = arith.subf %[[E]], %[[F]] : f32
// CHECK-NEXT: gpu.yield %[[G]] : f32
// CHECK-NEXT: }) {axes = ["a", "n", "ty", "tx", "cb", "ci"], combiner = "none", extents = array<i64: 4, 1, 3, 3, 1, 8>, init, kinds = "SSSSSS", name = "winograd_in_5", out_map = #[[$V0]]
// CHECK-COUNT-3: name = "winograd_in_
// CHECK-LABEL: func.func private @fused_winograd_output_1(
// CHECK: %[[R:.*]] = memref.view {{.*}} to memref<2x4x9x8xf32>
// CHECK-NEXT: "tp.block"(%[[R]]) ({
// CHECK-NEXT: "tp.read"(%arg0) {map = #[[$M0]]}
// CHECK-NEXT: "tp.read"(%arg0) {map = #[[$M4]]}
// CHECK-NEXT: arith.addf
// CHECK-NEXT: "tp.read"(%arg0) {map = #[[$M8]]}
// CHECK: axes = ["b", "p", "k"], combiner = "none", extents = array<i64: 4, 9, 8>, init, kinds = "SSS", name = "winograd_rows_0"
// CHECK: name = "winograd_rows_1"
// CHECK: "tp.read"(%arg1)
// CHECK: extents = array<i64: 1, 1, 3, 3, 8>, init, kinds = "SSSSS", name = "winograd_out_2", out_map = #[[$Y00]]
// CHECK: extents = array<i64: 1, 1, 3, 3, 8>, init, kinds = "SSSSS", name = "winograd_out_3"
// CHECK: extents = array<i64: 1, 1, 2, 3, 8>, init, kinds = "SSSSS", name = "winograd_out_4"
// CHECK: extents = array<i64: 1, 1, 2, 3, 8>, init, kinds = "SSSSS", name = "winograd_out_5"
func.func @main(%x: tensor<1x1x5x6x8xf32>, %m: tensor<16x9x8xf32>, %b: tensor<8xf32>) -> (tensor<16x9x8xf32>, tensor<1x1x5x6x8xf32>) {
  %v = "graph.winograd_input"(%x) {data_layout = "NCHW8c", out_size = array<i64: 5, 6>, pads = array<i64: 1, 1>, tile = 2 : i64} : (tensor<1x1x5x6x8xf32>) -> tensor<16x9x8xf32>
  %y = "graph.winograd_output"(%m, %b) {batch = 1 : i64, out_layout = "NCHW8c", out_size = array<i64: 5, 6>, tile = 2 : i64} : (tensor<16x9x8xf32>, tensor<8xf32>) -> tensor<1x1x5x6x8xf32>
  return %v, %y : tensor<16x9x8xf32>, tensor<1x1x5x6x8xf32>
}
