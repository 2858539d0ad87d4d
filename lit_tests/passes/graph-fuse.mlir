// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse)' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse{max-group-size=1})' | FileCheck %s --check-prefix=NOFUSE
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse{max-group-size=3})' | FileCheck %s --check-prefix=SMALL
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse{diamonds=false})' | FileCheck %s --check-prefix=DIAMONDS-OFF
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse{attention-min-bytes=0})' | FileCheck %s --check-prefix=ATT
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse{views=false})' | FileCheck %s --check-prefix=NOVIEWS
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse{attention=false attention-min-bytes=0})' | FileCheck %s --check-prefix=ATTENTION-OFF

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
// an op that changes the shape is not an in-place epilogue of a reduction: a reshape alone of
// a kernel's result stays in @main (graph-to-tp makes it a view of that result's buffer).
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[E:.*]] = call @fused_exp_0(%arg0)
// CHECK-NEXT: %[[T:.*]] = call @fused_transpose_reshape_relu_1(%[[E]])
// CHECK-NEXT: %[[S:.*]] = call @fused_reduce_sum_2(%[[E]])
// CHECK-NEXT: %[[R:.*]] = "graph.reshape"(%[[S]]) {shape = array<i64: 2>}
// CHECK-NEXT: return %[[T]], %[[R]]
// NOVIEWS-LABEL: func.func @main
// NOVIEWS: call @fused_reshape_3(
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

// -----

// SiLU after a conv (x * sigmoid(x)): the conv's output has two uses, both in the group, so
// conv, sigmoid and mul are one kernel.
// CHECK-LABEL: func.func @silu
// CHECK-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"w">}
// CHECK-NEXT: %[[K:.*]] = call @fused_conv2d_sigmoid_mul_0(%arg0, %[[W]])
// CHECK-NEXT: return %[[K]]
// CHECK-LABEL: func.func private @fused_conv2d_sigmoid_mul_0
// CHECK-NEXT: %[[C:.*]] = "graph.conv2d"(%arg0, %arg1)
// CHECK-NEXT: %[[S:.*]] = "graph.sigmoid"(%[[C]])
// CHECK-NEXT: %[[M:.*]] = "graph.mul"(%[[C]], %[[S]])
// CHECK-NEXT: return %[[M]]
// DIAMONDS-OFF-LABEL: func.func @silu
// DIAMONDS-OFF: call @fused_conv2d_0
// DIAMONDS-OFF-NEXT: call @fused_sigmoid_mul_1
// NOFUSE-LABEL: func.func @silu
// NOFUSE: call @fused_conv2d_0
// NOFUSE-NEXT: call @fused_sigmoid_1
// NOFUSE-NEXT: call @fused_mul_2
func.func @silu(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x1x1xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %s = "graph.sigmoid"(%c) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %m = "graph.mul"(%c, %s) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %m : tensor<1x4x8x8xf32>
}

// -----

