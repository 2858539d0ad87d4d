// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// conv2d + bias + relu: the zero halo is copied once into kernel scratch (so the reduction reads
// without bounds checks), the conv block writes the kernel's output buffer, and bias + relu are
// one in-place elementwise block. @main becomes mlc_main over the params and workspace blobs;
// the scratch is a workspace view.
// CHECK-LABEL: module attributes {mlc.manifest =
// CHECK-SAME: \22params\22: [{\22dtype\22: \22float32\22, \22name\22: \22w\22, \22offset\22: 0, \22shape\22: [4, 2, 3, 3]}, {\22dtype\22: \22float32\22, \22name\22: \22b\22, \22offset\22: 320, \22shape\22: [4]}]
// CHECK-LABEL: func.func private @fused_conv2d_relu_0(
// CHECK-SAME: %[[X:.*]]: memref<1x2x6x6xf32>, %[[W:.*]]: memref<4x2x3x3xf32>, %[[B:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<1x4x3x3xf32>, %[[SCRATCH:.*]]: memref<?xi8>) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"], tp.kernel}
// CHECK: %[[XP:.*]] = memref.view %[[SCRATCH]][%{{.*}}][] : memref<?xi8> to memref<1x2x8x8xf32>
// CHECK-NEXT: "tp.block"(%[[XP]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read_padded"(%[[X]]) {map = #{{.*}}, value = 0.000000e+00 : f32}
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {{.*}} name = "pad_0"
// CHECK-NEXT: "tp.block"(%[[OUT]]) ({
// CHECK-NEXT: %[[XV:.*]] = "tp.read"(%[[XP]])
// CHECK-NEXT: %[[WV:.*]] = "tp.read"(%[[W]]) {map = #{{.*}}}
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[XV]], %[[WV]] : f32
// CHECK-NEXT: gpu.yield %[[P]] : f32
// CHECK-NEXT: }) {axes = ["n", "oc", "oh", "ow", "ic", "kh", "kw"], combiner = "add", extents = array<i64: 1, 4, 3, 3, 2, 3, 3>, init = 0.000000e+00 : f32, kinds = "SSSSRRR", name = "conv2d_1", out_map = #{{.*}}, schedule = {}}
// CHECK-NEXT: "tp.block"(%[[OUT]]) ({
// CHECK-NEXT: %[[O:.*]] = "tp.read"(%[[OUT]])
// CHECK-NEXT: %[[BV:.*]] = "tp.read"(%[[B]])
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[O]], %[[BV]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[S]], %[[Z]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {{.*}} name = "epilogue_2"
// CHECK-LABEL: func.func @mlc_main(
// CHECK-SAME: %[[IN:.*]]: memref<1x2x6x6xf32>, %[[RES:.*]]: memref<1x4x3x3xf32>, %[[PARAMS:.*]]: memref<384xi8>, %[[WS:.*]]: memref<512xi8>) attributes {llvm.emit_c_interface}
// CHECK: %[[WVIEW:.*]] = memref.view %[[PARAMS]][%{{.*}}][] : memref<384xi8> to memref<4x2x3x3xf32>
// CHECK: %[[BVIEW:.*]] = memref.view %[[PARAMS]][%{{.*}}][] : memref<384xi8> to memref<4xf32>
// CHECK: %[[SVIEW:.*]] = memref.view %[[WS]][%{{.*}}][%{{.*}}] : memref<512xi8> to memref<?xi8>
// CHECK-NEXT: call @fused_conv2d_relu_0(%[[IN]], %[[WVIEW]], %[[BVIEW]], %[[RES]], %[[SVIEW]])
// CHECK-NEXT: return
func.func @main(%x: tensor<1x2x6x6xf32>) -> tensor<1x4x3x3xf32> attributes {mlc.input_names = ["data"], mlc.output_names = ["prob"]} {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x2x3x3xf32>
  %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<4xf32>
  %c = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %r = "graph.relu"(%c) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %r : tensor<1x4x3x3xf32>
}

// -----

// A strided depthwise conv reads its input in place, bounds-checked (tp.read_padded): a padded
// copy first cost more than the checks (each input element is read about twice at stride 2).
// CHECK-LABEL: func.func private @fused_conv2d_0(
// CHECK-SAME: %arg2: memref<1x2x4x4x16xf32>) attributes
// CHECK-NEXT: "tp.block"(%arg2) ({
// CHECK-NEXT: "tp.read_padded"(%arg0) {map = #{{.*}}, value = 0.000000e+00 : f32} : (memref<1x2x8x8x16xf32>) -> f32
// CHECK: name = "conv2d
// CHECK-LABEL: func.func @mlc_main(
func.func @main(%x: tensor<1x2x8x8x16xf32>) -> tensor<1x2x4x4x16xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<2x1x3x3x1x16xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW16c", dilations = array<i64: 1, 1>, group = 32 : i64, kernel_layout = "OIHW1i16o", out_layout = "NCHW16c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8x16xf32>, tensor<2x1x3x3x1x16xf32>) -> tensor<1x2x4x4x16xf32>
  return %c : tensor<1x2x4x4x16xf32>
}

