// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// gather_elements along axis 0: the index is read at the output position itself, wrapped and
// clamped into [0, 3], and replaces the axis-0 coordinate of the data load.
// CHECK: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func private @fused_gather_elements_0(
// CHECK-SAME: %[[X:.*]]: memref<4x6xf32>, %[[I:.*]]: memref<3x6xi32>, %[[Y:.*]]: memref<3x6xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[RAW:.*]] = "tp.read"(%[[I]]) {map = #[[$ID]]} : (memref<3x6xi32>) -> i32
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[ROW:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[COL:.*]] = "tp.index"() {axis = "i1"} : () -> index
// CHECK-NEXT: %[[V:.*]] = "tp.load"(%[[X]], %[[ROW]], %[[COL]])
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1"], combiner = "none", extents = array<i64: 3, 6>, init, kinds = "SS", name = "gather_elements_0", out_map = #[[$ID]]
func.func @main(%x: tensor<4x6xf32>, %i: tensor<3x6xi32>) -> tensor<3x6xf32> {
  %y = "graph.gather_elements"(%x, %i) {axis = 0 : i64} : (tensor<4x6xf32>, tensor<3x6xi32>) -> tensor<3x6xf32>
  return %y : tensor<3x6xf32>
}

// -----

// gather_nd with one batch dim and tuples of one index: the batch coordinate is the output's,
// the next one is read from the index tensor (entry 0 of its last dim), the slice is the rest.
// CHECK: #[[$TUPLE:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func private @fused_gather_nd_0(
// CHECK-SAME: %[[X:.*]]: memref<2x5x3xf32>, %[[I:.*]]: memref<2x4x1xi64>, %[[Y:.*]]: memref<2x4x3xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[B:.*]] = "tp.index"() {axis = "i0"} : () -> index
// CHECK-NEXT: %[[RAW:.*]] = "tp.read"(%[[I]]) {map = #[[$TUPLE]]} : (memref<2x4x1xi64>) -> i64
// CHECK: %[[ROW:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[COL:.*]] = "tp.index"() {axis = "i2"} : () -> index
// CHECK-NEXT: %[[V:.*]] = "tp.load"(%[[X]], %[[B]], %[[ROW]], %[[COL]])
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {{.*}} name = "gather_nd_0"
func.func @main(%x: tensor<2x5x3xf32>, %i: tensor<2x4x1xi64>) -> tensor<2x4x3xf32> {
  %y = "graph.gather_nd"(%x, %i) {batch_dims = 1 : i64} : (tensor<2x5x3xf32>, tensor<2x4x1xi64>) -> tensor<2x4x3xf32>
  return %y : tensor<2x4x3xf32>
}

// -----

// scatter_elements with reduction add: a copy of the data into the output, then a scatter
// block over the updates (no out_map results, combiner add, no init) yielding each update
// with its position (the axis-0 coordinate read from the indices).
// CHECK: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[$NONE:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func private @fused_scatter_elements_0(
// CHECK-SAME: %[[X:.*]]: memref<4x6xf32>, %[[I:.*]]: memref<2x6xi64>, %[[U:.*]]: memref<2x6xf32>, %[[Y:.*]]: memref<4x6xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[C:.*]] = "tp.read"(%[[X]]) {map = #[[$ID]]}
// CHECK-NEXT: gpu.yield %[[C]] : f32
// CHECK-NEXT: }) {{.*}} name = "scatter_elements_copy_0"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[U]]) {map = #[[$ID]]} : (memref<2x6xf32>) -> f32
// CHECK-NEXT: %[[RAW:.*]] = "tp.read"(%[[I]]) {map = #[[$ID]]} : (memref<2x6xi64>) -> i64
// CHECK: %[[ROW:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[COL:.*]] = "tp.index"() {axis = "u1"} : () -> index
// CHECK-NEXT: gpu.yield %[[V]], %[[ROW]], %[[COL]] : f32, index, index
// CHECK-NEXT: }) {axes = ["u0", "u1"], combiner = "add", extents = array<i64: 2, 6>, init, kinds = "SS", name = "scatter_elements_1", out_map = #[[$NONE]]
func.func @main(%x: tensor<4x6xf32>, %i: tensor<2x6xi64>, %u: tensor<2x6xf32>) -> tensor<4x6xf32> {
  %y = "graph.scatter_elements"(%x, %i, %u) {axis = 0 : i64, reduction = "add"} : (tensor<4x6xf32>, tensor<2x6xi64>, tensor<2x6xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// scatter_nd of rows: the row comes from the index tuple, the column is the update's own; the
// last position is an axis value, so the block can later be vectorized along u1.
// CHECK-LABEL: func.func private @fused_scatter_nd_0(
// CHECK-SAME: %[[X:.*]]: memref<5x8xf32>, %[[I:.*]]: memref<2x1xi64>, %[[U:.*]]: memref<2x8xf32>, %[[Y:.*]]: memref<5x8xf32>)
// CHECK: name = "scatter_nd_copy_0"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[U]])
// CHECK-NEXT: %[[RAW:.*]] = "tp.read"(%[[I]])
// CHECK: %[[ROW:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[COL:.*]] = "tp.index"() {axis = "u1"} : () -> index
// CHECK-NEXT: gpu.yield %[[V]], %[[ROW]], %[[COL]] : f32, index, index
// CHECK-NEXT: }) {axes = ["u0", "u1"], combiner = "none", {{.*}} name = "scatter_nd_1"
func.func @main(%x: tensor<5x8xf32>, %i: tensor<2x1xi64>, %u: tensor<2x8xf32>) -> tensor<5x8xf32> {
  %y = "graph.scatter_nd"(%x, %i, %u) {reduction = "none"} : (tensor<5x8xf32>, tensor<2x1xi64>, tensor<2x8xf32>) -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}
