// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py indexing_v9 %t9.onnx indexing_v18 %t18.onnx
// RUN: mlc import %t9.onnx -o - | FileCheck %s --check-prefix=V9
// RUN: mlc import %t18.onnx -o - | FileCheck %s --check-prefix=V18

// Opset 9: Slice and Pad take attributes; an end past the dim is clamped.
// V9-LABEL: func.func @main
// V9-NEXT: %[[S:.*]] = "graph.slice"(%arg0) {axes = array<i64: 1>, ends = array<i64: 6>, starts = array<i64: 1>, steps = array<i64: 1>} : (tensor<2x6xf32>) -> tensor<2x5xf32>
// V9-NEXT: %[[P:.*]] = "graph.pad"(%[[S]]) {mode = "edge", pads = array<i64: 0, 1, 0, 2>, value = 0.000000e+00 : f32} : (tensor<2x5xf32>) -> tensor<2x8xf32>
// V9-NEXT: return %[[P]]

// Opset 18: Slice inputs (a reversal: the end before index 0 is -(dim + 1)), Split by
// num_outputs into slices (uneven last chunk), Pad with constant_value and axes inputs.
// V18-LABEL: func.func @main
// V18-NEXT: %[[T:.*]] = "graph.constant"() {value = #graph.param<"table">} : () -> tensor<10x5xf32>
// V18-NEXT: %[[E:.*]] = "graph.gather"(%[[T]], %arg0) {axis = 0 : i64} : (tensor<10x5xf32>, tensor<2x3xi64>) -> tensor<2x3x5xf32>
// V18-NEXT: %[[R:.*]] = "graph.slice"(%[[E]]) {axes = array<i64: 1>, ends = array<i64: -4>, starts = array<i64: 2>, steps = array<i64: -1>}
// V18-NEXT: %[[A:.*]] = "graph.slice"(%[[R]]) {axes = array<i64: 2>, ends = array<i64: 3>, starts = array<i64: 0>, steps = array<i64: 1>}
// V18-NEXT: %[[B:.*]] = "graph.slice"(%[[R]]) {axes = array<i64: 2>, ends = array<i64: 5>, starts = array<i64: 3>, steps = array<i64: 1>}
// V18-NEXT: %[[P:.*]] = "graph.pad"(%[[A]]) {mode = "constant", pads = array<i64: 0, 0, 1, 0, 0, 1>, value = -1.000000e+00 : f32}
// V18-NEXT: return %[[P]], %[[B]]
