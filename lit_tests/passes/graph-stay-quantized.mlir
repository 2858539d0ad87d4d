// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-stay-quantized)' | FileCheck %s

// A fire module's tail: two requantized branches dequantized, concatenated in f32 and
// quantized again. The quantize moves onto the branches; where its parameters are the
// branch's (%s1, %z) the round trip vanishes, elsewhere quantize(dequantize) stays (an
// epilogue of the branch's kernel); the concat joins uint8 tensors.
// CHECK-LABEL: func.func @concat
// CHECK-NOT: "graph.dequantize_linear"(%arg0
// CHECK: %[[D:.*]] = "graph.dequantize_linear"(%arg1, %{{[0-9]+}}, %[[Z:[0-9]+]]) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[Q:.*]] = "graph.quantize_linear"(%[[D]], %{{.*}}, %[[Z]]) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
// CHECK-NEXT: %[[C:.*]] = tensor.concat dim(1) %arg0, %[[Q]] : (tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>) -> tensor<1x4x4x4xui8>
// CHECK-NEXT: return %[[C]]
func.func @concat(%a: tensor<1x2x4x4xui8>, %b: tensor<1x2x4x4xui8>) -> tensor<1x4x4x4xui8> {
  %s1 = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %s2 = "graph.constant"() {value = dense<7.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %s = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %da = "graph.dequantize_linear"(%a, %s1, %z) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %db = "graph.dequantize_linear"(%b, %s2, %z) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %c = tensor.concat dim(1) %da, %db : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %q = "graph.quantize_linear"(%c, %s, %z) : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  return %q : tensor<1x4x4x4xui8>
}

// A max pool between a dequantize and a quantize with the same parameters runs on the
// uint8 values (the scale is positive: dequantizing is increasing).
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[P:.*]] = "graph.max_pool2d"(%arg0) {{.*}}kernel_shape = array<i64: 3, 3>{{.*}}strides = array<i64: 2, 2>{{.*}} : (tensor<1x2x9x9xui8>) -> tensor<1x2x4x4xui8>
// CHECK-NEXT: return %[[P]]
func.func @max_pool(%a: tensor<1x2x9x9xui8>) -> tensor<1x2x4x4xui8> {
  %s = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %d = "graph.dequantize_linear"(%a, %s, %z) : (tensor<1x2x9x9xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x9x9xf32>
  %p = "graph.max_pool2d"(%d) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x9x9xf32>) -> tensor<1x2x4x4xf32>
  %q = "graph.quantize_linear"(%p, %s, %z) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  return %q : tensor<1x2x4x4xui8>
}

// A negative scale reverses the order: the max pool stays on the float values.
// CHECK-LABEL: func.func @negative_scale
// CHECK: "graph.dequantize_linear"
// CHECK-NEXT: "graph.max_pool2d"({{.*}} : (tensor<1x2x9x9xf32>)
func.func @negative_scale(%a: tensor<1x2x9x9xui8>) -> tensor<1x2x4x4xui8> {
  %s = "graph.constant"() {value = dense<-5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %d = "graph.dequantize_linear"(%a, %s, %z) : (tensor<1x2x9x9xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x9x9xf32>
  %p = "graph.max_pool2d"(%d) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x9x9xf32>) -> tensor<1x2x4x4xf32>
  %q = "graph.quantize_linear"(%p, %s, %z) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  return %q : tensor<1x2x4x4xui8>
}

// A float value used by another op keeps its concat: the quantize stays where it is.
// CHECK-LABEL: func.func @concat_used_twice
// CHECK: %[[C:.*]] = tensor.concat dim(1) {{.*}} -> tensor<1x4x4x4xf32>
// CHECK-NEXT: "graph.quantize_linear"(%[[C]]
func.func @concat_used_twice(%a: tensor<1x2x4x4xui8>, %b: tensor<1x2x4x4xui8>) -> (tensor<1x4x4x4xui8>, tensor<1x4x4x4xf32>) {
  %s = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %da = "graph.dequantize_linear"(%a, %s, %z) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %db = "graph.dequantize_linear"(%b, %s, %z) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %c = tensor.concat dim(1) %da, %db : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %q = "graph.quantize_linear"(%c, %s, %z) : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  return %q, %c : tensor<1x4x4x4xui8>, tensor<1x4x4x4xf32>
}

// A dequantize_linear with one elementwise user moves right before it (after the conv of a
// residual block), so that graph-fuse computes it in the conv's kernel from the uint8 values.
// CHECK-LABEL: func.func @residual
// CHECK: %[[C:.*]] = "graph.conv2d"
// CHECK-NEXT: %[[D:.*]] = "graph.dequantize_linear"(%arg1
// CHECK-NEXT: "graph.add"(%[[C]], %[[D]])
func.func @residual(%x: tensor<1x4x8x8xf32>, %r: tensor<1x4x8x8xui8>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x4x1x1xf32>
  %s = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %d = "graph.dequantize_linear"(%r, %s, %z) : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %a = "graph.add"(%c, %d) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %a : tensor<1x4x8x8xf32>
}

// A layout transform of a dequantized tensor moves its uint8 values; the dequantize follows.
// CHECK-LABEL: func.func @transform
// CHECK: %[[T:.*]] = "graph.layout_transform"(%arg0) {dst_layout = "NCHW", src_layout = "NCHW16c"} : (tensor<1x2x3x3x16xui8>) -> tensor<1x32x3x3xui8>
// CHECK-NEXT: %[[D:.*]] = "graph.dequantize_linear"(%[[T]], %{{.*}}, %{{.*}}) : (tensor<1x32x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x32x3x3xf32>
// CHECK-NEXT: return %[[D]]
func.func @transform(%a: tensor<1x2x3x3x16xui8>) -> tensor<1x32x3x3xf32> {
  %s = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %d = "graph.dequantize_linear"(%a, %s, %z) : (tensor<1x2x3x3x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3x16xf32>
  %t = "graph.layout_transform"(%d) {dst_layout = "NCHW", src_layout = "NCHW16c"} : (tensor<1x2x3x3x16xf32>) -> tensor<1x32x3x3xf32>
  return %t : tensor<1x32x3x3xf32>
}