// -----

// A grouped conv iterates its groups on an axis of their own (g), outside the channel within
// the group: the input's channel is g * 3 + ic and the output's g * 2 + oc, so the channels of
// one group share each input read (no `oc floordiv 2` in the input's index).
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 3 + d5, d3 + d6, d4 + d7)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1 * 2 + d2, d5, d6, d7)>
// CHECK-DAG: #[[$Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d2, d3, d4)>
// CHECK-LABEL: func.func private @fused_conv2d_0(
// CHECK-NEXT: "tp.block"(%arg2) ({
// CHECK-NEXT: "tp.read"(%arg0) {map = #[[$X]]} : (memref<1x6x5x5xf32>) -> f32
// CHECK-NEXT: "tp.read"(%arg1) {map = #[[$W]]} : (memref<4x3x1x1xf32>) -> f32
// CHECK: axes = ["n", "g", "oc", "oh", "ow", "ic", "kh", "kw"], combiner = "add", extents = array<i64: 1, 2, 2, 5, 5, 3, 1, 1>, {{.*}} kinds = "SSSSSRRR", name = "conv2d_0", out_map = #[[$Y]]
func.func @main(%x: tensor<1x6x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x3x1x1xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 2 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x6x5x5xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x5x5xf32>
  return %c : tensor<1x4x5x5xf32>
}

// -----

// Blocked, the group axis splits the output blocks: the weights' block is g * 2 + ocb (two
// blocks per group), the input's g + icb (one input block per group).
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1 + d6, d3 + d7, d4 + d8, d9)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1 * 2 + d2, d6, d7, d8, d9, d5)>
// CHECK-LABEL: func.func private @fused_conv2d_0(
// CHECK-NEXT: "tp.block"(%arg2) ({
// CHECK-NEXT: "tp.read"(%arg0) {map = #[[$X]]} : (memref<1x2x4x4x8xf32>) -> f32
// CHECK-NEXT: "tp.read"(%arg1) {map = #[[$W]]} : (memref<4x1x1x1x8x8xf32>) -> f32
// CHECK: axes = ["n", "g", "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"], combiner = "add", extents = array<i64: 1, 2, 2, 4, 4, 8, 1, 1, 1, 8>
func.func @main(%x: tensor<1x2x4x4x8xf32>) -> tensor<1x4x4x4x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x1x1x1x8x8xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 2 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4x8xf32>, tensor<4x1x1x1x8x8xf32>) -> tensor<1x4x4x4x8xf32>
  return %c : tensor<1x4x4x4x8xf32>
}

// -----

