// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse)' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse{max-group-size=1})' | FileCheck %s --check-prefix=NOFUSE

// A conv takes its bias-add/relu epilogue; a residual add + relu after the second conv joins
// that conv's group; constants stay in @main and are passed to the kernels.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"w">}
// CHECK-NEXT: %[[B:.*]] = "graph.constant"() {value = dense<5.000000e-01> : tensor<1x4x1x1xf32>}
// CHECK-NEXT: %[[C1:.*]] = call @fused_conv2d_add_relu_0(%arg0, %[[W]], %[[B]])
// CHECK-NEXT: %[[C2:.*]] = call @fused_conv2d_add_relu_1(%[[C1]], %[[W]])
// CHECK-NEXT: return %[[C2]]
// CHECK-LABEL: func.func private @fused_conv2d_add_relu_0
// CHECK-SAME: attributes {graph.kernel}
// CHECK-NEXT: "graph.conv2d"
// CHECK-NEXT: "graph.add"
// CHECK-NEXT: "graph.relu"
// CHECK-NEXT: return
// NOFUSE-LABEL: func.func @main
// NOFUSE: call @fused_conv2d_0
// NOFUSE: call @fused_add_1
// NOFUSE: call @fused_relu_2
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x1x1xf32>
  %b = "graph.constant"() {value = dense<0.5> : tensor<1x4x1x1xf32>} : () -> tensor<1x4x1x1xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %a = "graph.add"(%c, %b) : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = "graph.relu"(%a) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c2 = "graph.conv2d"(%r, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %s = "graph.add"(%c2, %r) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r2 = "graph.relu"(%s) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r2 : tensor<1x4x8x8xf32>
}

// -----

// A value used twice ends its group (no work is duplicated); injective chains fuse together;
// an op that changes the shape is not an in-place epilogue of a reduction.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[E:.*]] = call @fused_exp_0(%arg0)
// CHECK-NEXT: %[[T:.*]] = call @fused_transpose_reshape_relu_1(%[[E]])
// CHECK-NEXT: %[[S:.*]] = call @fused_reduce_sum_2(%[[E]])
// CHECK-NEXT: %[[R:.*]] = call @fused_reshape_3(%[[S]])
// CHECK-NEXT: return %[[T]], %[[R]]
func.func @main(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2xf32>) {
  %e = "graph.exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "graph.transpose"(%e) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %f = "graph.reshape"(%t) {shape = array<i64: 6>} : (tensor<3x2xf32>) -> tensor<6xf32>
  %r = "graph.relu"(%f) : (tensor<6xf32>) -> tensor<6xf32>
  %s = "graph.reduce_sum"(%e) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %q = "graph.reshape"(%s) {shape = array<i64: 2>} : (tensor<2x1xf32>) -> tensor<2xf32>
  return %r, %q : tensor<6xf32>, tensor<2xf32>
}

// -----

// Structurally identical groups share one kernel.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[A:.*]] = call @fused_sigmoid_mul_0(%arg0)
// CHECK-NEXT: %[[B:.*]] = call @fused_sigmoid_mul_0(%arg1)
// CHECK-NEXT: return %[[A]], %[[B]]
// CHECK-NOT: func.func private @fused_sigmoid_mul_1
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = "graph.sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %m = "graph.mul"(%s, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s2 = "graph.sigmoid"(%y) : (tensor<4xf32>) -> tensor<4xf32>
  %m2 = "graph.mul"(%s2, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m, %m2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Same-shape elementwise ops of another type stay in the compute kernel: the i32 accumulator
// of an integer matmul is requantized to int8 inside it.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[Q:.*]] = call @fused_matmul_integer_requantize_0(%arg0, %arg1, %arg2, %arg3)
// CHECK-NEXT: return %[[Q]]
func.func @main(%a: tensor<3x4xui8>, %b: tensor<4x5xi8>, %m: tensor<f32>, %z: tensor<ui8>) -> tensor<3x5xui8> {
  %acc = "graph.matmul_integer"(%a, %b) {rhs_layout = "KN"} : (tensor<3x4xui8>, tensor<4x5xi8>) -> tensor<3x5xi32>
  %q = "graph.requantize"(%acc, %m, %z) : (tensor<3x5xi32>, tensor<f32>, tensor<ui8>) -> tensor<3x5xui8>
  return %q : tensor<3x5xui8>
}
