// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-widen-half,graph-verify)' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-widen-half{types=bf16})' | FileCheck %s --check-prefix=BF16

// Half arguments and constants are cast to f32 once, before their first user; the ops compute
// in f32; the results are rounded to f16 at the return. A bitcast is defined by its element
// type: it gets the f16 value (one cast, shared with nothing else).
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %[[W:.*]] = "graph.constant"
// CHECK-NEXT: %[[X:.*]] = "graph.cast"(%arg0) {to = "f32"} : (tensor<4x8xf16>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[W32:.*]] = "graph.cast"(%[[W]]) {to = "f32"}
// CHECK-NEXT: %[[A:.*]] = "graph.add"(%[[X]], %[[W32]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[E:.*]] = "graph.exp"(%[[A]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[E16:.*]] = "graph.cast"(%[[E]]) {to = "f16"} : (tensor<4x8xf32>) -> tensor<4x8xf16>
// CHECK-NEXT: %[[B:.*]] = "graph.bitcast"(%[[E16]]) {to = "i16"}
// CHECK-NEXT: %[[Y:.*]] = "graph.cast"(%arg1) {to = "f32"}
// CHECK-NEXT: %[[M:.*]] = "graph.mul"(%[[E]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[M16:.*]] = "graph.cast"(%[[M]]) {to = "f16"}
// CHECK-NEXT: return %[[M16]], %[[B]] : tensor<4x8xf16>, tensor<4x8xi16>
// BF16-LABEL: func.func @chain
// BF16-NOT: "graph.cast"
func.func @chain(%x: tensor<4x8xf16>, %y: tensor<4x8xf16>) -> (tensor<4x8xf16>, tensor<4x8xi16>) {
  %w = "graph.constant"() {value = dense<1.5> : tensor<4x8xf16>} : () -> tensor<4x8xf16>
  %a = "graph.add"(%x, %w) : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %b = "graph.exp"(%a) : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %c = "graph.bitcast"(%b) {to = "i16"} : (tensor<4x8xf16>) -> tensor<4x8xi16>
  %d = "graph.mul"(%b, %y) : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  return %d, %c : tensor<4x8xf16>, tensor<4x8xi16>
}

// -----

// A cast to f16 inside the model is the model's own rounding: it stays, and its users compute
// on the rounded value in f32. A cast from f16 to f32 becomes a cast of the widened value
// (removed later by graph-simplify). Ops whose results are not half (argmax) take f32 operands.
// CHECK-LABEL: func.func @explicit_casts
// CHECK-NEXT: %[[H:.*]] = "graph.cast"(%arg0) {to = "f16"} : (tensor<8xf32>) -> tensor<8xf16>
// CHECK-NEXT: %[[H32:.*]] = "graph.cast"(%[[H]]) {to = "f32"} : (tensor<8xf16>) -> tensor<8xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.tanh"(%[[H32]]) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[F:.*]] = "graph.cast"(%[[T]]) {to = "f32"} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[I:.*]] = "graph.argmax"(%[[T]])
// CHECK-SAME: (tensor<8xf32>) -> tensor<1xi64>
// CHECK-NEXT: return %[[F]], %[[I]]
// BF16-LABEL: func.func @explicit_casts
func.func @explicit_casts(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<1xi64>) {
  %h = "graph.cast"(%x) {to = "f16"} : (tensor<8xf32>) -> tensor<8xf16>
  %t = "graph.tanh"(%h) : (tensor<8xf16>) -> tensor<8xf16>
  %f = "graph.cast"(%t) {to = "f32"} : (tensor<8xf16>) -> tensor<8xf32>
  %i = "graph.argmax"(%t) {axis = 0 : i64, keepdims = 1 : i64, select_last_index = 0 : i64} : (tensor<8xf16>) -> tensor<1xi64>
  return %f, %i : tensor<8xf32>, tensor<1xi64>
}

// -----

// bf16 too; f32 models are left as they are.
// CHECK-LABEL: func.func @bf16
// CHECK: "graph.sqrt"({{.*}}) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK: "graph.cast"({{.*}}) {to = "bf16"}
// BF16-LABEL: func.func @bf16
// BF16: "graph.sqrt"({{.*}}) : (tensor<3xf32>) -> tensor<3xf32>
func.func @bf16(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  %s = "graph.sqrt"(%x) : (tensor<3xbf16>) -> tensor<3xbf16>
  return %s : tensor<3xbf16>
}

// CHECK-LABEL: func.func @f32_untouched
// CHECK-NEXT: "graph.relu"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: return
func.func @f32_untouched(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = "graph.relu"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// QuantizeLinear divides in its scale's type (ONNX) and rounds the quotient to an integer: in
// f32 a quotient near a half may round the other way, so it keeps its f16 operands.
// CHECK-LABEL: func.func @quantize
// CHECK-NOT: "graph.cast"
// CHECK: "graph.quantize_linear"(%arg0, %{{.*}}, %{{.*}}) : (tensor<2x3xf16>, tensor<f16>, tensor<i8>) -> tensor<2x3xi8>
func.func @quantize(%x: tensor<2x3xf16>) -> tensor<2x3xi8> {
  %s = "graph.constant"() {value = dense<3.000490e-01> : tensor<f16>} : () -> tensor<f16>
  %z = "graph.constant"() {value = dense<-3> : tensor<i8>} : () -> tensor<i8>
  %q = "graph.quantize_linear"(%x, %s, %z) : (tensor<2x3xf16>, tensor<f16>, tensor<i8>) -> tensor<2x3xi8>
  return %q : tensor<2x3xi8>
}

// -----

// Sizes known only at run time: the casts around a half softmax keep the symbolic dims.
// CHECK-LABEL: func.func @symbolic_rows
// CHECK: %[[W:.*]] = "graph.cast"(%arg0) {to = "f32"} : (tensor<?x8xf16, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]>
// CHECK-NEXT: %[[S:.*]] = "graph.softmax"(%[[W]]) {axis = 1 : i64} : (tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]>
// CHECK-NEXT: "graph.cast"(%[[S]]) {to = "f16"} : (tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf16, ["seq", 8]>
func.func @symbolic_rows(%x: tensor<?x8xf16, ["seq", 8]>) -> tensor<?x8xf16, ["seq", 8]> {
  %y = "graph.softmax"(%x) {axis = 1 : i64} : (tensor<?x8xf16, ["seq", 8]>) -> tensor<?x8xf16, ["seq", 8]>
  return %y : tensor<?x8xf16, ["seq", 8]>
}
