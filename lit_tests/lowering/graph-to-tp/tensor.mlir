// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// gather with i32 indices: the index is read at the output position, wrapped when negative,
// clamped into [0, 4], and the data element is a tp.load at computed indices.
// CHECK: #[[$IDX:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func private @fused_gather_0(
// CHECK-SAME: %[[X:.*]]: memref<5x3xf32>, %[[I:.*]]: memref<2xi32>, %[[Y:.*]]: memref<2x3xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[RAW:.*]] = "tp.read"(%[[I]]) {map = #[[$IDX]]} : (memref<2xi32>) -> i32
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[DIM:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[WRAP:.*]] = arith.addi %[[K]], %[[DIM]] : index
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[K]], %[[ZERO]] : index
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[K]] : index
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[LO:.*]] = arith.maxsi %[[SEL]], %[[Z]] : index
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK-NEXT: %[[COL:.*]] = "tp.index"() {axis = "i1"} : () -> index
// CHECK-NEXT: %[[V:.*]] = "tp.load"(%[[X]], %[[ROW]], %[[COL]])
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1"], combiner = "none", extents = array<i64: 2, 3>, init, kinds = "SS", name = "gather_0", out_map = #[[$OUT]]
// CHECK-NEXT: return
func.func @main(%x: tensor<5x3xf32>, %i: tensor<2xi32>) -> tensor<2x3xf32> {
  %y = "graph.gather"(%x, %i) {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// pad reflect (2 before, 1 after, on dim 1): p = o - 2 reflected into [0, 3] as
// 3 - |3 - |p||; the unpadded dim 0 is the axis itself. The block writes the output directly.
// CHECK-LABEL: func.func private @fused_pad_0(
// CHECK-SAME: %[[X:.*]]: memref<2x4xf32>, %[[Y:.*]]: memref<2x7xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[I0:.*]] = "tp.index"() {axis = "i0"} : () -> index
// CHECK-NEXT: %[[I1:.*]] = "tp.index"() {axis = "i1"} : () -> index
// CHECK-NEXT: %[[SHIFT:.*]] = arith.constant -2 : index
// CHECK-NEXT: %[[P:.*]] = arith.addi %[[I1]], %[[SHIFT]] : index
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[NP:.*]] = arith.subi %[[Z]], %[[P]] : index
// CHECK-NEXT: %[[ABS:.*]] = arith.maxsi %[[P]], %[[NP]] : index
// CHECK-NEXT: %[[N1:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[FAR:.*]] = arith.subi %[[N1]], %[[ABS]] : index
// CHECK-NEXT: %[[N1B:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[ZB:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[NFAR:.*]] = arith.subi %[[ZB]], %[[FAR]] : index
// CHECK-NEXT: %[[AFAR:.*]] = arith.maxsi %[[FAR]], %[[NFAR]] : index
// CHECK-NEXT: %[[SRC:.*]] = arith.subi %[[N1B]], %[[AFAR]] : index
// CHECK-NEXT: %[[V:.*]] = "tp.load"(%[[X]], %[[I0]], %[[SRC]])
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {{.*}} name = "pad_reflect_0"
// CHECK-NEXT: return
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x7xf32> {
  %y = "graph.pad"(%x) {pads = array<i64: 0, 2, 0, 1>, mode = "reflect", value = 0.0 : f32} : (tensor<2x4xf32>) -> tensor<2x7xf32>
  return %y : tensor<2x7xf32>
}

// -----

// pad edge with a crop: dim 0 is padded before (clamped below at 0, above at the last row);
// dim 1 is cropped by 1 at the start and padded by 1 at the end (clamped above, shifted by 1).
// CHECK-LABEL: func.func private @fused_pad_0(
// CHECK-NEXT: "tp.block"(%arg1) ({
// CHECK-NEXT: %[[I0:.*]] = "tp.index"() {axis = "i0"} : () -> index
// CHECK-NEXT: %[[SHIFT:.*]] = arith.constant -1 : index
// CHECK-NEXT: %[[P:.*]] = arith.addi %[[I0]], %[[SHIFT]] : index
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.maxsi %[[P]], %[[Z]] : index
// CHECK-NEXT: %[[I1:.*]] = "tp.index"() {axis = "i1"} : () -> index
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[IN:.*]] = arith.minsi %[[I1]], %[[LAST]] : index
// CHECK-NEXT: %[[LO:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[COL:.*]] = arith.addi %[[IN]], %[[LO]] : index
// CHECK-NEXT: %[[V:.*]] = "tp.load"(%arg0, %[[ROW]], %[[COL]]) : (memref<3x4xi64>, index, index) -> i64
// CHECK-NEXT: gpu.yield %[[V]] : i64
// CHECK-NEXT: }) {{.*}} name = "pad_edge_0"
func.func @main(%x: tensor<3x4xi64>) -> tensor<4x4xi64> {
  %y = "graph.pad"(%x) {pads = array<i64: 1, -1, 0, 1>, mode = "edge", value = 0.0 : f32} : (tensor<3x4xi64>) -> tensor<4x4xi64>
  return %y : tensor<4x4xi64>
}

