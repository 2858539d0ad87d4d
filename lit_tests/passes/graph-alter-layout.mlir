// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-alter-layout{block=8})' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-alter-layout{block=4})' | FileCheck %s --check-prefix=B4
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-alter-layout{block=8 int8-dot=true})' | FileCheck %s --check-prefix=DOT
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-alter-layout{block=16})' | FileCheck %s --check-prefix=B16
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-alter-layout{block=16 int8-dot=true})' | FileCheck %s --check-prefix=DOT16
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-alter-layout{block=16 pad-blocks=true})' | FileCheck %s --check-prefix=PAD

// Convs run blocked: the input is transformed once (3 channels: one block of 3), weights are
// packed by reshape+transpose of the constant, and the transform back to NCHW sinks through
// relu, max-pool, the second conv, a per-channel mul and the residual add to the very end.
// CHECK-LABEL: func.func @main
// CHECK: %[[X:.*]] = "graph.layout_transform"(%arg0) {dst_layout = "NCHW3c", src_layout = "NCHW"}
// CHECK-NEXT: %[[S:.*]] = "graph.reshape"(%{{.*}}) {shape = array<i64: 2, 8, 1, 3, 3, 3>}
// CHECK-NEXT: %[[W:.*]] = "graph.transpose"(%[[S]]) {perm = array<i64: 0, 2, 4, 5, 3, 1>} : (tensor<2x8x1x3x3x3xf32>) -> tensor<2x1x3x3x3x8xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.conv2d"(%[[X]], %[[W]], %{{.*}}) {data_layout = "NCHW3c", {{.*}} kernel_layout = "OIHW3i8o", out_layout = "NCHW8c"
// CHECK-NEXT: %[[R:.*]] = "graph.relu"(%[[C]]) : (tensor<1x2x16x16x8xf32>)
// CHECK-NEXT: %[[P:.*]] = "graph.max_pool2d"(%[[R]]) {{.*}} layout = "NCHW8c"
// CHECK: %[[C2:.*]] = "graph.conv2d"(%[[P]], %{{.*}}) {data_layout = "NCHW8c", {{.*}} kernel_layout = "OIHW8i8o", out_layout = "NCHW8c"
// CHECK: %[[K:.*]] = "graph.layout_transform"(%{{.*}}) {dst_layout = "NCHW8c", src_layout = "NCHW"} : (tensor<1x16x1x1xf32>) -> tensor<1x2x1x1x8xf32>
// CHECK-NEXT: %[[M:.*]] = "graph.mul"(%[[C2]], %[[K]])
// CHECK-NEXT: %[[A:.*]] = "graph.add"(%[[M]], %[[P]])
// CHECK-NEXT: %[[Y:.*]] = "graph.layout_transform"(%[[A]]) {dst_layout = "NCHW", src_layout = "NCHW8c"}
// CHECK-NEXT: return %[[Y]]
// B4: kernel_layout = "OIHW3i4o", out_layout = "NCHW4c"
// B4: kernel_layout = "OIHW4i4o", out_layout = "NCHW4c"
func.func @main(%x: tensor<1x3x16x16xf32>) -> tensor<1x16x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<16x3x3x3xf32>
  %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<16xf32>
  %c = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x16x16xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  %r = "graph.relu"(%c) : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %p = "graph.max_pool2d"(%r) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x16x16x16xf32>) -> tensor<1x16x8x8xf32>
  %w2 = "graph.constant"() {value = #graph.param<"w2">} : () -> tensor<16x16x3x3xf32>
  %c2 = "graph.conv2d"(%p, %w2) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %s = "graph.constant"() {value = #graph.param<"s">} : () -> tensor<1x16x1x1xf32>
  %m = "graph.mul"(%c2, %s) : (tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %a = "graph.add"(%m, %p) : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %a : tensor<1x16x8x8xf32>
}

// A depthwise conv runs blocked with one input channel per output lane (OIHW1i8o); a conv
// with 16 channels per group keeps its blocks inside the groups (OIHW8i8o, group 2).
// CHECK-LABEL: func.func @grouped
// CHECK: "graph.conv2d"({{.*}}) {data_layout = "NCHW8c", {{.*}}group = 16 : i64, kernel_layout = "OIHW1i8o", out_layout = "NCHW8c"
// CHECK: "graph.conv2d"({{.*}}) {data_layout = "NCHW8c", {{.*}}group = 2 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c"
func.func @grouped(%x: tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"dw16">} : () -> tensor<16x1x3x3xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 16 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32>
  %w2 = "graph.constant"() {value = #graph.param<"g2">} : () -> tensor<32x8x3x3xf32>
  %c2 = "graph.conv2d"(%c, %w2) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 2 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x8x8xf32>
  return %c2 : tensor<1x32x8x8xf32>
}

// A depthwise conv whose channels the block does not divide runs blocked on its channels padded
// with zeros up to the block (input, weights), the padded channels cut off after it. A 1x1 conv
// with stride 1 and no padding whose channels the block does not divide runs on its 64 pixels
// as one row (vectors along 64 contiguous pixels, not rows of 8).
// CHECK-LABEL: func.func @unblockable
// CHECK: %[[XP:.*]] = "graph.pad"(%arg0) {mode = "constant", pads = array<i64: 0, 0, 0, 0, 0, 4, 0, 0>{{.*}} -> tensor<1x16x8x8xf32>
// CHECK: %[[WP:.*]] = "graph.pad"(%{{.*}}) {mode = "constant", pads = array<i64: 0, 0, 0, 0, 4, 0, 0, 0>{{.*}} -> tensor<16x1x3x3xf32>
// CHECK: %[[XB:.*]] = "graph.layout_transform"(%[[XP]]) {dst_layout = "NCHW8c", src_layout = "NCHW"}
// CHECK: %[[DW:.*]] = "graph.conv2d"(%[[XB]], %{{.*}}) {{.*}}group = 16 : i64, kernel_layout = "OIHW1i8o", out_layout = "NCHW8c"
// CHECK-NEXT: %[[B:.*]] = "graph.layout_transform"(%[[DW]]) {dst_layout = "NCHW", src_layout = "NCHW8c"}
// CHECK-NEXT: %[[CUT:.*]] = "graph.pad"(%[[B]]) {mode = "constant", pads = array<i64: 0, 0, 0, 0, 0, -4, 0, 0>{{.*}} -> tensor<1x12x8x8xf32>
// CHECK: %[[F:.*]] = "graph.reshape"(%[[CUT]]) {shape = array<i64: 1, 12, 1, 64>}
// CHECK: %[[C:.*]] = "graph.conv2d"(%[[F]], %{{.*}}) {{.*}} -> tensor<1x12x1x64xf32>
// CHECK: %[[Y:.*]] = "graph.reshape"(%[[C]]) {shape = array<i64: 1, 12, 8, 8>}
// CHECK-NOT: layout_transform
// CHECK: return %[[Y]]
func.func @unblockable(%x: tensor<1x12x8x8xf32>) -> tensor<1x12x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"dw">} : () -> tensor<12x1x3x3xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 12 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x12x8x8xf32>, tensor<12x1x3x3xf32>) -> tensor<1x12x8x8xf32>
  %w2 = "graph.constant"() {value = #graph.param<"w12">} : () -> tensor<12x12x1x1xf32>
  %c2 = "graph.conv2d"(%c, %w2) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x12x8x8xf32>, tensor<12x12x1x1xf32>) -> tensor<1x12x8x8xf32>
  return %c2 : tensor<1x12x8x8xf32>
}