// Ops after the SiLU that are not an epilogue of the conv (a transpose) stay a kernel of their
// own, as without the diamond.
// CHECK-LABEL: func.func @silu_then_transpose
// CHECK: %[[K:.*]] = call @fused_conv2d_sigmoid_mul_0(%arg0, %{{.*}})
// CHECK-NEXT: %[[T:.*]] = call @fused_transpose_1(%[[K]])
// CHECK-NEXT: return %[[T]]
func.func @silu_then_transpose(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x1x1xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %s = "graph.sigmoid"(%c) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %m = "graph.mul"(%c, %s) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %t = "graph.transpose"(%m) {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %t : tensor<1x4x8x8xf32>
}

// -----

// GELU (erf form, as BERT and ViT export it) after a matmul + bias: x * 0.5 * (1 + erf(x /
// sqrt 2)) reads x twice; one kernel. With max-group-size=3 no kernel has more than three
// ops and the diamond stays split where it was.
// CHECK-LABEL: func.func @gelu_erf
// CHECK: %[[K:.*]] = call @fused_matmul_add_div_etc_0(%arg0, %arg1, %arg2, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT: return %[[K]]
// CHECK-LABEL: func.func private @fused_matmul_add_div_etc_0
// CHECK-NEXT: %[[MM:.*]] = "graph.matmul"(%arg0, %arg1)
// CHECK-NEXT: %[[X:.*]] = "graph.add"(%[[MM]], %arg2)
// CHECK-NEXT: %[[D:.*]] = "graph.div"(%[[X]], %arg3)
// CHECK-NEXT: %[[E:.*]] = "graph.erf"(%[[D]])
// CHECK-NEXT: %[[A:.*]] = "graph.add"(%[[E]], %arg4)
// CHECK-NEXT: %[[P:.*]] = "graph.mul"(%[[X]], %[[A]])
// CHECK-NEXT: %[[H:.*]] = "graph.mul"(%[[P]], %arg5)
// CHECK-NEXT: return %[[H]]
// SMALL-LABEL: func.func @gelu_erf
// SMALL: %[[X:.*]] = call @fused_matmul_add_0(%arg0, %arg1, %arg2)
// SMALL-COUNT-3: "graph.constant"
// SMALL-NEXT: %[[A:.*]] = call @fused_div_erf_add_1(%[[X]], %{{.*}}, %{{.*}})
// SMALL-NEXT: %[[G:.*]] = call @fused_mul_mul_2(%[[X]], %[[A]], %{{.*}})
// SMALL-NEXT: return %[[G]]
func.func @gelu_erf(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %mm = "graph.matmul"(%x, %w) : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %y = "graph.add"(%mm, %b) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %sqrt2 = "graph.constant"() {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %one = "graph.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = "graph.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %d = "graph.div"(%y, %sqrt2) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %e = "graph.erf"(%d) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %a = "graph.add"(%e, %one) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %p = "graph.mul"(%y, %a) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %g = "graph.mul"(%p, %half) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}

// -----

// GELU (tanh form, as GPT-2 exports it, x ** 3 already expanded by graph-simplify):
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x * x * x))) reads x four times.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: %[[K:.*]] = call @fused_matmul_mul_mul_etc_0(%arg0, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT: return %[[K]]
// CHECK-LABEL: func.func private @fused_matmul_mul_mul_etc_0
// CHECK-NEXT: %[[X:.*]] = "graph.matmul"(%arg0, %arg1)
// CHECK-NEXT: %[[X2:.*]] = "graph.mul"(%[[X]], %[[X]])
// CHECK-NEXT: %[[X3:.*]] = "graph.mul"(%[[X2]], %[[X]])
// CHECK-NEXT: %[[C:.*]] = "graph.mul"(%[[X3]], %arg2)
// CHECK-NEXT: %[[S:.*]] = "graph.add"(%[[X]], %[[C]])
// CHECK-NEXT: %[[U:.*]] = "graph.mul"(%[[S]], %arg3)
// CHECK-NEXT: %[[T:.*]] = "graph.tanh"(%[[U]])
// CHECK-NEXT: %[[A:.*]] = "graph.add"(%[[T]], %arg4)
// CHECK-NEXT: %[[H:.*]] = "graph.mul"(%[[X]], %arg5)
// CHECK-NEXT: %[[G:.*]] = "graph.mul"(%[[H]], %[[A]])
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %y = "graph.matmul"(%x, %w) : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %k = "graph.constant"() {value = dense<0.044715> : tensor<f32>} : () -> tensor<f32>
  %s2p = "graph.constant"() {value = dense<0.797884583> : tensor<f32>} : () -> tensor<f32>
  %one = "graph.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %half = "graph.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %y2 = "graph.mul"(%y, %y) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %y3 = "graph.mul"(%y2, %y) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %c = "graph.mul"(%y3, %k) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %s = "graph.add"(%y, %c) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %u = "graph.mul"(%s, %s2p) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %t = "graph.tanh"(%u) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %a = "graph.add"(%t, %one) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %h = "graph.mul"(%y, %half) : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %g = "graph.mul"(%h, %a) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}

// -----