// -----

// tensor.concat of three inputs along dim 1: one block per input over its own shape, writing
// at offsets 0, 1 and 4; the relu producer is computed inside its block.
// CHECK: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[$AT1:.*]] = affine_map<(d0, d1) -> (d0, d1 + 1)>
// CHECK: #[[$AT4:.*]] = affine_map<(d0, d1) -> (d0, d1 + 4)>
// CHECK-LABEL: func.func private @fused_relu_tensor_concat_0(
// CHECK-SAME: %[[B:.*]]: memref<2x3xf32>, %[[A:.*]]: memref<2x1xf32>, %[[C:.*]]: memref<2x2xf32>, %[[Y:.*]]: memref<2x6xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[A]]) {map = #[[$ID]]}
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1"], combiner = "none", extents = array<i64: 2, 1>, init, kinds = "SS", name = "concat_0", out_map = #[[$ID]]
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[B]]) {map = #[[$ID]]}
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[V]], %[[Z]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1"], combiner = "none", extents = array<i64: 2, 3>, init, kinds = "SS", name = "concat_1", out_map = #[[$AT1]]
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[C]]) {map = #[[$ID]]}
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1"], combiner = "none", extents = array<i64: 2, 2>, init, kinds = "SS", name = "concat_2", out_map = #[[$AT4]]
// CHECK-NEXT: return
func.func @main(%a: tensor<2x1xf32>, %b: tensor<2x3xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %r = "graph.relu"(%b) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = tensor.concat dim(1) %a, %r, %c : (tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

// -----

// tensor.concat followed by elementwise ops of its shape (DenseNet's BatchNorm + ReLU of the
// concatenated features): one block per input writes the epilogue's value at the input's
// offset; the per-channel scale is read at the shifted channel; no temporary, no second pass.
// CHECK: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[$S0:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK: #[[$S2:.*]] = affine_map<(d0, d1) -> (0, d1 + 2)>
// CHECK: #[[$AT2:.*]] = affine_map<(d0, d1) -> (d0, d1 + 2)>
// CHECK-LABEL: func.func private @fused_tensor_concat_mul_relu_0(
// CHECK-SAME: %[[A:.*]]: memref<2x2xf32>, %[[B:.*]]: memref<2x3xf32>, %[[S:.*]]: memref<1x5xf32>, %[[Y:.*]]: memref<2x5xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[A]]) {map = #[[$ID]]}
// CHECK-NEXT: %[[SC:.*]] = "tp.read"(%[[S]]) {map = #[[$S0]]}
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[V]], %[[SC]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[M]], %[[Z]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1"], combiner = "none", extents = array<i64: 2, 2>, init, kinds = "SS", name = "concat_0", out_map = #[[$ID]]
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[B]]) {map = #[[$ID]]}
// CHECK-NEXT: %[[SC:.*]] = "tp.read"(%[[S]]) {map = #[[$S2]]}
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[V]], %[[SC]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[M]], %[[Z]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1"], combiner = "none", extents = array<i64: 2, 3>, init, kinds = "SS", name = "concat_1", out_map = #[[$AT2]]
// CHECK-NEXT: return
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x3xf32>, %s: tensor<1x5xf32>) -> tensor<2x5xf32> {
  %y = tensor.concat dim(1) %a, %b : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  %m = "graph.mul"(%y, %s) : (tensor<2x5xf32>, tensor<1x5xf32>) -> tensor<2x5xf32>
  %r = "graph.relu"(%m) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// The same over a run-time batch: the blocks' batch extent is `batch`, the offsets static.
// CHECK-LABEL: func.func private @fused_tensor_concat_mul_relu_0(
// CHECK: extent_exprs = ["batch", ""], extents = array<i64: -1, 2>, init, kinds = "SS", name = "concat_0"
// CHECK: extent_exprs = ["batch", ""], extents = array<i64: -1, 3>, init, kinds = "SS", name = "concat_1"
// CHECK-NEXT: return
func.func @main(%a: tensor<?x2xf32, ["batch", 2]>, %b: tensor<?x3xf32, ["batch", 3]>, %s: tensor<1x5xf32>) -> tensor<?x5xf32, ["batch", 5]> {
  %y = tensor.concat dim(1) %a, %b : (tensor<?x2xf32, ["batch", 2]>, tensor<?x3xf32, ["batch", 3]>) -> tensor<?x5xf32, ["batch", 5]>
  %m = "graph.mul"(%y, %s) : (tensor<?x5xf32, ["batch", 5]>, tensor<1x5xf32>) -> tensor<?x5xf32, ["batch", 5]>
  %r = "graph.relu"(%m) : (tensor<?x5xf32, ["batch", 5]>) -> tensor<?x5xf32, ["batch", 5]>
  return %r : tensor<?x5xf32, ["batch", 5]>
}