// A product of packed weight panels ([N/16, K, 16]) read back to rows by a transpose and a
// reshape: graph-fuse keeps both with the matmul, and the product writes the kernel's output
// through their inverse, (p, i, j) -> (0, i, p * 16 + j); the bias block then reads the output
// in place (no scratch, no second buffer).
// CHECK: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d0 * 16 + d2)>
// CHECK-LABEL: func.func private @fused_matmul_transpose_reshape_add_0(
// CHECK-SAME: %arg0: memref<1x4x8xf32>, %arg1: memref<2x8x16xf32>, %arg2: memref<32xf32>, %arg3: memref<1x4x32xf32>) attributes
// CHECK-NOT: memref.view
// CHECK: name = "matmul_0", out_map = #[[$OUT]]{{.*}} : (memref<1x4x32xf32>) -> ()
// CHECK-NEXT: "tp.block"(%arg3) ({
// CHECK-NEXT: "tp.read"(%arg3)
// CHECK-NEXT: "tp.read"(%arg2)
// CHECK-NEXT: arith.addf
func.func @main(%x: tensor<1x4x8xf32>) -> tensor<1x4x32xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<2x8x16xf32>
  %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<32xf32>
  %p = "graph.matmul"(%x, %w) : (tensor<1x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %t = "graph.transpose"(%p) {perm = array<i64: 1, 0, 2>} : (tensor<2x4x16xf32>) -> tensor<4x2x16xf32>
  %r = "graph.reshape"(%t) {shape = array<i64: 1, 4, 32>} : (tensor<4x2x16xf32>) -> tensor<1x4x32xf32>
  %y = "graph.add"(%r, %b) : (tensor<1x4x32xf32>, tensor<32xf32>) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

// Rows of a product that a reshape splits over two dims (ConvNeXt's [1, H, W, C] dense layer:
// H * W rows) are written through the inverse of the merge, (r floordiv W, r mod W).
// CHECK: #[[$ROWS:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1 floordiv 3, d1 mod 3, d0 * 16 + d2)>
// CHECK-LABEL: func.func private @fused_matmul_transpose_reshape_add_0(
// CHECK-NOT: memref.view
// CHECK: name = "matmul_0", out_map = #[[$ROWS]]{{.*}} : (memref<1x2x3x32xf32>) -> ()
func.func @main(%x: tensor<6x8xf32>) -> tensor<1x2x3x32xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<2x8x16xf32>
  %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<32xf32>
  %p = "graph.matmul"(%x, %w) : (tensor<6x8xf32>, tensor<2x8x16xf32>) -> tensor<2x6x16xf32>
  %t = "graph.transpose"(%p) {perm = array<i64: 1, 0, 2>} : (tensor<2x6x16xf32>) -> tensor<6x2x16xf32>
  %r = "graph.reshape"(%t) {shape = array<i64: 1, 2, 3, 32>} : (tensor<6x2x16xf32>) -> tensor<1x2x3x32xf32>
  %y = "graph.add"(%r, %b) : (tensor<1x2x3x32xf32>, tensor<32xf32>) -> tensor<1x2x3x32xf32>
  return %y : tensor<1x2x3x32xf32>
}

// -----

// A reshape of a kernel's result left in @main (graph-fuse) is a view of that result's buffer:
// the same workspace offset, no copy kernel; the buffer lives until its views' last reader,
// here the copies into the outputs.
// CHECK-LABEL: func.func @mlc_main(
// CHECK: %[[E:.*]] = memref.view %arg4[%[[OFF:.*]]][] : memref<{{.*}}xi8> to memref<2x3xf32>
// CHECK-NEXT: call @fused_exp_0(%arg0, %[[E]])
// CHECK-NEXT: %[[OFF2:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[V:.*]] = memref.view %arg4[%[[OFF2]]][] : memref<{{.*}}xi8> to memref<6xf32>
// CHECK-NOT: call
// CHECK: memref.copy %[[E]], %arg1
// CHECK-NEXT: memref.copy %[[V]], %arg2
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>) {
  %e = "graph.exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = "graph.reshape"(%e) {shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %e, %r : tensor<2x3xf32>, tensor<6xf32>
}

// -----

