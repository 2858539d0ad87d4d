// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-winograd)' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-winograd{tile=2})' | FileCheck %s --check-prefix=TWO
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-winograd{tile=0})' | FileCheck %s --check-prefix=OFF
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(graph-winograd{tile=3})' 2>&1 | FileCheck %s --check-prefix=BAD

// A blocked 3x3 stride-1 conv over 28 x 28 (49 tiles of 4 x 4: m = 4, 36 products): the input
// transform, the filter transform as graph ops on the constant ([36, 9] x [9, C*K], folded by
// graph-fold-constants), the batched GEMM, the output transform with the bias.
// CHECK-LABEL: func.func @conv
// CHECK: %[[V:.*]] = "graph.winograd_input"(%arg0) {data_layout = "NCHW8c", out_size = array<i64: 28, 28>, pads = array<i64: 1, 1>, tile = 4 : i64} : (tensor<1x4x28x28x8xf32>) -> tensor<36x49x32xf32>
// CHECK: %[[T:.*]] = "graph.transpose"(%{{.*}}) {perm = array<i64: 2, 3, 1, 4, 0, 5>} : (tensor<4x4x3x3x8x8xf32>) -> tensor<3x3x4x8x4x8xf32>
// CHECK-NEXT: %[[R:.*]] = "graph.reshape"(%[[T]]) {shape = array<i64: 9, 1024>}
// CHECK-NEXT: %[[G:.*]] = "graph.constant"() {value = dense<{{.*}}> : tensor<36x9xf32>}
// CHECK-NEXT: %[[GR:.*]] = "graph.matmul"(%[[G]], %[[R]]) : (tensor<36x9xf32>, tensor<9x1024xf32>) -> tensor<36x1024xf32>
// CHECK-NEXT: %[[U:.*]] = "graph.reshape"(%[[GR]]) {shape = array<i64: 36, 32, 32>}
// CHECK-NEXT: %[[M:.*]] = "graph.matmul"(%[[V]], %[[U]]) : (tensor<36x49x32xf32>, tensor<36x32x32xf32>) -> tensor<36x49x32xf32>
// CHECK-NEXT: %[[Y:.*]] = "graph.winograd_output"(%[[M]], %{{.*}}) {batch = 1 : i64, out_layout = "NCHW8c", out_size = array<i64: 28, 28>, tile = 4 : i64} : (tensor<36x49x32xf32>, tensor<32xf32>) -> tensor<1x4x28x28x8xf32>
// CHECK-NEXT: return %[[Y]]
// TWO-LABEL: func.func @conv
// TWO: "graph.winograd_input"(%arg0) {{.*}} tile = 2 : i64} : (tensor<1x4x28x28x8xf32>) -> tensor<16x196x32xf32>
// OFF-LABEL: func.func @conv
// OFF-NOT: winograd
// OFF: "graph.conv2d"
// BAD: graph-winograd: tile must be 0 (off) or one of [2, 4], got 3
func.func @conv(%x: tensor<1x4x28x28x8xf32>) -> tensor<1x4x28x28x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x3x3x8x8xf32>
  %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<32xf32>
  %y = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x28x28x8xf32>, tensor<4x4x3x3x8x8xf32>, tensor<32xf32>) -> tensor<1x4x28x28x8xf32>
  return %y : tensor<1x4x28x28x8xf32>
}

// Left alone: stride 2, a 7 x 7 output (16 tiles of 2 x 2 < min-rows), NCHW, weights that
// are not constants.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: winograd
// CHECK-COUNT-4: "graph.conv2d"
func.func @kept(%x: tensor<1x4x14x14x8xf32>, %xs: tensor<1x4x7x7x8xf32>, %xn: tensor<1x32x14x14xf32>, %wv: tensor<2x4x3x3x8x8xf32>) -> (tensor<1x2x7x7x8xf32>, tensor<1x2x7x7x8xf32>, tensor<1x16x14x14xf32>, tensor<1x2x14x14x8xf32>) {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<2x4x3x3x8x8xf32>
  %wn = "graph.constant"() {value = #graph.param<"wn">} : () -> tensor<16x32x3x3xf32>
  %s = "graph.conv2d"(%x, %w) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x14x14x8xf32>, tensor<2x4x3x3x8x8xf32>) -> tensor<1x2x7x7x8xf32>
  %t = "graph.conv2d"(%xs, %w) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x7x7x8xf32>, tensor<2x4x3x3x8x8xf32>) -> tensor<1x2x7x7x8xf32>
  %n = "graph.conv2d"(%xn, %wn) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x32x14x14xf32>, tensor<16x32x3x3xf32>) -> tensor<1x16x14x14xf32>
  %v = "graph.conv2d"(%x, %wv) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x14x14x8xf32>, tensor<2x4x3x3x8x8xf32>) -> tensor<1x2x14x14x8xf32>
  return %s, %t, %n, %v : tensor<1x2x7x7x8xf32>, tensor<1x2x7x7x8xf32>, tensor<1x16x14x14xf32>, tensor<1x2x14x14x8xf32>
}

// Sizes known only at run time. A run-time batch: the same transforms as @conv over 49*batch
// tiles (chosen on the fewest rows the batch admits, 49 at batch 1); winograd_output takes the
// batch from its tile count (batch = 0). A run-time image (h, w) stays direct: the transforms
// take a static image size.
// CHECK-LABEL: func.func @symbolic_sizes
// CHECK: %[[V:.*]] = "graph.winograd_input"(%arg0) {{.*}}tile = 4 : i64} : (tensor<?x4x28x28x8xf32, ["batch", 4, 28, 28, 8]>) -> tensor<36x?x32xf32, [36, "49*batch", 32]>
// CHECK: %[[M:.*]] = "graph.matmul"(%[[V]], %{{.*}}) : (tensor<36x?x32xf32, [36, "49*batch", 32]>, tensor<36x32x32xf32>) -> tensor<36x?x32xf32, [36, "49*batch", 32]>
// CHECK-NEXT: "graph.winograd_output"(%[[M]], %{{.*}}) {batch = 0 : i64, {{.*}} -> tensor<?x4x28x28x8xf32, ["batch", 4, 28, 28, 8]>
// CHECK-NOT: winograd
// CHECK: "graph.conv2d"(%arg1, %{{.*}}, %{{.*}}) {{.*}} -> tensor<1x4x?x?x8xf32, [1, 4, "h", "w", 8]>
func.func @symbolic_sizes(%x: tensor<?x4x28x28x8xf32, ["batch", 4, 28, 28, 8]>, %xi: tensor<1x4x?x?x8xf32, [1, 4, "h", "w", 8]>) -> (tensor<?x4x28x28x8xf32, ["batch", 4, 28, 28, 8]>, tensor<1x4x?x?x8xf32, [1, 4, "h", "w", 8]>) {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x3x3x8x8xf32>
  %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<32xf32>
  %y = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x28x28x8xf32, ["batch", 4, 28, 28, 8]>, tensor<4x4x3x3x8x8xf32>, tensor<32xf32>) -> tensor<?x4x28x28x8xf32, ["batch", 4, 28, 28, 8]>
  %z = "graph.conv2d"(%xi, %w, %b) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x?x?x8xf32, [1, 4, "h", "w", 8]>, tensor<4x4x3x3x8x8xf32>, tensor<32xf32>) -> tensor<1x4x?x?x8xf32, [1, 4, "h", "w", 8]>
  return %y, %z : tensor<?x4x28x28x8xf32, ["batch", 4, 28, 28, 8]>, tensor<1x4x?x?x8xf32, [1, 4, "h", "w", 8]>
}
