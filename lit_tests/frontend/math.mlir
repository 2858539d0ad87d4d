// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py math %t.onnx
// RUN: mlc import %t.onnx -o - | FileCheck %s

// Broadcasting arithmetic; a scalar constant becomes a literal; Pow's int64 exponent is
// converted at import; Sum/Mean fold left over their inputs and Mean divides by the count.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[ADD:.*]] = "graph.add"(%[[A]], %[[B]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[TWO:.*]] = "graph.constant"() {value = dense<2.000000e+00> : tensor<f32>}
// CHECK-NEXT: %[[MUL:.*]] = "graph.mul"(%[[ADD]], %[[TWO]])
// CHECK-NEXT: %[[EXP:.*]] = "graph.constant"() {value = dense<3.000000e+00> : tensor<f32>}
// CHECK-NEXT: %[[POW:.*]] = "graph.pow"(%[[MUL]], %[[EXP]])
// CHECK-NEXT: %[[S1:.*]] = "graph.add"(%[[POW]], %[[A]])
// CHECK-NEXT: %[[S2:.*]] = "graph.add"(%[[S1]], %[[B]])
// CHECK-NEXT: %[[M1:.*]] = "graph.add"(%[[S2]], %[[A]])
// CHECK-NEXT: %[[N:.*]] = "graph.constant"() {value = dense<2.000000e+00> : tensor<f32>}
// CHECK-NEXT: %[[MEAN:.*]] = "graph.div"(%[[M1]], %[[N]])
// CHECK-NEXT: %[[Y:.*]] = "graph.sqrt"(%[[MEAN]])
// CHECK-NEXT: return %[[Y]]
