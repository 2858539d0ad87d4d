// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// resample along the last axis: a reduction over the taps; index and weight come from the
// [taps, out] tables (read at (t, o)), the input element is a load at the computed index.
// CHECK: #[[$TAB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d4, d3)>
// CHECK: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func private @fused_resample_0(
// CHECK-SAME: %[[X:.*]]: memref<1x2x4x3xf32>, %[[I:.*]]: memref<2x6xi64>, %[[W:.*]]: memref<2x6xf32>, %[[Y:.*]]: memref<1x2x4x6xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[J64:.*]] = "tp.read"(%[[I]]) {map = #[[$TAB]]} : (memref<2x6xi64>) -> i64
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[J64]] : i64 to index
// CHECK-NEXT: %[[N:.*]] = "tp.index"() {axis = "i0"}
// CHECK-NEXT: %[[C:.*]] = "tp.index"() {axis = "i1"}
// CHECK-NEXT: %[[H:.*]] = "tp.index"() {axis = "i2"}
// CHECK-NEXT: %[[V:.*]] = "tp.load"(%[[X]], %[[N]], %[[C]], %[[H]], %[[J]])
// CHECK-NEXT: %[[WV:.*]] = "tp.read"(%[[W]]) {map = #[[$TAB]]} : (memref<2x6xf32>) -> f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[V]], %[[WV]] : f32
// CHECK-NEXT: gpu.yield %[[P]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1", "i2", "i3", "t"], combiner = "add", extents = array<i64: 1, 2, 4, 6, 2>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "resample_0", out_map = #[[$OUT]]
func.func @main(%x: tensor<1x2x4x3xf32>, %i: tensor<2x6xi64>, %w: tensor<2x6xf32>) -> tensor<1x2x4x6xf32> {
  %y = "graph.resample"(%x, %i, %w) {axis = 3 : i64} : (tensor<1x2x4x3xf32>, tensor<2x6xi64>, tensor<2x6xf32>) -> tensor<1x2x4x6xf32>
  return %y : tensor<1x2x4x6xf32>
}

// -----

