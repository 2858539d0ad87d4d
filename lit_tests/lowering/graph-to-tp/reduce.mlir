// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// reduce_mean: one block, kept dims spatial and first (s0, s2), the reduced dim last (r1);
// the division by the count is the pending step, applied in place with the fused relu.
// CHECK: #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK: #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func private @fused_reduce_mean_relu_0(
// CHECK-SAME: %[[X:.*]]: memref<3x4x5xf32>, %[[Y:.*]]: memref<3x5xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$IN]]}
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {axes = ["s0", "s2", "r1"], combiner = "add", extents = array<i64: 3, 5, 4>, init = 0.000000e+00 : f32, kinds = "SSR", name = "reduce_mean_0", out_map = #[[$OUT]], schedule = {}}
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[S:.*]] = "tp.read"(%[[Y]])
// CHECK-NEXT: %[[N:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT: %[[M:.*]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[M]], %[[Z]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {{.*}} name = "epilogue_1"
func.func @main(%x: tensor<3x4x5xf32>) -> tensor<3x5xf32> {
  %y = "graph.reduce_mean"(%x) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<3x4x5xf32>) -> tensor<3x5xf32>
  %r = "graph.relu"(%y) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// reduce_max of i64 with keepdims: the kept size-1 dim is a constant 0 in out_map; init is
// the lowest i64.
// CHECK: #[[$IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: #[[$OUT:.*]] = affine_map<(d0, d1) -> (0, d0)>
// CHECK-LABEL: func.func private @fused_reduce_max_0(
// CHECK-NEXT: "tp.block"(%arg1) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%arg0) {map = #[[$IN]]} : (memref<2x3xi64>) -> i64
// CHECK-NEXT: gpu.yield %[[V]] : i64
// CHECK-NEXT: }) {axes = ["s1", "r0"], combiner = "max", extents = array<i64: 3, 2>, init = -9223372036854775808 : i64, kinds = "SR", name = "reduce_max_0", out_map = #[[$OUT]]
// CHECK-NEXT: return
func.func @main(%x: tensor<2x3xi64>) -> tensor<1x3xi64> {
  %y = "graph.reduce_max"(%x) {axes = array<i64: 0>, keepdims = 1 : i64} : (tensor<2x3xi64>) -> tensor<1x3xi64>
  return %y : tensor<1x3xi64>
}

// -----

// reduce_l2: a sum of squares, then the square root in place.
// CHECK-LABEL: func.func private @fused_reduce_l2_0(
// CHECK-NEXT: "tp.block"(%arg1) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%arg0)
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT: gpu.yield %[[SQ]] : f32
// CHECK-NEXT: }) {axes = ["s0", "r1"], combiner = "add", {{.*}} name = "reduce_l2_0"
// CHECK-NEXT: "tp.block"(%arg1) ({
// CHECK-NEXT: %[[S:.*]] = "tp.read"(%arg1)
// CHECK-NEXT: %[[R:.*]] = math.sqrt %[[S]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {{.*}} name = "epilogue_1"
func.func @main(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %y = "graph.reduce_l2"(%x) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// argmax with select_last_index: the maximum goes to a scratch temporary (keepdims shape),
// then a max-reduction of the positions matching it (NaN matches too); -1 never wins.
// CHECK: #[[$X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[$EXT:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func private @fused_argmax_0(
// CHECK-SAME: %[[X:.*]]: memref<2x5xf32>, %[[Y:.*]]: memref<2xi64>, %[[SCRATCH:.*]]: memref<?xi8>)
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[MAX:.*]] = memref.view %[[SCRATCH]][%[[C0]]][] : memref<?xi8> to memref<2x1xf32>
// CHECK-NEXT: "tp.block"(%[[MAX]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$X]]}
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {axes = ["s0", "r1"], combiner = "max", extents = array<i64: 2, 5>, init = 0xFF800000 : f32, kinds = "SR", name = "argmax_value_0", out_map = #[[$EXT]]
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$X]]}
// CHECK-NEXT: %[[E:.*]] = "tp.read"(%[[MAX]]) {map = #[[$EXT]]}
// CHECK-NEXT: %[[EQ:.*]] = arith.cmpf oeq, %[[V]], %[[E]] : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT: %[[HIT:.*]] = arith.ori %[[EQ]], %[[NAN]] : i1
// CHECK-NEXT: %[[I:.*]] = "tp.index"() {axis = "r1"} : () -> index
// CHECK-NEXT: %[[P:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[MISS:.*]] = arith.constant -1 : i64
// CHECK-NEXT: %[[R:.*]] = arith.select %[[HIT]], %[[P]], %[[MISS]] : i64
// CHECK-NEXT: gpu.yield %[[R]] : i64
// CHECK-NEXT: }) {axes = ["s0", "r1"], combiner = "max", extents = array<i64: 2, 5>, init = -1 : i64, kinds = "SR", name = "argmax_index_1", out_map = #[[$OUT]]
// CHECK-NEXT: return
func.func @main(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  %y = "graph.argmax"(%x) {axis = 1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : (tensor<2x5xf32>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}
