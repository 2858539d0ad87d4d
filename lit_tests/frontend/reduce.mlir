// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py reduce_v13 %t13.onnx reduce_v18 %t18.onnx
// RUN: mlc import %t13.onnx -o - | FileCheck %s --check-prefix=V13
// RUN: mlc import %t18.onnx -o - | FileCheck %s --check-prefix=V18

// Opset 13: ReduceMean takes an axes attribute, ReduceSum an axes input; axes are normalized.
// V13-LABEL: func.func @main
// V13-NEXT: %[[M:.*]] = "graph.reduce_mean"(%arg0) {axes = array<i64: 2>, keepdims = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// V13-NEXT: %[[S:.*]] = "graph.reduce_sum"(%[[M]]) {axes = array<i64: 0>, keepdims = 0 : i64} : (tensor<2x3x1xf32>) -> tensor<3x1xf32>
// V13-NEXT: %[[A:.*]] = "graph.argmax"(%arg0) {axis = 1 : i64, keepdims = 0 : i64, select_last_index = 0 : i64}
// V13-NEXT: return %[[S]], %[[A]]

// Opset 18: every reduction takes an axes input; none means all axes, or a no-op with
// noop_with_empty_axes; ReduceLogSumExp is a max-shifted composition.
// V18-LABEL: func.func @main
// V18-NEXT: %[[M:.*]] = "graph.reduce_mean"(%arg0) {axes = array<i64: 2>, keepdims = 1 : i64}
// V18-NEXT: %[[ALL:.*]] = "graph.reduce_max"(%[[M]]) {axes = array<i64: 0, 1, 2>, keepdims = 0 : i64} : (tensor<2x3x1xf32>) -> tensor<f32>
// V18-NEXT: %[[PEAK:.*]] = "graph.reduce_max"(%arg0) {axes = array<i64: 2>, keepdims = 1 : i64}
// V18-NEXT: %[[SH:.*]] = "graph.sub"(%arg0, %[[PEAK]])
// V18-NEXT: %[[E:.*]] = "graph.exp"(%[[SH]])
// V18-NEXT: %[[SUM:.*]] = "graph.reduce_sum"(%[[E]]) {axes = array<i64: 2>, keepdims = 1 : i64}
// V18-NEXT: %[[LOG:.*]] = "graph.log"(%[[SUM]])
// V18-NEXT: %[[LSE:.*]] = "graph.add"(%[[LOG]], %[[PEAK]])
// V18-NEXT: %[[Y:.*]] = "graph.squeeze"(%[[LSE]]) {axes = array<i64: 2>} : (tensor<2x3x1xf32>) -> tensor<2x3xf32>
// V18-NEXT: return %[[ALL]], %arg0, %[[Y]]
