// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// F(2x2, 3x3) on a 5 x 6 output: 3 x 3 tiles. The input transform copies the input into a
// zero-bordered 8 x 8 buffer, then one block per transformed position xi (16) sums its four
// inputs with the signs of B^T d B (xi = 0: d00 - d02 - d20 + d22) and writes row
// n * 9 + ty * 3 + tx of V[xi]; the output transform writes each of the four positions of a
// 2 x 2 tile in a block of its own (nine products each, plus the bias): the last output row
// (5 rows = 3 tiles, 2 x 3 - 1) leaves position row 1 with 2 tile rows.
// CHECK-DAG: #[[$D00:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1 * 2, d2 * 2, d4)>
// CHECK-DAG: #[[$D02:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1 * 2, d2 * 2 + 2, d4)>
// CHECK-DAG: #[[$D20:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1 * 2 + 2, d2 * 2, d4)>
// CHECK-DAG: #[[$D22:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1 * 2 + 2, d2 * 2 + 2, d4)>
// CHECK-DAG: #[[$V0:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d0 * 9 + d1 * 3 + d2, d3 * 8 + d4)>
// CHECK-DAG: #[[$Y00:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 * 2, d3 * 2, d4)>
// CHECK-DAG: #[[$Y11:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 * 2 + 1, d3 * 2 + 1, d4)>
// CHECK-LABEL: func.func private @fused_winograd_input_0(
// CHECK: %[[P:.*]] = memref.view {{.*}} to memref<1x1x8x8x8xf32>
// CHECK: name = "pad_0"
// CHECK-NEXT: "tp.block"(%{{.*}}) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read"(%[[P]]) {map = #[[$D00]]}
// CHECK-NEXT: %[[B:.*]] = "tp.read"(%[[P]]) {map = #[[$D02]]}
// CHECK-NEXT: %[[AB:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[C:.*]] = "tp.read"(%[[P]]) {map = #[[$D20]]}
// CHECK-NEXT: %[[ABC:.*]] = arith.subf %[[AB]], %[[C]] : f32
// CHECK-NEXT: %[[D:.*]] = "tp.read"(%[[P]]) {map = #[[$D22]]}
// CHECK-NEXT: %[[V:.*]] = arith.addf %[[ABC]], %[[D]] : f32
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {axes = ["n", "ty", "tx", "cb", "ci"], combiner = "none", extents = array<i64: 1, 3, 3, 1, 8>, init, kinds = "SSSSS", name = "winograd_in_1", out_map = #[[$V0]]
// CHECK-COUNT-15: name = "winograd_in_
// CHECK-LABEL: func.func private @fused_winograd_output_1(
// CHECK-COUNT-9: "tp.read"(%arg0)
// CHECK: "tp.read"(%arg1)
// CHECK: extents = array<i64: 1, 1, 3, 3, 8>, init, kinds = "SSSSS", name = "winograd_out_0", out_map = #[[$Y00]]
// CHECK: extents = array<i64: 1, 1, 3, 3, 8>, init, kinds = "SSSSS", name = "winograd_out_1"
// CHECK: extents = array<i64: 1, 1, 2, 3, 8>, init, kinds = "SSSSS", name = "winograd_out_2"
// CHECK: extents = array<i64: 1, 1, 2, 3, 8>, init, kinds = "SSSSS", name = "winograd_out_3", out_map = #[[$Y11]]
func.func @main(%x: tensor<1x1x5x6x8xf32>, %m: tensor<16x9x8xf32>, %b: tensor<8xf32>) -> (tensor<16x9x8xf32>, tensor<1x1x5x6x8xf32>) {
  %v = "graph.winograd_input"(%x) {data_layout = "NCHW8c", out_size = array<i64: 5, 6>, pads = array<i64: 1, 1>, tile = 2 : i64} : (tensor<1x1x5x6x8xf32>) -> tensor<16x9x8xf32>
  %y = "graph.winograd_output"(%m, %b) {batch = 1 : i64, out_layout = "NCHW8c", out_size = array<i64: 5, 6>, tile = 2 : i64} : (tensor<16x9x8xf32>, tensor<8xf32>) -> tensor<1x1x5x6x8xf32>
  return %v, %y : tensor<16x9x8xf32>, tensor<1x1x5x6x8xf32>
}
