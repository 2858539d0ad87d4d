// REQUIRES: onnx
// RUN: %python %inputs/onnx_elem_models.py generators %t.onnx
// RUN: mlc import %t.onnx -o - | FileCheck %s

// Generators are computed at import by their converters: EyeLike of a graph input (only its
// shape matters), ConstantOfShape of a Shape, Range of constants: parameters, no ops.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT: %[[EYE:.*]] = "graph.constant"() {value = #graph.param<"eye">} : () -> tensor<3x3xf32>
// CHECK-NEXT: %[[SHIFTED:.*]] = "graph.add"(%[[X]], %[[EYE]])
// CHECK-NEXT: %[[TWOS:.*]] = "graph.constant"() {value = #graph.param<"twos">} : () -> tensor<3xf32>
// CHECK-NEXT: %[[SCALED:.*]] = "graph.mul"(%[[SHIFTED]], %[[TWOS]])
// CHECK-NEXT: %[[RAMP:.*]] = "graph.constant"() {value = #graph.param<"ramp">} : () -> tensor<3xf32>
// CHECK-NEXT: %[[Y:.*]] = "graph.add"(%[[SCALED]], %[[RAMP]])
// CHECK-NEXT: return %[[Y]]
