// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py activation_v6 %t6.onnx activation_v20 %t20.onnx
// RUN: mlc import %t6.onnx -o - | FileCheck %s --check-prefix=V6
// RUN: mlc import %t20.onnx -o - | FileCheck %s --check-prefix=V20

// Opset 6-10: Clip bounds are attributes.
// V6-LABEL: func.func @main
// V6-NEXT: %[[C:.*]] = "graph.clip"(%arg0) {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
// V6-NEXT: %[[L:.*]] = "graph.leaky_relu"(%[[C]]) {alpha = 1.000000e-01 : f32}
// V6-NEXT: return %[[L]]

// Opset 11+: Clip bounds are inputs; constant ones become attributes, an absent one stays open.
// V20-LABEL: func.func @main
// V20-NEXT: %[[R6:.*]] = "graph.clip"(%arg0) {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
// V20-NEXT: %[[UP:.*]] = "graph.clip"(%[[R6]]) {max = 6.000000e+00 : f32, min = 0xFF800000 : f32}
// V20-NEXT: %[[HS:.*]] = "graph.hard_swish"(%[[UP]])
// V20-NEXT: %[[G:.*]] = "graph.gelu"(%[[HS]]) {approximate = "tanh"}
// V20-NEXT: return %[[G]]
