// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-lookup-tables)' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-lookup-tables{cheap-chains=true})' | FileCheck %s --check-prefix=CHEAP

// An int8 SiLU in QDQ form (QLinearSigmoid, then QLinearMul of its input and output): every
// operand is %arg0 or a per-tensor constant, so the chain is one table of 256 i32 entries.
// CHECK-LABEL: func.func @silu
// CHECK: %[[T:.*]] = "graph.constant"() {value = dense<{{.*}}> : tensor<256xi32>} : () -> tensor<256xi32>
// CHECK-NEXT: %[[L:.*]] = "graph.lookup"(%arg0, %[[T]]) {to = "ui8"} : (tensor<1x4x3x3xui8>, tensor<256xi32>) -> tensor<1x4x3x3xui8>
// CHECK-NEXT: return %[[L]]
// CHECK-NOT: graph.sigmoid
func.func @silu(%y: tensor<1x4x3x3xui8>) -> tensor<1x4x3x3xui8> {
  %sy = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %zy = "graph.constant"() {value = dense<120> : tensor<ui8>} : () -> tensor<ui8>
  %ss = "graph.constant"() {value = dense<0.00392156886> : tensor<f32>} : () -> tensor<f32>
  %zs = "graph.constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %sz = "graph.constant"() {value = dense<2.100000e-02> : tensor<f32>} : () -> tensor<f32>
  %zz = "graph.constant"() {value = dense<13> : tensor<ui8>} : () -> tensor<ui8>
  %d = "graph.dequantize_linear"(%y, %sy, %zy) : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xf32>
  %g = "graph.sigmoid"(%d) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %s = "graph.quantize_linear"(%g, %ss, %zs) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
  %ds = "graph.dequantize_linear"(%s, %ss, %zs) : (tensor<1x4x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xf32>
  %m = "graph.mul"(%d, %ds) : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %z = "graph.quantize_linear"(%m, %sz, %zz) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x3xui8>
  return %z : tensor<1x4x3x3xui8>
}

// The table of an int8 input is indexed by x + 128: sigmoid(x) / 0.5 rounds to 0 for the most
// negative inputs and to 2 for the largest (printed as little-endian hex words).
// CHECK-LABEL: func.func @int8_sigmoid
// CHECK: dense<"0x000000000000000000000000{{.*}}020000000200000002000000"> : tensor<256xi32>
// CHECK: "graph.lookup"(%arg0, %{{.*}}) {to = "i8"} : (tensor<8xi8>, tensor<256xi32>) -> tensor<8xi8>
func.func @int8_sigmoid(%x: tensor<8xi8>) -> tensor<8xi8> {
  %one = "graph.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %half = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %d = "graph.dequantize_linear"(%x, %one, %z) : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
  %g = "graph.sigmoid"(%d) : (tensor<8xf32>) -> tensor<8xf32>
  %q = "graph.quantize_linear"(%g, %half, %z) : (tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<8xi8>
  return %q : tensor<8xi8>
}

// The sigmoid's input is also returned: tabulating would compute it twice.
// CHECK-LABEL: func.func @used_outside
// CHECK-NOT: graph.lookup
// CHECK: graph.sigmoid
func.func @used_outside(%x: tensor<8xui8>) -> (tensor<8xui8>, tensor<8xf32>) {
  %s = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %d = "graph.dequantize_linear"(%x, %s, %z) : (tensor<8xui8>, tensor<f32>, tensor<ui8>) -> tensor<8xf32>
  %g = "graph.sigmoid"(%d) : (tensor<8xf32>) -> tensor<8xf32>
  %q = "graph.quantize_linear"(%g, %s, %z) : (tensor<8xf32>, tensor<f32>, tensor<ui8>) -> tensor<8xui8>
  return %q, %d : tensor<8xui8>, tensor<8xf32>
}

// Per-channel scales would need one table per channel: not tabulated.
// CHECK-LABEL: func.func @per_channel
// CHECK-NOT: graph.lookup
// CHECK: graph.sigmoid
func.func @per_channel(%x: tensor<1x2xui8>) -> tensor<1x2xui8> {
  %s = "graph.constant"() {value = dense<[[5.000000e-02, 6.000000e-02]]> : tensor<1x2xf32>} : () -> tensor<1x2xf32>
  %z = "graph.constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %d = "graph.dequantize_linear"(%x, %s, %z) : (tensor<1x2xui8>, tensor<1x2xf32>, tensor<ui8>) -> tensor<1x2xf32>
  %g = "graph.sigmoid"(%d) : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %q = "graph.quantize_linear"(%g, %s, %z) : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<ui8>) -> tensor<1x2xui8>
  return %q : tensor<1x2xui8>
}

// A product of two quantized tensors (an SE block's gate times its input) is not a function
// of one of them.
// CHECK-LABEL: func.func @two_tensors
// CHECK-NOT: graph.lookup
// CHECK: graph.mul
func.func @two_tensors(%a: tensor<8xui8>, %b: tensor<8xui8>) -> tensor<8xui8> {
  %s = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %da = "graph.dequantize_linear"(%a, %s, %z) : (tensor<8xui8>, tensor<f32>, tensor<ui8>) -> tensor<8xf32>
  %db = "graph.dequantize_linear"(%b, %s, %z) : (tensor<8xui8>, tensor<f32>, tensor<ui8>) -> tensor<8xf32>
  %m = "graph.mul"(%da, %db) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %q = "graph.quantize_linear"(%m, %s, %z) : (tensor<8xf32>, tensor<f32>, tensor<ui8>) -> tensor<8xui8>
  return %q : tensor<8xui8>
}

// QLinearLeakyRelu: a multiply and a select, about what a gather costs; tabulated only with
// cheap-chains. A requantize alone (quantize of a dequantize) never is.
// CHECK-LABEL: func.func @leaky_relu
// CHECK-NOT: graph.lookup
// CHECK: graph.leaky_relu
// CHEAP-LABEL: func.func @leaky_relu
// CHEAP: "graph.lookup"(%arg0
// CHEAP-NOT: graph.leaky_relu
// CHEAP: "graph.quantize_linear"(%{{.*}}) : (tensor<8xf32>
func.func @leaky_relu(%x: tensor<8xui8>, %y: tensor<8xui8>) -> (tensor<8xui8>, tensor<8xui8>) {
  %s = "graph.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %s2 = "graph.constant"() {value = dense<7.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "graph.constant"() {value = dense<100> : tensor<ui8>} : () -> tensor<ui8>
  %d = "graph.dequantize_linear"(%x, %s, %z) : (tensor<8xui8>, tensor<f32>, tensor<ui8>) -> tensor<8xf32>
  %r = "graph.leaky_relu"(%d) {alpha = 1.000000e-01 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %q = "graph.quantize_linear"(%r, %s, %z) : (tensor<8xf32>, tensor<f32>, tensor<ui8>) -> tensor<8xui8>
  %dy = "graph.dequantize_linear"(%y, %s, %z) : (tensor<8xui8>, tensor<f32>, tensor<ui8>) -> tensor<8xf32>
  %qy = "graph.quantize_linear"(%dy, %s2, %z) : (tensor<8xf32>, tensor<f32>, tensor<ui8>) -> tensor<8xui8>
  return %q, %qy : tensor<8xui8>, tensor<8xui8>
}