// A value used outside the group ends it: the conv's output also feeds a reduction, so the
// SiLU is its own kernel; a value inside a SiLU that is also returned splits it (one result
// per kernel). Nothing is computed twice.
// CHECK-LABEL: func.func @used_outside
// CHECK-NEXT: %[[W:.*]] = "graph.constant"
// CHECK-NEXT: %[[C:.*]] = call @fused_conv2d_0(%arg0, %[[W]])
// CHECK-NEXT: %[[M:.*]] = call @fused_sigmoid_mul_1(%[[C]])
// CHECK-NEXT: %[[R:.*]] = call @fused_reduce_sum_2(%[[C]])
// CHECK-NEXT: %[[S:.*]] = call @fused_sigmoid_3(%[[M]])
// CHECK-NEXT: %[[N:.*]] = call @fused_mul_4(%[[M]], %[[S]])
// CHECK-NEXT: return %[[R]], %[[N]], %[[S]]
func.func @used_outside(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x1x1xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %s = "graph.sigmoid"(%c) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %m = "graph.mul"(%c, %s) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = "graph.reduce_sum"(%c) {axes = array<i64: 2, 3>, keepdims = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %s2 = "graph.sigmoid"(%m) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %m2 = "graph.mul"(%m, %s2) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r, %m2, %s2 : tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// A value read at other indices (through a transpose) or broadcast to a larger shape is not
// shared inside a group: its users would evaluate it once per read.
// CHECK-LABEL: func.func @not_shared
// CHECK-NEXT: %[[E:.*]] = call @fused_exp_0(%arg0)
// CHECK-NEXT: %[[T:.*]] = call @fused_transpose_add_1(%[[E]])
// CHECK-NEXT: %[[L:.*]] = call @fused_log_2(%arg1)
// CHECK-NEXT: %[[B:.*]] = call @fused_mul_add_3(%arg0, %[[L]])
// CHECK-NEXT: return %[[T]], %[[B]]
func.func @not_shared(%x: tensor<4x4xf32>, %y: tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = "graph.exp"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = "graph.transpose"(%e) {perm = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = "graph.add"(%t, %e) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %l = "graph.log"(%y) : (tensor<4xf32>) -> tensor<4xf32>
  %m = "graph.mul"(%x, %l) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %b = "graph.add"(%m, %l) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The conv's only user joined the group of its other operand (relu(y), computed before the
// conv): the conv merges into that group, and the relu runs in the conv's epilogue.
// CHECK-LABEL: func.func @epilogue_operand_first
// CHECK: %[[K:.*]] = call @fused_relu_conv2d_mul_0(%arg1, %arg0, %{{.*}})
// CHECK-NEXT: return %[[K]]
// CHECK-LABEL: func.func private @fused_relu_conv2d_mul_0
// CHECK-NEXT: %[[R:.*]] = "graph.relu"(%arg0)
// CHECK-NEXT: %[[C:.*]] = "graph.conv2d"(%arg1, %arg2)
// CHECK-NEXT: %[[M:.*]] = "graph.mul"(%[[R]], %[[C]])
// CHECK-NEXT: return %[[M]]
// DIAMONDS-OFF-LABEL: func.func @epilogue_operand_first
// DIAMONDS-OFF: %[[C:.*]] = call @fused_conv2d_1(%arg0, %{{.*}})
// DIAMONDS-OFF-NEXT: call @fused_relu_mul_0(%arg1, %[[C]])
func.func @epilogue_operand_first(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x1x1xf32>
  %r = "graph.relu"(%y) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %m = "graph.mul"(%r, %c) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %m : tensor<1x4x8x8xf32>
}

// -----

// Attention: Q·Kᵀ with its scale and mask, the softmax of the scores along the keys, and their
// product by V are one kernel (three anchors) when a head's scores take attention-min-bytes
// (0 in the ATT run: any size); tp-to-loops runs its blocks head by head. By default (512 KiB) these 10x10
// heads stay three kernels, as with attention=false.
// CHECK-LABEL: func.func @attention
// CHECK: call @fused_matmul_mul_add_0
// CHECK-NEXT: call @fused_softmax_1
// CHECK-NEXT: call @fused_matmul_2
// ATT-LABEL: func.func @attention
// ATT: %[[O:.*]] = call @fused_matmul_mul_add_etc_0(%arg0, %arg1, %{{.*}}, %arg3, %arg2)
// ATT-NEXT: return %[[O]]
// ATT-LABEL: func.func private @fused_matmul_mul_add_etc_0
// ATT-NEXT: "graph.matmul"
// ATT-NEXT: "graph.mul"
// ATT-NEXT: "graph.add"
// ATT-NEXT: "graph.softmax"
// ATT-NEXT: "graph.matmul"
// ATT-NEXT: return
// ATTENTION-OFF-LABEL: func.func @attention
// ATTENTION-OFF: call @fused_matmul_mul_add_0
// ATTENTION-OFF-NEXT: call @fused_softmax_1
// ATTENTION-OFF-NEXT: call @fused_matmul_2
func.func @attention(%q: tensor<1x4x10x8xf32>, %kt: tensor<1x4x8x10xf32>, %v: tensor<1x4x10x8xf32>, %mask: tensor<1x1x1x10xf32>) -> tensor<1x4x10x8xf32> {
  %scale = "graph.constant"() {value = dense<0.35> : tensor<f32>} : () -> tensor<f32>
  %s = "graph.matmul"(%q, %kt) : (tensor<1x4x10x8xf32>, tensor<1x4x8x10xf32>) -> tensor<1x4x10x10xf32>
  %ss = "graph.mul"(%s, %scale) : (tensor<1x4x10x10xf32>, tensor<f32>) -> tensor<1x4x10x10xf32>
  %sm = "graph.add"(%ss, %mask) : (tensor<1x4x10x10xf32>, tensor<1x1x1x10xf32>) -> tensor<1x4x10x10xf32>
  %p = "graph.softmax"(%sm) {axis = -1 : i64} : (tensor<1x4x10x10xf32>) -> tensor<1x4x10x10xf32>
  %o = "graph.matmul"(%p, %v) : (tensor<1x4x10x10xf32>, tensor<1x4x10x8xf32>) -> tensor<1x4x10x8xf32>
  return %o : tensor<1x4x10x8xf32>
}

// -----

// Not attention: the softmax is along the queries (axis 2), or the scores have a second user,
// or the softmax is the right operand of the product: three kernels each.
// ATT-LABEL: func.func @not_attention
// ATT: call @fused_matmul_0
// ATT-NEXT: call @fused_softmax_1
// ATT-NEXT: call @fused_matmul_2
// ATT-NEXT: call @fused_matmul_0
// ATT-NEXT: call @fused_softmax_4
// ATT-NEXT: call @fused_matmul_2
// ATT-NEXT: call @fused_matmul_0
// ATT-NEXT: call @fused_softmax_4
// ATT-NEXT: call @fused_matmul_8
func.func @not_attention(%q: tensor<2x10x8xf32>, %kt: tensor<2x8x10xf32>, %v: tensor<2x10x8xf32>, %w: tensor<2x8x10xf32>) -> (tensor<2x10x8xf32>, tensor<2x10x8xf32>, tensor<2x10x10xf32>, tensor<2x8x10xf32>) {
  %s = "graph.matmul"(%q, %kt) : (tensor<2x10x8xf32>, tensor<2x8x10xf32>) -> tensor<2x10x10xf32>
  %p = "graph.softmax"(%s) {axis = 1 : i64} : (tensor<2x10x10xf32>) -> tensor<2x10x10xf32>
  %o = "graph.matmul"(%p, %v) : (tensor<2x10x10xf32>, tensor<2x10x8xf32>) -> tensor<2x10x8xf32>
  %s2 = "graph.matmul"(%q, %kt) : (tensor<2x10x8xf32>, tensor<2x8x10xf32>) -> tensor<2x10x10xf32>
  %p2 = "graph.softmax"(%s2) {axis = -1 : i64} : (tensor<2x10x10xf32>) -> tensor<2x10x10xf32>
  %o2 = "graph.matmul"(%p2, %v) : (tensor<2x10x10xf32>, tensor<2x10x8xf32>) -> tensor<2x10x8xf32>
  %s3 = "graph.matmul"(%q, %kt) : (tensor<2x10x8xf32>, tensor<2x8x10xf32>) -> tensor<2x10x10xf32>
  %p3 = "graph.softmax"(%s3) {axis = -1 : i64} : (tensor<2x10x10xf32>) -> tensor<2x10x10xf32>
  %o3 = "graph.matmul"(%w, %p3) : (tensor<2x8x10xf32>, tensor<2x10x10xf32>) -> tensor<2x8x10xf32>
  return %o, %o2, %s2, %o3 : tensor<2x10x8xf32>, tensor<2x10x8xf32>, tensor<2x10x10xf32>, tensor<2x8x10xf32>
}

// -----

// Right after a matmul, its transposes and reshapes join its group (the lowering writes the
// product through them), then elementwise ops of their shape; a transpose after those
// elementwise ops starts a kernel of its own.
// CHECK-LABEL: func.func @main
// CHECK: %[[K:.*]] = call @fused_matmul_transpose_reshape_add_0(
// CHECK-NEXT: call @fused_transpose_1(%[[K]])
func.func @main(%x: tensor<4x8xf32>, %w: tensor<2x8x16xf32>, %b: tensor<32xf32>) -> tensor<32x4xf32> {
  %p = "graph.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %t = "graph.transpose"(%p) {perm = array<i64: 1, 0, 2>} : (tensor<2x4x16xf32>) -> tensor<4x2x16xf32>
  %r = "graph.reshape"(%t) {shape = array<i64: 4, 32>} : (tensor<4x2x16xf32>) -> tensor<4x32xf32>
  %a = "graph.add"(%r, %b) : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %y = "graph.transpose"(%a) {perm = array<i64: 1, 0>} : (tensor<4x32xf32>) -> tensor<32x4xf32>
  return %y : tensor<32x4xf32>
}

// -----

// A conv's reshape stays out of its group (only matmuls write through a remap): a view.
// CHECK-LABEL: func.func @main
// CHECK: %[[C:.*]] = call @fused_conv2d_0(
// CHECK-NEXT: "graph.reshape"(%[[C]])
func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x48xf32> {
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %r = "graph.reshape"(%c) {shape = array<i64: 1, 48>} : (tensor<1x3x4x4xf32>) -> tensor<1x48xf32>
  return %r : tensor<1x48xf32>
}

// -----

// Sizes known only at run time: groups form as for static sizes and the kernels take the
// symbolic types.
// CHECK-LABEL: func.func @symbolic_group
// CHECK: %[[A:.*]] = call @fused_add_0(%arg0, %arg1) : (tensor<?x?x16xf32, ["batch", "seq", 16]>, tensor<?x?x16xf32, ["batch", "seq", 16]>) -> tensor<?x?x16xf32, ["batch", "seq", 16]>
// CHECK-NEXT: call @fused_softmax_relu_1(%[[A]]) : (tensor<?x?x16xf32, ["batch", "seq", 16]>) -> tensor<?x?x16xf32, ["batch", "seq", 16]>
// CHECK-LABEL: func.func private @fused_softmax_relu_1(%arg0: tensor<?x?x16xf32, ["batch", "seq", 16]>)
// CHECK-NEXT: "graph.softmax"
// CHECK-NEXT: "graph.relu"
func.func @symbolic_group(%x: tensor<?x?x16xf32, ["batch", "seq", 16]>, %m: tensor<?x?x16xf32, ["batch", "seq", 16]>) -> tensor<?x?x16xf32, ["batch", "seq", 16]> {
  %a = "graph.add"(%x, %m) : (tensor<?x?x16xf32, ["batch", "seq", 16]>, tensor<?x?x16xf32, ["batch", "seq", 16]>) -> tensor<?x?x16xf32, ["batch", "seq", 16]>
  %s = "graph.softmax"(%a) {axis = 2 : i64} : (tensor<?x?x16xf32, ["batch", "seq", 16]>) -> tensor<?x?x16xf32, ["batch", "seq", 16]>
  %r = "graph.relu"(%s) : (tensor<?x?x16xf32, ["batch", "seq", 16]>) -> tensor<?x?x16xf32, ["batch", "seq", 16]>
  return %r : tensor<?x?x16xf32, ["batch", "seq", 16]>
}

// -----

// An elementwise op after a conv in block order that only feeds the conv's epilogue (the
// residual branch's dequantize_linear, moved there by graph-stay-quantized) joins the conv's
// kernel, which reads the uint8 tensor; before the conv it stays a kernel of its own.
// CHECK-LABEL: func.func @late_operand
// CHECK-NEXT: %[[W:.*]] = "graph.constant"
// CHECK-NEXT: %[[S:.*]] = "graph.constant"
// CHECK-NEXT: %[[Z:.*]] = "graph.constant"
// CHECK-NEXT: %[[Y:.*]] = call @fused_conv2d_dequantize_linear_add_0(%arg0, %[[W]], %arg1, %[[S]], %[[Z]])
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func private @fused_conv2d_dequantize_linear_add_0
// CHECK-NEXT: "graph.conv2d"
// CHECK-NEXT: "graph.dequantize_linear"
// CHECK-NEXT: "graph.add"
// CHECK-NEXT: return
func.func @late_operand(%x: tensor<1x4x8x8xf32>, %r: tensor<1x4x8x8xui8>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x1x1xf32>
  %s = "graph.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %d = "graph.dequantize_linear"(%r, %s, %z) : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %a = "graph.add"(%c, %d) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %a : tensor<1x4x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @early_operand
// CHECK: call @fused_dequantize_linear_0(%arg1
// CHECK-NEXT: call @fused_conv2d_add_1(
func.func @early_operand(%x: tensor<1x4x8x8xf32>, %r: tensor<1x4x8x8xui8>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x1x1xf32>
  %s = "graph.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %d = "graph.dequantize_linear"(%r, %s, %z) : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %a = "graph.add"(%c, %d) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %a : tensor<1x4x8x8xf32>
}