// topk of 5 f32 values, k = 2: padded to 8 and sorted in blocks of 2 (one stage), then halved
// twice (8 -> 4 -> 2), each halving merged by one stage; the last stage writes the 2 best
// indices into the output. Entries are i64 keys: the value's order-preserving bits << 32 |
// (2^32 - 1 - index), 0 for padding; stages compare them unsigned. Halving reads blocks 2b
// and 2b+1.
// CHECK: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[$PARTNER:.*]] = affine_map<(d0, d1) -> (d0, (d1 floordiv 2) * 2 + (d1 mod 2 + 1) mod 2)>
// CHECK: #[[$FIRST:.*]] = affine_map<(d0, d1) -> (d0, d1 + (d1 floordiv 2) * 2)>
// CHECK: #[[$SECOND:.*]] = affine_map<(d0, d1) -> (d0, d1 + (d1 floordiv 2) * 2 + 2)>
// CHECK-LABEL: func.func private @fused_topk_0(
// CHECK-SAME: %[[X:.*]]: memref<2x5xf32>, %[[Y:.*]]: memref<2x2xi64>, %[[S:.*]]: memref<?xi8>)
// CHECK: %[[A:.*]] = memref.view %[[S]]{{.*}} to memref<2x8xi64>
// CHECK: %[[B:.*]] = memref.view %[[S]]{{.*}} to memref<2x8xi64>
// CHECK-NEXT: "tp.block"(%[[A]]) ({
// CHECK-NEXT: %[[J:.*]] = "tp.index"() {axis = "i1"}
// CHECK-NEXT: %[[V:.*]] = "tp.read_padded"(%[[X]]) {map = #[[$ID]], value = 0.000000e+00 : f32}
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[HI:.*]] = arith.shli
// CHECK: %[[KEY:.*]] = arith.ori %[[HI]]
// CHECK: "tp.read_padded"(%[[X]]) {map = #[[$PARTNER]]
// CHECK: arith.cmpi ugt
// CHECK: }) {axes = ["i0", "i1"], combiner = "none", extents = array<i64: 2, 8>, init, kinds = "SS", name = "topk_sort_0", out_map = #[[$ID]]
// CHECK-NEXT: "tp.block"(%[[B]]) ({
// CHECK-NEXT: %[[L:.*]] = "tp.read"(%[[A]]) {map = #[[$FIRST]]}
// CHECK-NEXT: %[[R:.*]] = "tp.read"(%[[A]]) {map = #[[$SECOND]]}
// CHECK-NEXT: %[[WIN:.*]] = arith.cmpi ugt, %[[L]], %[[R]] : i64
// CHECK-NEXT: %[[BEST:.*]] = arith.select %[[WIN]], %[[L]], %[[R]] : i64
// CHECK-NEXT: gpu.yield %[[BEST]] : i64
// CHECK-NEXT: }) {{.*}} extents = array<i64: 2, 4>, {{.*}} name = "topk_halve_1"
// CHECK-NEXT: "tp.block"(%[[A]]) ({
// CHECK-NEXT: "tp.read"(%[[B]]) {map = #[[$ID]]}
// CHECK-NEXT: "tp.read"(%[[B]]) {map = #[[$PARTNER]]}
// CHECK: }) {{.*}} extents = array<i64: 2, 4>, {{.*}} name = "topk_sort_2"
// CHECK-NEXT: "tp.block"(%[[B]]) ({
// CHECK: }) {{.*}} extents = array<i64: 2, 2>, {{.*}} name = "topk_halve_3"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK: %[[E:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[MASK:.*]] = arith.constant 4294967295 : i64
// CHECK-NEXT: %[[LOW:.*]] = arith.andi %[[E]], %[[MASK]] : i64
// CHECK-NEXT: %[[TOP:.*]] = arith.constant 4294967295 : i64
// CHECK-NEXT: %[[INDEX:.*]] = arith.subi %[[TOP]], %[[LOW]] : i64
// CHECK-NEXT: gpu.yield %[[INDEX]] : i64
// CHECK-NEXT: }) {{.*}} extents = array<i64: 2, 2>, {{.*}} name = "topk_sort_4"
// CHECK-NEXT: return
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x2xi64> {
  %y = "graph.topk"(%x) {k = 2 : i64, axis = 1 : i64, largest = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x2xi64>
  return %y : tensor<2x2xi64>
}

// -----

// topk of i64 values (too wide for a key): entries are indices, starting from the identity;
// each comparison loads the two values (clamped indices), then prefers the lower index.
// CHECK-LABEL: func.func private @fused_topk_0(
// CHECK-SAME: %[[X:.*]]: memref<3xi64>, %[[Y:.*]]: memref<2xi64>
// CHECK: "tp.block"
// CHECK-NEXT: %[[J:.*]] = "tp.index"() {axis = "i0"}
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK: %[[VA:.*]] = "tp.load"(%[[X]]
// CHECK: %[[VB:.*]] = "tp.load"(%[[X]]
// CHECK-NEXT: arith.cmpi slt, %[[VA]], %[[VB]] : i64
// CHECK-NEXT: arith.cmpi eq, %[[VA]], %[[VB]] : i64
// CHECK: name = "topk_sort_0"
func.func @main(%x: tensor<3xi64>) -> tensor<2xi64> {
  %y = "graph.topk"(%x) {k = 2 : i64, axis = 0 : i64, largest = 0 : i64} : (tensor<3xi64>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}

// -----

// take_along_axis: the index is wrapped when negative and clamped, then loaded.
// CHECK-LABEL: func.func private @fused_take_along_axis_0(
// CHECK-SAME: %[[X:.*]]: memref<3x4xf32>, %[[I:.*]]: memref<3x2xi64>, %[[Y:.*]]: memref<3x2xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[RAW:.*]] = "tp.read"(%[[I]])
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK: %[[WRAP:.*]] = arith.select
// CHECK: %[[LO:.*]] = arith.maxsi %[[WRAP]]
// CHECK: %[[AT:.*]] = arith.minsi %[[LO]]
// CHECK-NEXT: %[[ROW:.*]] = "tp.index"() {axis = "i0"}
// CHECK-NEXT: %[[V:.*]] = "tp.load"(%[[X]], %[[ROW]], %[[AT]])
// CHECK-NEXT: gpu.yield %[[V]] : f32
func.func @main(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %y = "graph.take_along_axis"(%x, %i) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// conv_nd over three spatial dims: (n, oc, o0..o2) spatial, (ic, k0..k2) reduced.
// CHECK: #[[$XIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d4 + d8)>
// CHECK: #[[$WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8)>
// CHECK-LABEL: func.func private @fused_conv_nd_0(
// CHECK-SAME: %[[X:.*]]: memref<1x2x4x4x4xf32>, %[[W:.*]]: memref<3x2x2x2x2xf32>, %[[Y:.*]]: memref<1x3x3x3x3xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read"(%[[X]]) {map = #[[$XIN]]}
// CHECK-NEXT: %[[B:.*]] = "tp.read"(%[[W]]) {map = #[[$WIN]]}
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: gpu.yield %[[P]] : f32
// CHECK-NEXT: }) {axes = ["n", "oc", "o0", "o1", "o2", "ic", "k0", "k1", "k2"], combiner = "add", extents = array<i64: 1, 3, 3, 3, 3, 2, 2, 2, 2>, {{.*}} kinds = "SSSSSRRRR", name = "conv_nd_0"
func.func @main(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x3x3xf32> {
  %y = "graph.conv_nd"(%x, %w) {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, group = 1 : i64} : (tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x3x3xf32>
  return %y : tensor<1x3x3x3x3xf32>
}

// -----

// lp_pool_nd with p = 2: sum of squares (padding reads 0), then a square root in place.
// CHECK: #[[$WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-LABEL: func.func private @fused_lp_pool_nd_0(
// CHECK-SAME: %[[X:.*]]: memref<1x2x5x5xf32>, %[[Y:.*]]: memref<1x2x2x2xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read_padded"(%[[X]]) {map = #[[$WIN]], value = 0.000000e+00 : f32}
// CHECK-NEXT: %[[A:.*]] = math.absf %[[V]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT: gpu.yield %[[S]] : f32
// CHECK-NEXT: }) {{.*}} combiner = "add", {{.*}} kinds = "SSSSRR", name = "lp_pool_nd_0"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[T:.*]] = "tp.read"(%[[Y]])
// CHECK-NEXT: %[[R:.*]] = math.sqrt %[[T]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {{.*}} name = "epilogue_1"
func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32> {
  %y = "graph.lp_pool_nd"(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = 0 : i64, p = 2.0 : f32} : (tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// max_unpool: which candidate window holds each unpooled position (an i64 temporary, `max`
// of t + 1), then the value of that candidate or 0.
// CHECK-LABEL: func.func private @fused_max_unpool_0(
// CHECK-SAME: %[[X:.*]]: memref<1x1x2x2xf32>, %[[I:.*]]: memref<1x1x2x2xi64>, %[[Y:.*]]: memref<1x1x4x4xf32>, %[[S:.*]]: memref<?xi8>)
// CHECK: %[[WHICH:.*]] = memref.view %[[S]]{{.*}} to memref<1x1x4x4xi64>
// CHECK-NEXT: "tp.block"(%[[WHICH]]) ({
// CHECK-NEXT: %[[IDX:.*]] = "tp.read_padded"(%[[I]]) {map = #{{.*}}, value = -1 : i64}
// CHECK: %[[HIT:.*]] = arith.cmpi eq, %[[IDX]]
// CHECK: arith.select %[[HIT]]
// CHECK: }) {axes = ["n", "c", "o0", "o1", "t0", "t1"], combiner = "max", extents = array<i64: 1, 1, 4, 4, 1, 1>, init = 0 : i64, kinds = "SSSSRR", name = "max_unpool_find_0"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[KEY:.*]] = "tp.read_padded"(%[[WHICH]]) {map = #{{.*}}, value = 0 : i64}
// CHECK: %[[V:.*]] = "tp.load"(%[[X]]
// CHECK: %[[NONE:.*]] = arith.cmpi eq, %[[KEY]]
// CHECK: arith.select %[[NONE]], %{{.*}}, %[[V]] : f32
// CHECK: name = "max_unpool_1"
func.func @main(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32> {
  %y = "graph.max_unpool"(%x, %i) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, output_shape = array<i64: 4, 4>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

// col2im: over (n, c, o0, o1) and the candidate blocks (t0, t1), one load per candidate.
// CHECK-LABEL: func.func private @fused_col2im_0(
// CHECK-SAME: %[[X:.*]]: memref<1x8x6xf32>, %[[Y:.*]]: memref<1x2x4x3xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK: %[[V:.*]] = "tp.load"(%[[X]]
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[S:.*]] = arith.select %{{.*}}, %[[V]], %[[ZERO]] : f32
// CHECK-NEXT: gpu.yield %[[S]] : f32
// CHECK-NEXT: }) {axes = ["n", "c", "o0", "o1", "t0", "t1"], combiner = "add", extents = array<i64: 1, 2, 4, 3, 1, 2>, {{.*}} kinds = "SSSSRR", name = "col2im_0"
func.func @main(%x: tensor<1x8x6xf32>) -> tensor<1x2x4x3xf32> {
  %y = "graph.col2im"(%x) {image_shape = array<i64: 4, 3>, block_shape = array<i64: 2, 2>, strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x6xf32>) -> tensor<1x2x4x3xf32>
  return %y : tensor<1x2x4x3xf32>
}

// -----

// grid_sample nearest with zeros padding: per dim, denormalize, round half to even, check
// the position is inside, clamp it into the axis; one load, 0 where a dim was outside.
// CHECK-LABEL: func.func private @fused_grid_sample_0(
// CHECK-SAME: %[[X:.*]]: memref<1x1x3x4xf32>, %[[G:.*]]: memref<1x2x2x2xf32>, %[[Y:.*]]: memref<1x1x2x2xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[GY:.*]] = "tp.read"(%[[G]])
// CHECK: %[[RY:.*]] = math.roundeven
// CHECK-NEXT: %[[TY:.*]] = math.trunc %[[RY]]
// CHECK: %[[INY:.*]] = arith.andi
// CHECK: %[[IY:.*]] = arith.index_cast
// CHECK-NEXT: %[[GX:.*]] = "tp.read"(%[[G]])
// CHECK: math.roundeven
// CHECK: %[[INX:.*]] = arith.andi
// CHECK: %[[IX:.*]] = arith.index_cast
// CHECK-NEXT: %[[N:.*]] = "tp.index"() {axis = "i0"}
// CHECK-NEXT: %[[C:.*]] = "tp.index"() {axis = "i1"}
// CHECK-NEXT: %[[V:.*]] = "tp.load"(%[[X]], %[[N]], %[[C]], %[[IY]], %[[IX]])
// CHECK-NEXT: %[[Z1:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[A:.*]] = arith.select %[[INY]], %[[V]], %[[Z1]] : f32
// CHECK-NEXT: %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[B:.*]] = arith.select %[[INX]], %[[A]], %[[Z2]] : f32
// CHECK-NEXT: gpu.yield %[[B]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1", "i2", "i3"], combiner = "none", {{.*}} name = "grid_sample_0"
func.func @main(%x: tensor<1x1x3x4xf32>, %g: tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %y = "graph.grid_sample"(%x, %g) {mode = "nearest", padding_mode = "zeros", align_corners = 0 : i64} : (tensor<1x1x3x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// -----

// roi_align avg with sampling_ratio 2: a reduction over the 2 x 2 samples of each bin
// (4 weighted corner loads each), then the division by the sample count in place.
// CHECK-LABEL: func.func private @fused_roi_align_0(
// CHECK-SAME: %[[X:.*]]: memref<2x3x5x6xf32>, %[[R:.*]]: memref<4x4xf32>, %[[B:.*]]: memref<4xi64>, %[[Y:.*]]: memref<4x3x2x2xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-COUNT-4: "tp.read"(%[[R]])
// CHECK: "tp.read"(%[[B]])
// CHECK-COUNT-4: "tp.load"(%[[X]]
// CHECK: }) {axes = ["r", "c", "ph", "pw", "iy", "ix"], combiner = "add", extents = array<i64: 4, 3, 2, 2, 2, 2>, {{.*}} kinds = "SSSSRR", name = "roi_align_0"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[T:.*]] = "tp.read"(%[[Y]])
// CHECK-NEXT: %[[COUNT:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[T]], %[[COUNT]] : f32
// CHECK-NEXT: gpu.yield %[[Q]] : f32
// CHECK-NEXT: }) {{.*}} name = "epilogue_1"
func.func @main(%x: tensor<2x3x5x6xf32>, %r: tensor<4x4xf32>, %b: tensor<4xi64>) -> tensor<4x3x2x2xf32> {
  %y = "graph.roi_align"(%x, %r, %b) {mode = "avg", output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64, spatial_scale = 1.0 : f32, half_pixel = 1 : i64, grid_h = 2 : i64, grid_w = 2 : i64} : (tensor<2x3x5x6xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32>
  return %y : tensor<4x3x2x2xf32>
}
