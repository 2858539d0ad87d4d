// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-decompose-3d,graph-verify)' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-decompose-3d{convs=false pools=false})' | FileCheck %s --check-prefix=OFF
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-decompose-3d{max-depth-taps=2})' | FileCheck %s --check-prefix=TAPS
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(graph-decompose-3d{max-depth-taps=0})' 2>&1 | FileCheck %s --check-prefix=BAD

// A grouped 3x3x3 conv, depth stride 2: the depth is padded, its three strided taps stack
// into 4 * 3 channels (channel c * 3 + kd, so each group's channels stay together) of a
// 2-D conv over a batch of the 3 output depths; the weight is reshaped alike, the result
// transposed back.
// CHECK-LABEL: func.func @conv
// CHECK: %[[P:.*]] = "graph.pad"(%arg0) {mode = "constant", pads = array<i64: 0, 0, 1, 0, 0, 0, 0, 1, 0, 0>
// CHECK: %[[S0:.*]] = "graph.slice"(%[[P]]) {axes = array<i64: 2>, ends = array<i64: 5>, starts = array<i64: 0>, steps = array<i64: 2>}
// CHECK: %[[S2:.*]] = "graph.slice"(%[[P]]) {axes = array<i64: 2>, ends = array<i64: 7>, starts = array<i64: 2>, steps = array<i64: 2>}
// CHECK: tensor.concat dim(2) {{.*}} -> tensor<1x4x3x3x9x10xf32>
// CHECK: "graph.transpose"({{.*}}) {perm = array<i64: 0, 3, 1, 2, 4, 5>}
// CHECK: %[[X:.*]] = "graph.reshape"({{.*}}) {shape = array<i64: 3, 12, 9, 10>}
// CHECK: %[[W:.*]] = "graph.reshape"(%arg1) {shape = array<i64: 8, 6, 3, 3>}
// CHECK: %[[Y:.*]] = "graph.conv2d"(%[[X]], %[[W]], %arg2) {{{.*}}group = 2 : i64{{.*}}pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<3x12x9x10xf32>, tensor<8x6x3x3xf32>, tensor<8xf32>) -> tensor<3x8x9x10xf32>
// CHECK: %[[R:.*]] = "graph.reshape"(%[[Y]]) {shape = array<i64: 1, 3, 8, 9, 10>}
// CHECK: "graph.transpose"(%[[R]]) {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x3x8x9x10xf32>) -> tensor<1x8x3x9x10xf32>
// CHECK-NOT: graph.conv_nd
// OFF-LABEL: func.func @conv
// OFF: graph.conv_nd
// TAPS-LABEL: func.func @conv
// TAPS: graph.conv_nd
// BAD: max-depth-taps must be >= 1, got 0
func.func @conv(%x: tensor<1x4x6x9x10xf32>, %w: tensor<8x2x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x3x9x10xf32> {
  %y = "graph.conv_nd"(%x, %w, %b) {strides = array<i64: 2, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1>, group = 2 : i64} : (tensor<1x4x6x9x10xf32>, tensor<8x2x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x3x9x10xf32>
  return %y : tensor<1x8x3x9x10xf32>
}

// -----

// Pools: over depth first (max of the -inf-padded taps; the sum of the zero-padded taps
// times 1 / real taps per output depth, 1/2 at the padded first one), then a 2-D pool of
// the [1, 3 * 4, 10, 11] view.
// CHECK-LABEL: func.func @pools
// CHECK: %[[PM:.*]] = "graph.pad"(%arg0) {{{.*}}value = 0xFF800000 : f32}
// CHECK-COUNT-2: "graph.max"
// CHECK: %[[FM:.*]] = "graph.reshape"({{.*}}) {shape = array<i64: 1, 12, 10, 11>}
// CHECK: %[[M:.*]] = "graph.max_pool2d"(%[[FM]]) {{{.*}}kernel_shape = array<i64: 3, 3>{{.*}}pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK: %[[RM:.*]] = "graph.reshape"(%[[M]]) {shape = array<i64: 1, 3, 4, 5, 6>}
// CHECK: %[[PA:.*]] = "graph.pad"(%arg0) {{{.*}}value = 0.000000e+00 : f32}
// CHECK-COUNT-2: "graph.add"
// CHECK: "graph.constant"() {value = dense<{{\[\[\[\[\[}}5.000000e-01]], {{\[\[}}0.333333343]], {{\[\[}}0.333333343]], {{\[\[}}0.333333343]]]]]> : tensor<1x1x4x1x1xf32>}
// CHECK: "graph.mul"
// CHECK: "graph.avg_pool2d"({{.*}}) {ceil_mode = 0 : i64, count_include_pad = 0 : i64
// CHECK: return %[[RM]], %{{.*}} : tensor<1x3x4x5x6xf32>, tensor<1x3x4x5x6xf32>
// OFF-LABEL: func.func @pools
// OFF: graph.max_pool_nd
// OFF: graph.avg_pool_nd
func.func @pools(%x: tensor<1x3x8x10x11xf32>) -> (tensor<1x3x4x5x6xf32>, tensor<1x3x4x5x6xf32>) {
  %m = "graph.max_pool_nd"(%x) {kernel_shape = array<i64: 3, 3, 3>, strides = array<i64: 2, 2, 2>, pads = array<i64: 1, 1, 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1>, ceil_mode = 0 : i64} : (tensor<1x3x8x10x11xf32>) -> tensor<1x3x4x5x6xf32>
  %a = "graph.avg_pool_nd"(%x) {kernel_shape = array<i64: 3, 3, 3>, strides = array<i64: 2, 2, 2>, pads = array<i64: 1, 1, 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1>, ceil_mode = 0 : i64, count_include_pad = 0 : i64} : (tensor<1x3x8x10x11xf32>) -> tensor<1x3x4x5x6xf32>
  return %m, %a : tensor<1x3x4x5x6xf32>, tensor<1x3x4x5x6xf32>
}

// -----

// Left alone: an average pool with ceil_mode (its partial windows' divisor does not split
// into depth x 2-D), a 4-D conv_nd.
// CHECK-LABEL: func.func @kept
// CHECK: graph.avg_pool_nd
// CHECK: graph.conv_nd
func.func @kept(%x: tensor<1x3x7x9x9xf32>, %y: tensor<1x2x3x4x5x6xf32>, %w: tensor<4x2x1x1x1x1xf32>) -> (tensor<1x3x4x5x5xf32>, tensor<1x4x3x4x5x6xf32>) {
  %a = "graph.avg_pool_nd"(%x) {kernel_shape = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, ceil_mode = 1 : i64, count_include_pad = 0 : i64} : (tensor<1x3x7x9x9xf32>) -> tensor<1x3x4x5x5xf32>
  %c = "graph.conv_nd"(%y, %w) {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x2x3x4x5x6xf32>, tensor<4x2x1x1x1x1xf32>) -> tensor<1x4x3x4x5x6xf32>
  return %a, %c : tensor<1x3x4x5x5xf32>, tensor<1x4x3x4x5x6xf32>
}

// -----

// Sizes known only at run time: a 3-D conv on a run-time batch splits its depth taps the same
// way; the 2-D conv runs on a batch of 4*batch planes.
// CHECK-LABEL: func.func @symbolic_batch
// CHECK: tensor.concat dim(2) {{.*}} -> tensor<?x4x3x4x8x8xf32, ["batch", 4, 3, 4, 8, 8]>
// CHECK: %[[P:.*]] = "graph.reshape"(%{{.*}}) {shape = ["4*batch", 12, 8, 8]}
// CHECK: %[[C:.*]] = "graph.conv2d"(%[[P]], %{{.*}}) {{.*}} -> tensor<?x4x8x8xf32, ["4*batch", 4, 8, 8]>
// CHECK-NEXT: "graph.reshape"(%[[C]]) {shape = ["batch", 4, 4, 8, 8]}
// OFF-LABEL: func.func @symbolic_batch
// OFF: "graph.conv_nd"
func.func @symbolic_batch(%x: tensor<?x4x4x8x8xf32, ["batch", 4, 4, 8, 8]>) -> tensor<?x4x4x8x8xf32, ["batch", 4, 4, 8, 8]> {
  %w = "graph.constant"() {value = dense<0.5> : tensor<4x4x3x3x3xf32>} : () -> tensor<4x4x3x3x3xf32>
  %y = "graph.conv_nd"(%x, %w) {dilations = array<i64: 1, 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 1, 1, 1>} : (tensor<?x4x4x8x8xf32, ["batch", 4, 4, 8, 8]>, tensor<4x4x3x3x3xf32>) -> tensor<?x4x4x8x8xf32, ["batch", 4, 4, 8, 8]>
  return %y : tensor<?x4x4x8x8xf32, ["batch", 4, 4, 8, 8]>
}