// Transposed so that the product's columns become the output's rows, the remap is kept: the
// product fills scratch and the last block reads it through the transpose (writing the output
// through the inverse would scatter every vector).
// CHECK-LABEL: func.func private @fused_matmul_transpose_reshape_transpose_0(
// CHECK: %[[V:.*]] = memref.view
// CHECK: "tp.block"(%[[V]])
// CHECK: name = "matmul_0"
// CHECK: "tp.read"(%[[V]])
func.func @main(%x: tensor<4x8xf32>) -> tensor<32x4xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<2x8x16xf32>
  %p = "graph.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %t = "graph.transpose"(%p) {perm = array<i64: 1, 0, 2>} : (tensor<2x4x16xf32>) -> tensor<4x2x16xf32>
  %r = "graph.reshape"(%t) {shape = array<i64: 4, 32>} : (tensor<4x2x16xf32>) -> tensor<4x32xf32>
  %y = "graph.transpose"(%r) {perm = array<i64: 1, 0>} : (tensor<4x32xf32>) -> tensor<32x4xf32>
  return %y : tensor<32x4xf32>
}

// -----

// Injective ops are re-indexing, not copies: transpose + reshape read the input through one
// affine map; a value used twice is materialized once in the workspace; dead ops are dropped.
// CHECK: #[[$M:.*]] = affine_map<(d0) -> (d0 mod 2, d0 floordiv 2)>
// CHECK-LABEL: func.func private @fused_sigmoid_transpose_reshape_relu_1(
// CHECK-NEXT: "tp.block"(%arg1) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%arg0) {map = #[[$M]]} : (memref<2x3xf32>) -> f32
// CHECK-NEXT: arith.negf %[[V]]
// CHECK-LABEL: func.func @mlc_main(
// CHECK-SAME: %{{.*}}: memref<2x3xf32>, %[[OUT:.*]]: memref<6xf32>, %[[OUT2:.*]]: memref<2x3xf32>, %{{.*}}: memref<1xi8>, %[[WS:.*]]: memref<64xi8>)
// CHECK: %[[T:.*]] = memref.view %[[WS]][%{{.*}}][] : memref<64xi8> to memref<2x3xf32>
// CHECK-NEXT: call @fused_exp_0(%arg0, %[[T]])
// CHECK-NEXT: call @fused_sigmoid_transpose_reshape_relu_1(%[[T]], %[[OUT]])
// CHECK-NEXT: call @fused_neg_2(%[[T]], %[[OUT2]])
// CHECK-NEXT: return
func.func @main(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %e = "graph.exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = "graph.sigmoid"(%e) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "graph.transpose"(%f) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = "graph.reshape"(%t) {shape = array<i64: 6>} : (tensor<3x2xf32>) -> tensor<6xf32>
  %a = "graph.relu"(%r) : (tensor<6xf32>) -> tensor<6xf32>
  %n = "graph.neg"(%e) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %dead = "graph.exp"(%n) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %n : tensor<6xf32>, tensor<2x3xf32>
}

// -----

// A channel shuffle (reshape, transpose, reshape) then NCHW -> NCHW8c: each reshape splits or
// merges only the dims of its own group, so the composed index stays per channel; no floordiv or
// mod over the whole linear offset, which LLVM cannot simplify.
// CHECK: #[[$S:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, (d4 mod 4) * 6 + d1 * 2 + d4 floordiv 4, d2, d3)>
// CHECK-LABEL: func.func private @fused_reshape_transpose_reshape_layout_transform_0(
// CHECK: "tp.read"(%arg0) {map = #[[$S]]} : (memref<1x24x5x7xf32>) -> f32
func.func @main(%x: tensor<1x24x5x7xf32>) -> tensor<1x3x5x7x8xf32> {
  %a = "graph.reshape"(%x) {shape = array<i64: 1, 4, 6, 5, 7>} : (tensor<1x24x5x7xf32>) -> tensor<1x4x6x5x7xf32>
  %b = "graph.transpose"(%a) {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x4x6x5x7xf32>) -> tensor<1x6x4x5x7xf32>
  %c = "graph.reshape"(%b) {shape = array<i64: 1, 24, 5, 7>} : (tensor<1x6x4x5x7xf32>) -> tensor<1x24x5x7xf32>
  %d = "graph.layout_transform"(%c) {src_layout = "NCHW", dst_layout = "NCHW8c"} : (tensor<1x24x5x7xf32>) -> tensor<1x3x5x7x8xf32>
  return %d : tensor<1x3x5x7x8xf32>
}