// With 16-channel blocks, 1000 output channels would take half-width 8-channel blocks. A 1x1
// conv that wide (512 -> 1000: squeezenet's classifier) runs on full 16-channel blocks instead,
// its weights and bias padded with zeros to 1024 channels (an even count of blocks: the
// register tile pairs them); the crop of the padding sinks through the relu and the global
// pool, so only the pooled vector goes back to NCHW. A narrow one (144 -> 24, like an inverted
// residual's projection) keeps the 8-channel blocks for its output tensor: it computes 32
// channels on 16-lane vectors (zero weights and bias for the last 8, folded once) and narrows
// them to 8-channel blocks, the padding cut off.
// B16-LABEL: func.func @wide_pointwise
// B16: %[[W:.*]] = "graph.pad"(%{{.*}}) {mode = "constant", pads = array<i64: 0, 0, 0, 0, 24, 0, 0, 0>{{.*}} -> tensor<1024x512x1x1xf32>
// B16: %[[B:.*]] = "graph.pad"(%{{.*}}) {mode = "constant", pads = array<i64: 0, 24>{{.*}} -> tensor<1024xf32>
// B16: %[[X:.*]] = "graph.layout_transform"(%arg0) {dst_layout = "NCHW16c", src_layout = "NCHW"}
// B16: %[[CW:.*]] = "graph.conv2d"(%[[X]], %{{.*}}, %[[B]]) {data_layout = "NCHW16c", {{.*}}kernel_layout = "OIHW16i16o", out_layout = "NCHW16c"{{.*}} -> tensor<1x64x13x13x16xf32>
// B16-NEXT: %[[R:.*]] = "graph.relu"(%[[CW]]) {{.*}} -> tensor<1x64x13x13x16xf32>
// B16-NEXT: %[[M:.*]] = "graph.reduce_mean"(%[[R]]) {axes = array<i64: 2, 3>, keepdims = 1 : i64} : (tensor<1x64x13x13x16xf32>) -> tensor<1x64x1x1x16xf32>
// B16-NEXT: %[[MB:.*]] = "graph.layout_transform"(%[[M]]) {dst_layout = "NCHW", src_layout = "NCHW16c"} {{.*}} -> tensor<1x1024x1x1xf32>
// B16-NEXT: %[[P:.*]] = "graph.pad"(%[[MB]]) {mode = "constant", pads = array<i64: 0, 0, 0, 0, 0, -24, 0, 0>{{.*}} -> tensor<1x1000x1x1xf32>
// B16: %[[PW:.*]] = "graph.pad"(%{{.*}}) {mode = "constant", pads = array<i64: 0, 0, 0, 0, 8, 0, 0, 0>{{.*}} -> tensor<32x144x1x1xf32>
// B16: %[[N:.*]] = "graph.conv2d"({{.*}}) {data_layout = "NCHW16c", {{.*}}kernel_layout = "OIHW16i16o", out_layout = "NCHW16c"{{.*}} -> tensor<1x2x14x14x16xf32>
// B16-NEXT: %[[E:.*]] = "graph.layout_transform"(%[[N]]) {dst_layout = "NCHW8c", src_layout = "NCHW16c"} {{.*}} -> tensor<1x4x14x14x8xf32>
// B16-NEXT: %[[C:.*]] = "graph.pad"(%[[E]]) {mode = "constant", pads = array<i64: 0, 0, 0, 0, 0, 0, -1, 0, 0, 0>{{.*}} -> tensor<1x3x14x14x8xf32>
// B16-NEXT: "graph.layout_transform"(%[[C]]) {dst_layout = "NCHW", src_layout = "NCHW8c"}
// B16: return %[[P]]
func.func @wide_pointwise(%x: tensor<1x512x13x13xf32>, %y: tensor<1x144x14x14xf32>) -> (tensor<1x1000x1x1xf32>, tensor<1x24x14x14xf32>) {
  %w = "graph.constant"() {value = #graph.param<"cls">} : () -> tensor<1000x512x1x1xf32>
  %b = "graph.constant"() {value = #graph.param<"cls_bias">} : () -> tensor<1000xf32>
  %c = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x512x13x13xf32>, tensor<1000x512x1x1xf32>, tensor<1000xf32>) -> tensor<1x1000x13x13xf32>
  %r = "graph.relu"(%c) : (tensor<1x1000x13x13xf32>) -> tensor<1x1000x13x13xf32>
  %p = "graph.global_avg_pool2d"(%r) : (tensor<1x1000x13x13xf32>) -> tensor<1x1000x1x1xf32>
  %w2 = "graph.constant"() {value = #graph.param<"proj">} : () -> tensor<24x144x1x1xf32>
  %c2 = "graph.conv2d"(%y, %w2) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x144x14x14xf32>, tensor<24x144x1x1xf32>) -> tensor<1x24x14x14xf32>
  return %p, %c2 : tensor<1x1000x1x1xf32>, tensor<1x24x14x14xf32>
}

// Constant dense weights given as [N, K] (transB = 1) are stored [K, N] once (a transpose of the
// constant, folded later), so the output columns read contiguous vectors.
// CHECK-LABEL: func.func @dense_weights
// CHECK: %[[T:.*]] = "graph.transpose"(%{{.*}}) {perm = array<i64: 1, 0>} : (tensor<10x4xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: "graph.dense"(%arg0, %[[T]]) {{.*}}transA = 0 : i64, transB = 0 : i64}
func.func @dense_weights(%a: tensor<2x4xf32>) -> tensor<2x10xf32> {
  %w = "graph.constant"() {value = #graph.param<"fc">} : () -> tensor<10x4xf32>
  %y = "graph.dense"(%a, %w) {alpha = 1.0 : f32, beta = 1.0 : f32, transA = 0 : i64, transB = 1 : i64} : (tensor<2x4xf32>, tensor<10x4xf32>) -> tensor<2x10xf32>
  return %y : tensor<2x10xf32>
}

// An integer conv runs blocked as well (keeping pad_value); the bias add and the
// requantization of its i32 accumulator to uint8 stay blocked, and the next integer conv takes
// the blocked uint8 tensor as it is.
// CHECK-LABEL: func.func @integer
// CHECK: %[[C:.*]] = "graph.conv2d_integer"({{.*}}) {data_layout = "NCHW8c", {{.*}}kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pad_value = 128 : i64
// CHECK: %[[A:.*]] = "graph.add"(%[[C]], %{{.*}}) : (tensor<1x2x8x8x8xi32>, tensor<1x2x1x1x8xi32>)
// CHECK-NEXT: %[[Q:.*]] = "graph.requantize"(%[[A]], %{{.*}}, %{{.*}}) : (tensor<1x2x8x8x8xi32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8x8xui8>
// CHECK: %[[C2:.*]] = "graph.conv2d_integer"(%[[Q]], %{{.*}}) {data_layout = "NCHW8c"
func.func @integer(%x: tensor<1x16x8x8xui8>) -> tensor<1x16x8x8xi32> {
  %w = "graph.constant"() {value = #graph.param<"wi8">} : () -> tensor<16x16x3x3xi8>
  %b = "graph.constant"() {value = #graph.param<"bi32">} : () -> tensor<16x1x1xi32>
  %m = "graph.constant"() {value = dense<1.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %c = "graph.conv2d_integer"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pad_value = 128 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xui8>, tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi32>
  %a = "graph.add"(%c, %b) : (tensor<1x16x8x8xi32>, tensor<16x1x1xi32>) -> tensor<1x16x8x8xi32>
  %q = "graph.requantize"(%a, %m, %z) : (tensor<1x16x8x8xi32>, tensor<f32>, tensor<ui8>) -> tensor<1x16x8x8xui8>
  %c2 = "graph.conv2d_integer"(%q, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pad_value = 128 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xui8>, tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi32>
  return %c2 : tensor<1x16x8x8xi32>
}

// With int8-dot, uint8 x int8 weights are packed four input channels (k) deep for vpdpbusd: the
// conv's as OIHW2i8o4i ([O/8, I/8, KH, KW, 2, 8, 4]), the matmul's as KN4k ([K/4, N, 4]).
// CHECK-LABEL: func.func @int8_dot
// CHECK: kernel_layout = "OIHW8i8o"
// CHECK: "graph.matmul_integer"(%arg1, %{{.*}}) {rhs_layout = "KN"}
// DOT-LABEL: func.func @int8_dot
// DOT: %[[S:.*]] = "graph.reshape"(%{{.*}}) {shape = array<i64: 2, 8, 2, 2, 4, 3, 3>}
// DOT-NEXT: %[[W:.*]] = "graph.transpose"(%[[S]]) {perm = array<i64: 0, 2, 5, 6, 3, 1, 4>} : (tensor<2x8x2x2x4x3x3xi8>) -> tensor<2x2x3x3x2x8x4xi8>
// DOT-NEXT: "graph.conv2d_integer"(%{{.*}}, %[[W]]) {data_layout = "NCHW8c", {{.*}}kernel_layout = "OIHW2i8o4i", out_layout = "NCHW8c"
// DOT: %[[B:.*]] = "graph.reshape"(%{{.*}}) {shape = array<i64: 16, 4, 8>}
// DOT-NEXT: %[[BT:.*]] = "graph.transpose"(%[[B]]) {perm = array<i64: 0, 2, 1>} : (tensor<16x4x8xi8>) -> tensor<16x8x4xi8>
// DOT-NEXT: "graph.matmul_integer"(%arg1, %[[BT]]) {rhs_layout = "KN4k"} : (tensor<3x64xui8>, tensor<16x8x4xi8>) -> tensor<3x8xi32>
func.func @int8_dot(%x: tensor<1x16x8x8xui8>, %a: tensor<3x64xui8>) -> (tensor<1x16x8x8xi32>, tensor<3x8xi32>) {
  %w = "graph.constant"() {value = #graph.param<"wi8">} : () -> tensor<16x16x3x3xi8>
  %c = "graph.conv2d_integer"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pad_value = 128 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xui8>, tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi32>
  %b = "graph.constant"() {value = #graph.param<"bi8">} : () -> tensor<64x8xi8>
  %m = "graph.matmul_integer"(%a, %b) {rhs_layout = "KN"} : (tensor<3x64xui8>, tensor<64x8xi8>) -> tensor<3x8xi32>
  return %c, %m : tensor<1x16x8x8xi32>, tensor<3x8xi32>
}

// With int8-dot, a uint8 x int8 conv on 3 input channels gets a fourth of zero weights (a
// concat the folder evaluates once) and a padded input, so that one word holds a pixel's
// channels: NCHW4c input, OIHW1i8o4i weights. Without int8-dot it stays one block of 3.
// CHECK-LABEL: func.func @int8_dot_rgb
// CHECK: "graph.conv2d_integer"({{.*}}) {data_layout = "NCHW3c", {{.*}}kernel_layout = "OIHW3i8o"
// DOT-LABEL: func.func @int8_dot_rgb
// DOT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"wrgb">} : () -> tensor<16x3x3x3xi8>
// DOT-NEXT: %[[Z:.*]] = "graph.constant"() {value = dense<0> : tensor<16x1x3x3xi8>}
// DOT-NEXT: %[[WP:.*]] = tensor.concat dim(1) %[[W]], %[[Z]] : (tensor<16x3x3x3xi8>, tensor<16x1x3x3xi8>) -> tensor<16x4x3x3xi8>
// DOT-NEXT: %[[XP:.*]] = "graph.pad"(%arg0) {mode = "constant", pads = array<i64: 0, 0, 0, 0, 0, 1, 0, 0>
// DOT-NEXT: %[[XB:.*]] = "graph.layout_transform"(%[[XP]]) {dst_layout = "NCHW4c", src_layout = "NCHW"}
// DOT-NEXT: %[[S:.*]] = "graph.reshape"(%[[WP]]) {shape = array<i64: 2, 8, 1, 1, 4, 3, 3>}
// DOT-NEXT: %[[WB:.*]] = "graph.transpose"(%[[S]])
// DOT-NEXT: "graph.conv2d_integer"(%[[XB]], %[[WB]]) {data_layout = "NCHW4c", {{.*}}kernel_layout = "OIHW1i8o4i", out_layout = "NCHW8c", pad_value = 7 : i64
func.func @int8_dot_rgb(%x: tensor<1x3x8x8xui8>) -> tensor<1x16x4x4xi32> {
  %w = "graph.constant"() {value = #graph.param<"wrgb">} : () -> tensor<16x3x3x3xi8>
  %c = "graph.conv2d_integer"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pad_value = 7 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xui8>, tensor<16x3x3x3xi8>) -> tensor<1x16x4x4xi32>
  return %c : tensor<1x16x4x4xi32>
}

// With int8-dot, a uint8 x int8 conv to 24 channels (only 8 divides them) runs on 32 in
// 16-channel blocks: zero weights concatenated for the last 8, the bias add on the padded
// blocked channels (its constant padded), the output cropped after it.
// DOT16-LABEL: func.func @int8_dot_narrow_output
// DOT16: %[[W:.*]] = tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<24x32x1x1xi8>, tensor<8x32x1x1xi8>) -> tensor<32x32x1x1xi8>
// DOT16: %[[C:.*]] = "graph.conv2d_integer"({{.*}}) {data_layout = "NCHW16c", {{.*}}kernel_layout = "OIHW4i16o4i", out_layout = "NCHW16c"
// DOT16: %[[A:.*]] = "graph.add"(%[[C]], %{{.*}}) : (tensor<1x2x5x5x16xi32>, tensor<1x2x1x1x16xi32>)
// DOT16-NEXT: %[[T:.*]] = "graph.layout_transform"(%[[A]]) {dst_layout = "NCHW", src_layout = "NCHW16c"}
// DOT16-NEXT: %[[Y:.*]] = "graph.pad"(%[[T]]) {mode = "constant", pads = array<i64: 0, 0, 0, 0, 0, -8, 0, 0>
// DOT16-NEXT: return %[[Y]]
func.func @int8_dot_narrow_output(%x: tensor<1x32x5x5xui8>) -> tensor<1x24x5x5xi32> {
  %w = "graph.constant"() {value = #graph.param<"wn">} : () -> tensor<24x32x1x1xi8>
  %b = "graph.constant"() {value = #graph.param<"bn">} : () -> tensor<24x1x1xi32>
  %c = "graph.conv2d_integer"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pad_value = 0 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x32x5x5xui8>, tensor<24x32x1x1xi8>) -> tensor<1x24x5x5xi32>
  %a = "graph.add"(%c, %b) : (tensor<1x24x5x5xi32>, tensor<24x1x1xi32>) -> tensor<1x24x5x5xi32>
  return %a : tensor<1x24x5x5xi32>
}

// Each tensor's block depends on its channel count alone (the widest of 16, 8 dividing it), so
// a conv reads the block its producer wrote and the transforms between convs cancel: 24
// channels take 8-channel blocks, 48 take 16 (OIHW8i16o, then OIHW16i8o: 48 -> 24 at 1x1 is
// too little work per output for the full-vector narrowing of @wide_pointwise).
// B16-LABEL: func.func @mixed_blocks
// B16: %[[X:.*]] = "graph.layout_transform"(%arg0) {dst_layout = "NCHW8c", src_layout = "NCHW"}
// B16: %[[C1:.*]] = "graph.conv2d"(%[[X]], %{{.*}}) {data_layout = "NCHW8c", {{.*}}kernel_layout = "OIHW8i16o", out_layout = "NCHW16c"
// B16-NOT: "graph.layout_transform"
// B16: %[[C2:.*]] = "graph.conv2d"(%[[C1]], %{{.*}}) {data_layout = "NCHW16c", {{.*}}kernel_layout = "OIHW16i8o", out_layout = "NCHW8c"
// B16-NOT: "graph.layout_transform"
// B16: %[[C3:.*]] = "graph.conv2d"(%[[C2]], %{{.*}}) {data_layout = "NCHW8c", {{.*}}kernel_layout = "OIHW8i16o", out_layout = "NCHW16c"
// B16-NEXT: %[[Y:.*]] = "graph.layout_transform"(%[[C3]]) {dst_layout = "NCHW", src_layout = "NCHW16c"}
// B16-NEXT: return %[[Y]]
func.func @mixed_blocks(%x: tensor<1x24x8x8xf32>) -> tensor<1x48x8x8xf32> {
  %w1 = "graph.constant"() {value = #graph.param<"m1">} : () -> tensor<48x24x1x1xf32>
  %c1 = "graph.conv2d"(%x, %w1) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x24x8x8xf32>, tensor<48x24x1x1xf32>) -> tensor<1x48x8x8xf32>
  %w2 = "graph.constant"() {value = #graph.param<"m2">} : () -> tensor<24x48x1x1xf32>
  %c2 = "graph.conv2d"(%c1, %w2) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x48x8x8xf32>, tensor<24x48x1x1xf32>) -> tensor<1x24x8x8xf32>
  %w3 = "graph.constant"() {value = #graph.param<"m3">} : () -> tensor<48x24x3x3xf32>
  %c3 = "graph.conv2d"(%c2, %w3) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x24x8x8xf32>, tensor<48x24x3x3xf32>) -> tensor<1x48x8x8xf32>
  return %c3 : tensor<1x48x8x8xf32>
}

// A squeeze-and-excite block stays blocked: the global pool is a mean over the blocked
// tensor's H and W (channel lanes kept), the 1x1 convs and the rescaling follow in NCHW8c.
// CHECK-LABEL: func.func @squeeze_excite
// CHECK: %[[C:.*]] = "graph.conv2d"(%{{.*}}) {{.*}}out_layout = "NCHW8c"
// CHECK-NEXT: %[[M:.*]] = "graph.reduce_mean"(%[[C]]) {axes = array<i64: 2, 3>, keepdims = 1 : i64} : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x1x1x8xf32>
// CHECK: %[[S:.*]] = "graph.conv2d"(%[[M]], %{{.*}}) {data_layout = "NCHW8c", {{.*}}out_layout = "NCHW8c"
// CHECK-NEXT: %[[G:.*]] = "graph.sigmoid"(%[[S]])
// CHECK-NEXT: %[[Y:.*]] = "graph.mul"(%[[C]], %[[G]])
// CHECK-NEXT: "graph.layout_transform"(%[[Y]]) {dst_layout = "NCHW", src_layout = "NCHW8c"}
func.func @squeeze_excite(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"se_w">} : () -> tensor<16x16x3x3xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %p = "graph.global_avg_pool2d"(%c) : (tensor<1x16x8x8xf32>) -> tensor<1x16x1x1xf32>
  %w2 = "graph.constant"() {value = #graph.param<"se_w2">} : () -> tensor<16x16x1x1xf32>
  %s = "graph.conv2d"(%p, %w2) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x1x1xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %g = "graph.sigmoid"(%s) : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %y = "graph.mul"(%c, %g) : (tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// Sizes known only at run time: a conv on a run-time batch and image is blocked like a static
// one; the symbolic dims carry over to the blocked types.
// CHECK-LABEL: func.func @symbolic_conv
// CHECK: %[[X:.*]] = "graph.layout_transform"(%arg0) {dst_layout = "NCHW8c", src_layout = "NCHW"} : (tensor<?x16x?x?xf32, ["batch", 16, "h", "w"]>) -> tensor<?x2x?x?x8xf32, ["batch", 2, "h", "w", 8]>
// CHECK: %[[Y:.*]] = "graph.conv2d"(%[[X]], %{{.*}}) {data_layout = "NCHW8c", {{.*}}kernel_layout = "OIHW8i8o", out_layout = "NCHW8c"{{.*}} -> tensor<?x2x?x?x8xf32, ["batch", 2, "h", "w", 8]>
// CHECK-NEXT: "graph.layout_transform"(%[[Y]]) {dst_layout = "NCHW", src_layout = "NCHW8c"} : (tensor<?x2x?x?x8xf32, ["batch", 2, "h", "w", 8]>) -> tensor<?x16x?x?xf32, ["batch", 16, "h", "w"]>
func.func @symbolic_conv(%x: tensor<?x16x?x?xf32, ["batch", 16, "h", "w"]>) -> tensor<?x16x?x?xf32, ["batch", 16, "h", "w"]> {
  %w = "graph.constant"() {value = dense<0.5> : tensor<16x16x3x3xf32>} : () -> tensor<16x16x3x3xf32>
  %y = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x16x?x?xf32, ["batch", 16, "h", "w"]>, tensor<16x16x3x3xf32>) -> tensor<?x16x?x?xf32, ["batch", 16, "h", "w"]>
  return %y : tensor<?x16x?x?xf32, ["batch", 16, "h", "w"]>
}

// A narrow-output conv on a run-time batch narrows the same way; the batch symbol carries over.
// B16-LABEL: func.func @symbolic_narrow
// B16: "graph.conv2d"({{.*}}) {data_layout = "NCHW16c", {{.*}}kernel_layout = "OIHW16i16o", out_layout = "NCHW16c"{{.*}} -> tensor<?x2x8x8x16xf32, ["batch", 2, 8, 8, 16]>
// B16-NEXT: "graph.layout_transform"({{.*}}) {dst_layout = "NCHW8c", src_layout = "NCHW16c"} {{.*}} -> tensor<?x4x8x8x8xf32, ["batch", 4, 8, 8, 8]>
// B16-NEXT: "graph.pad"({{.*}} -> tensor<?x3x8x8x8xf32, ["batch", 3, 8, 8, 8]>
func.func @symbolic_narrow(%x: tensor<?x96x8x8xf32, ["batch", 96, 8, 8]>) -> tensor<?x24x8x8xf32, ["batch", 24, 8, 8]> {
  %w = "graph.constant"() {value = dense<0.5> : tensor<24x96x1x1xf32>} : () -> tensor<24x96x1x1xf32>
  %y = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x96x8x8xf32, ["batch", 96, 8, 8]>, tensor<24x96x1x1xf32>) -> tensor<?x24x8x8xf32, ["batch", 24, 8, 8]>
  return %y : tensor<?x24x8x8xf32, ["batch", 24, 8, 8]>
}

// pad-blocks: a chain of convs on 24 and 72 channels (8-channel blocks) runs on 16-channel
// blocks, padded to 32 and 80 channels, and stays padded from conv to conv: each conv's zero
// input channels are the padded output of the one before (relu and the residual add keep
// them finite), so nothing between them leaves the blocked layout.
// PAD-LABEL: func.func @padded_chain
// PAD: %[[X:.*]] = "graph.layout_transform"(%arg0) {dst_layout = "NCHW16c", src_layout = "NCHW"}
// PAD-NOT: "graph.layout_transform"
// PAD: %[[C1:.*]] = "graph.conv2d"(%[[X]], {{.*}}out_layout = "NCHW16c"{{.*}} -> tensor<1x2x8x8x16xf32>
// PAD-NEXT: %[[R1:.*]] = "graph.relu"(%[[C1]])
// PAD-NOT: "graph.layout_transform"
// PAD: "graph.conv2d"(%[[R1]], {{.*}} -> tensor<1x5x8x8x16xf32>
// PAD-NOT: "graph.layout_transform"
// PAD: "graph.conv2d"({{.*}}group = 80 : i64{{.*}} -> tensor<1x5x8x8x16xf32>
// PAD-NOT: "graph.layout_transform"
// PAD: %[[C4:.*]] = "graph.conv2d"({{.*}} -> tensor<1x2x8x8x16xf32>
// PAD-NEXT: %[[A:.*]] = "graph.add"(%[[C4]], %[[R1]])
// PAD-NOT: "graph.layout_transform"
// PAD: %[[C5:.*]] = "graph.conv2d"(%[[A]],
// PAD-NEXT: "graph.layout_transform"(%[[C5]]) {dst_layout = "NCHW", src_layout = "NCHW16c"}
func.func @padded_chain(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w1 = "graph.constant"() {value = dense<0.1> : tensor<24x16x1x1xf32>} : () -> tensor<24x16x1x1xf32>
  %c1 = "graph.conv2d"(%x, %w1) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<24x16x1x1xf32>) -> tensor<1x24x8x8xf32>
  %r1 = "graph.relu"(%c1) : (tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  %w2 = "graph.constant"() {value = dense<0.1> : tensor<72x24x1x1xf32>} : () -> tensor<72x24x1x1xf32>
  %c2 = "graph.conv2d"(%r1, %w2) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x24x8x8xf32>, tensor<72x24x1x1xf32>) -> tensor<1x72x8x8xf32>
  %r2 = "graph.relu"(%c2) : (tensor<1x72x8x8xf32>) -> tensor<1x72x8x8xf32>
  %w3 = "graph.constant"() {value = dense<0.1> : tensor<72x1x3x3xf32>} : () -> tensor<72x1x3x3xf32>
  %c3 = "graph.conv2d"(%r2, %w3) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 72 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x72x8x8xf32>, tensor<72x1x3x3xf32>) -> tensor<1x72x8x8xf32>
  %r3 = "graph.relu"(%c3) : (tensor<1x72x8x8xf32>) -> tensor<1x72x8x8xf32>
  %w4 = "graph.constant"() {value = dense<0.1> : tensor<24x72x1x1xf32>} : () -> tensor<24x72x1x1xf32>
  %c4 = "graph.conv2d"(%r3, %w4) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x72x8x8xf32>, tensor<24x72x1x1xf32>) -> tensor<1x24x8x8xf32>
  %a = "graph.add"(%c4, %r1) : (tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  %w5 = "graph.constant"() {value = dense<0.1> : tensor<16x24x1x1xf32>} : () -> tensor<16x24x1x1xf32>
  %c5 = "graph.conv2d"(%a, %w5) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x24x8x8xf32>, tensor<16x24x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %c5 : tensor<1x16x8x8xf32>
}

// Convs on 58 channels (no block divides them) run padded to 64; the next conv takes the
// padded output as its input through a relu, but not through a division by a per-channel
// constant (padded with zeros: 0 / 0 in the padded channels, which zero weights would turn
// into NaN outputs): there the crop to 58 channels and the pad back to 64 stay.
// B16-LABEL: func.func @padded_div
// B16: %[[D:.*]] = "graph.div"
// B16-NEXT: %[[B:.*]] = "graph.layout_transform"(%[[D]]) {dst_layout = "NCHW", src_layout = "NCHW16c"}
// B16-NEXT: %[[CUT:.*]] = "graph.pad"(%[[B]]) {{.*}}pads = array<i64: 0, 0, 0, 0, 0, -6, 0, 0>
// B16: "graph.pad"(%[[CUT]]) {{.*}}pads = array<i64: 0, 0, 0, 0, 0, 6, 0, 0>
// B16: %[[C2:.*]] = "graph.conv2d"
// B16-NEXT: %[[R:.*]] = "graph.relu"(%[[C2]])
// B16-NOT: "graph.layout_transform"
// B16: "graph.conv2d"(%[[R]],
func.func @padded_div(%x: tensor<1x58x8x8xf32>) -> tensor<1x58x8x8xf32> {
  %w1 = "graph.constant"() {value = dense<0.1> : tensor<58x58x3x3xf32>} : () -> tensor<58x58x3x3xf32>
  %c1 = "graph.conv2d"(%x, %w1) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x58x8x8xf32>, tensor<58x58x3x3xf32>) -> tensor<1x58x8x8xf32>
  %s = "graph.constant"() {value = dense<2.0> : tensor<1x58x1x1xf32>} : () -> tensor<1x58x1x1xf32>
  %d = "graph.div"(%c1, %s) : (tensor<1x58x8x8xf32>, tensor<1x58x1x1xf32>) -> tensor<1x58x8x8xf32>
  %w2 = "graph.constant"() {value = dense<0.1> : tensor<58x58x3x3xf32>} : () -> tensor<58x58x3x3xf32>
  %c2 = "graph.conv2d"(%d, %w2) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x58x8x8xf32>, tensor<58x58x3x3xf32>) -> tensor<1x58x8x8xf32>
  %r = "graph.relu"(%c2) : (tensor<1x58x8x8xf32>) -> tensor<1x58x8x8xf32>
  %w3 = "graph.constant"() {value = dense<0.1> : tensor<58x58x3x3xf32>} : () -> tensor<58x58x3x3xf32>
  %c3 = "graph.conv2d"(%r, %w3) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x58x8x8xf32>, tensor<58x58x3x3xf32>) -> tensor<1x58x8x8xf32>
  return %c3 : tensor<1x58x8x8xf32>
}
