// REQUIRES: onnx
// RUN: %python %inputs/onnx_elem_models.py elementwise_float %tf.onnx elementwise_int %ti.onnx
// RUN: mlc import %tf.onnx -o - | FileCheck %s --check-prefix=FLOAT
// RUN: mlc import %ti.onnx -o - | FileCheck %s --check-prefix=INT

// IsNaN / IsInf give bools; Tan is a graph op; Shrink is a composition (the lower branch wins,
// then the upper, else 0); Swish-24 is x * sigmoid(alpha * x).
// FLOAT-LABEL: func.func @main
// FLOAT-SAME: (%[[X:.*]]: tensor<2x3xf32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>)
// FLOAT-NEXT: %[[NAN:.*]] = "graph.is_nan"(%[[X]]) : (tensor<2x3xf32>) -> tensor<2x3xi1>
// FLOAT-NEXT: %[[INF:.*]] = "graph.is_inf"(%[[X]]) {detect_negative = 0 : i64, detect_positive = 1 : i64}
// FLOAT-NEXT: %[[TAN:.*]] = "graph.tan"(%[[X]])
// FLOAT-NEXT: %[[MINUS_L:.*]] = "graph.constant"() {value = dense<-5.000000e-01> : tensor<f32>}
// FLOAT-NEXT: %[[BELOW:.*]] = "graph.less"(%[[TAN]], %[[MINUS_L]])
// FLOAT-NEXT: %[[L:.*]] = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>}
// FLOAT-NEXT: %[[ABOVE:.*]] = "graph.greater"(%[[TAN]], %[[L]])
// FLOAT-NEXT: %[[BIAS:.*]] = "graph.constant"() {value = dense<2.500000e-01> : tensor<f32>}
// FLOAT-NEXT: %[[UP:.*]] = "graph.add"(%[[TAN]], %[[BIAS]])
// FLOAT-NEXT: %[[DOWN:.*]] = "graph.sub"(%[[TAN]], %[[BIAS]])
// FLOAT-NEXT: %[[ZERO:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<f32>}
// FLOAT-NEXT: %[[INNER:.*]] = "graph.where"(%[[ABOVE]], %[[DOWN]], %[[ZERO]])
// FLOAT-NEXT: %[[SHRUNK:.*]] = "graph.where"(%[[BELOW]], %[[UP]], %[[INNER]])
// FLOAT-NEXT: %[[ALPHA:.*]] = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>}
// FLOAT-NEXT: %[[SCALED:.*]] = "graph.mul"(%[[SHRUNK]], %[[ALPHA]])
// FLOAT-NEXT: %[[SIG:.*]] = "graph.sigmoid"(%[[SCALED]])
// FLOAT-NEXT: %[[Y:.*]] = "graph.mul"(%[[SHRUNK]], %[[SIG]])
// FLOAT-NEXT: return %[[NAN]], %[[INF]], %[[Y]]

// Bitwise ops broadcast; BitShift keeps its direction; BitCast's ONNX type 1 is f32.
// INT-LABEL: func.func @main
// INT-SAME: (%[[A:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<3xi32>) -> tensor<2x3xf32>
// INT-NEXT: %[[AND:.*]] = "graph.bitwise_and"(%[[A]], %[[B]]) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
// INT-NEXT: %[[SH:.*]] = "graph.bit_shift"(%[[AND]], %[[B]]) {direction = "RIGHT"}
// INT-NEXT: %[[NOT:.*]] = "graph.bitwise_not"(%[[SH]])
// INT-NEXT: %[[Y:.*]] = "graph.bitcast"(%[[NOT]]) {to = "f32"} : (tensor<2x3xi32>) -> tensor<2x3xf32>
// INT-NEXT: return %[[Y]]
