// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// Round trip of the elementwise, scan and normalization ops added with the ONNX elementwise
// family (print -> parse -> print).

func.func @float_unary(%arg0: tensor<2x3xf32>) {
  %0 = "graph.tan"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "graph.asin"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.acos"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "graph.atan"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "graph.sinh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "graph.cosh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "graph.asinh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = "graph.acosh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = "graph.atanh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = "graph.is_nan"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %10 = "graph.is_inf"(%arg0) {detect_negative = 1 : i64, detect_positive = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %11 = "graph.trilu"(%arg0) {k = -1 : i64, upper = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
func.func @integers(%arg0: tensor<2x3xi32>, %arg1: tensor<3xi32>, %arg2: tensor<4xui8>) {
  %0 = "graph.bitwise_and"(%arg0, %arg1) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = "graph.bitwise_or"(%arg0, %arg1) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %2 = "graph.bitwise_xor"(%arg0, %arg1) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %3 = "graph.bitwise_not"(%arg2) : (tensor<4xui8>) -> tensor<4xui8>
  %4 = "graph.bit_shift"(%arg0, %arg1) {direction = "LEFT"} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %5 = "graph.bitcast"(%arg0) {to = "f32"} : (tensor<2x3xi32>) -> tensor<2x3xf32>
  %6 = "graph.bitcast"(%arg2) {to = "i1"} : (tensor<4xui8>) -> tensor<4xi1>
  return
}
func.func @scans(%arg0: tensor<2x5xf32>, %arg1: tensor<7xi64>) {
  %0 = "graph.cumsum"(%arg0) {axis = 1 : i64, exclusive = 0 : i64, reverse = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = "graph.cumprod"(%arg1) {axis = -1 : i64, exclusive = 1 : i64, reverse = 0 : i64} : (tensor<7xi64>) -> tensor<7xi64>
  return
}
func.func @norms(%arg0: tensor<2x4x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4xf32>) {
  %0 = "graph.rms_norm"(%arg0, %arg1) {axis = -1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<2x4x3xf32>
  %1 = "graph.group_norm"(%arg0, %arg2, %arg2) {epsilon = 9.99999974E-6 : f32, num_groups = 2 : i64} : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3xf32>
  %2 = "graph.mean_variance_norm"(%arg0) {axes = array<i64: 0, 2>, epsilon = 9.99999971E-10 : f32} : (tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %3 = "graph.lp_norm"(%arg0) {axis = 1 : i64, p = 1 : i64} : (tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return
}

// CHECK-LABEL: func.func @float_unary(
// CHECK-NEXT: "graph.tan"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: "graph.asin"
// CHECK-NEXT: "graph.acos"
// CHECK-NEXT: "graph.atan"
// CHECK-NEXT: "graph.sinh"
// CHECK-NEXT: "graph.cosh"
// CHECK-NEXT: "graph.asinh"
// CHECK-NEXT: "graph.acosh"
// CHECK-NEXT: "graph.atanh"
// CHECK-NEXT: "graph.is_nan"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: "graph.is_inf"(%{{.*}}) {detect_negative = 1 : i64, detect_positive = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: "graph.trilu"(%{{.*}}) {k = -1 : i64, upper = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-LABEL: func.func @integers(
// CHECK-NEXT: "graph.bitwise_and"(%{{.*}}, %{{.*}}) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT: "graph.bitwise_or"
// CHECK-NEXT: "graph.bitwise_xor"
// CHECK-NEXT: "graph.bitwise_not"(%{{.*}}) : (tensor<4xui8>) -> tensor<4xui8>
// CHECK-NEXT: "graph.bit_shift"(%{{.*}}, %{{.*}}) {direction = "LEFT"}
// CHECK-NEXT: "graph.bitcast"(%{{.*}}) {to = "f32"} : (tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK-NEXT: "graph.bitcast"(%{{.*}}) {to = "i1"} : (tensor<4xui8>) -> tensor<4xi1>
// CHECK-LABEL: func.func @scans(
// CHECK-NEXT: "graph.cumsum"(%{{.*}}) {axis = 1 : i64, exclusive = 0 : i64, reverse = 1 : i64}
// CHECK-NEXT: "graph.cumprod"(%{{.*}}) {axis = -1 : i64, exclusive = 1 : i64, reverse = 0 : i64} : (tensor<7xi64>) -> tensor<7xi64>
// CHECK-LABEL: func.func @norms(
// CHECK-NEXT: "graph.rms_norm"(%{{.*}}, %{{.*}}) {axis = -1 : i64, epsilon = 9.99999974E-6 : f32}
// CHECK-NEXT: "graph.group_norm"(%{{.*}}, %{{.*}}, %{{.*}}) {epsilon = 9.99999974E-6 : f32, num_groups = 2 : i64}
// CHECK-NEXT: "graph.mean_variance_norm"(%{{.*}}) {axes = array<i64: 0, 2>, epsilon = 9.99999971E-10 : f32}
// CHECK-NEXT: "graph.lp_norm"(%{{.*}}) {axis = 1 : i64, p = 1 : i64}
