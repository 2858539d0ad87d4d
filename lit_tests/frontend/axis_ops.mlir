// REQUIRES: onnx
// RUN: %python %inputs/onnx_elem_models.py axis_ops %t.onnx
// RUN: mlc import %t.onnx -o - | FileCheck %s

// CumSum's constant axis and Trilu's k become attributes; Hardmax-13 is argmax compared with
// the positions along the axis; OneHot-11 wraps negative indices, then compares the indices
// (unsqueezed at `axis`) with the class positions and selects on/off.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>, %[[IDS:.*]]: tensor<2xi64>) -> (tensor<3x4xf32>, tensor<3x2xf32>)
// CHECK-NEXT: %[[CUM:.*]] = "graph.cumsum"(%[[X]]) {axis = 1 : i64, exclusive = 0 : i64, reverse = 1 : i64}
// CHECK-NEXT: %[[LOW:.*]] = "graph.trilu"(%[[CUM]]) {k = -1 : i64, upper = 0 : i64}
// CHECK-NEXT: %[[ARG:.*]] = "graph.argmax"(%[[LOW]]) {axis = 1 : i64, keepdims = 1 : i64, select_last_index = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x1xi64>
// CHECK-NEXT: %[[POS:.*]] = "graph.constant"() {value = #graph.param<"hardmax.positions">} : () -> tensor<1x4xi64>
// CHECK-NEXT: %[[IS_MAX:.*]] = "graph.equal"(%[[ARG]], %[[POS]])
// CHECK-NEXT: %[[HARD:.*]] = "graph.cast"(%[[IS_MAX]]) {to = "f32"}
// CHECK-NEXT: %[[ZERO:.*]] = "graph.constant"() {value = dense<0> : tensor<i64>}
// CHECK-NEXT: %[[DEPTH:.*]] = "graph.constant"() {value = dense<3> : tensor<i64>}
// CHECK-NEXT: %[[NEG:.*]] = "graph.less"(%[[IDS]], %[[ZERO]])
// CHECK-NEXT: %[[UP:.*]] = "graph.add"(%[[IDS]], %[[DEPTH]])
// CHECK-NEXT: %[[WRAPPED:.*]] = "graph.where"(%[[NEG]], %[[UP]], %[[IDS]])
// CHECK-NEXT: %[[ROW:.*]] = "graph.unsqueeze"(%[[WRAPPED]]) {axes = array<i64: 0>} : (tensor<2xi64>) -> tensor<1x2xi64>
// CHECK-NEXT: %[[CLASSES:.*]] = "graph.constant"() {value = #graph.param<"one_hot.positions">} : () -> tensor<3x1xi64>
// CHECK-NEXT: %[[HOT:.*]] = "graph.equal"(%[[ROW]], %[[CLASSES]]) : (tensor<1x2xi64>, tensor<3x1xi64>) -> tensor<3x2xi1>
// CHECK-NEXT: %[[OFF:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<f32>}
// CHECK-NEXT: %[[ON:.*]] = "graph.constant"() {value = dense<1.000000e+00> : tensor<f32>}
// CHECK-NEXT: %[[Y:.*]] = "graph.where"(%[[HOT]], %[[ON]], %[[OFF]])
// CHECK-NEXT: return %[[HARD]], %[[Y]]