// -----

// A running sum along an axis of run-time length (RoBERTa's position ids count the mask):
// no doubling steps can be unrolled, so an scf.for runs along seq from 1 to %seq; each position
// is one block over the other dims (batch), adding the previous position's result to the
// input. The first position is copied before the loop.
// CHECK-LABEL: func.func private @fused_cumsum_0(
// CHECK-SAME: %[[X:.*]]: memref<?x?xi64>, %[[OUT:.*]]: memref<?x?xi64>, %[[B:.*]]: index, %[[S:.*]]: index)
// CHECK-SAME: tp.symbols = ["batch", "seq"]
// CHECK: %[[XV:.*]] = memref.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [%[[B]], %[[S]], 1]
// CHECK: %[[OV:.*]] = memref.expand_shape %[[OUT]]
// CHECK: name = "cumsum_first_0"
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[S]] step
// CHECK: %[[PREV:.*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK: %[[XT:.*]] = memref.subview %[[XV]][0, %[[T]], 0] [%[[B]], 1, 1]
// CHECK: %[[OP:.*]] = memref.subview %[[OV]][0, %[[PREV]], 0] [%[[B]], 1, 1]
// CHECK: %[[OT:.*]] = memref.subview %[[OV]][0, %[[T]], 0] [%[[B]], 1, 1]
// CHECK: "tp.block"(%[[OT]])
// CHECK: %[[XR:.*]] = "tp.read"(%[[XT]])
// CHECK: %[[PR:.*]] = "tp.read"(%[[OP]])
// CHECK: arith.addi %[[PR]], %[[XR]] : i64
// CHECK: extent_exprs = ["batch", "", ""]{{.*}}name = "cumsum_run_1"
func.func @main(%x: tensor<?x?xi64, ["batch", "seq"]>) -> tensor<?x?xi64, ["batch", "seq"]> {
  %y = "graph.cumsum"(%x) {axis = 1 : i64, exclusive = 0 : i64, reverse = 0 : i64} : (tensor<?x?xi64, ["batch", "seq"]>) -> tensor<?x?xi64, ["batch", "seq"]>
  return %y : tensor<?x?xi64, ["batch", "seq"]>
}

// -----

// A float max pool combines its taps with `fastmax` (one vmaxps per tap, onnxruntime's operand
// order; the NaN-propagating maximum costs four to six instructions), padding reading -inf;
// an integer one keeps the exact signed maximum.
// CHECK-LABEL: func.func private @fused_max_pool2d_0(
// CHECK: "tp.read_padded"(%{{.*}}) {map = #{{.*}}, value = 0xFF800000 : f32}
// CHECK: combiner = "fastmax"{{.*}}init = 0xFF800000 : f32{{.*}}name = "max_pool_0"
// CHECK-LABEL: func.func private @fused_max_pool2d_1(
// CHECK: combiner = "max"{{.*}}init = -128 : i8{{.*}}name = "max_pool_0"
func.func @main(%x: tensor<1x2x9x9x16xf32>, %q: tensor<1x2x9x9xi8>) -> (tensor<1x2x4x4x16xf32>, tensor<1x2x4x4xi8>) {
  %p = "graph.max_pool2d"(%x) {layout = "NCHW16c", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = 0 : i64} : (tensor<1x2x9x9x16xf32>) -> tensor<1x2x4x4x16xf32>
  %pq = "graph.max_pool2d"(%q) {layout = "NCHW", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = 0 : i64} : (tensor<1x2x9x9xi8>) -> tensor<1x2x4x4xi8>
  return %p, %pq : tensor<1x2x4x4x16xf32>, tensor<1x2x4x4xi8>
}
