// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py softmax_v9 %t9.onnx softmax_v13 %t13.onnx normalization %tn.onnx
// RUN: mlc import %t9.onnx -o - | FileCheck %s --check-prefix=V9
// RUN: mlc import %t13.onnx -o - | FileCheck %s --check-prefix=V13
// RUN: mlc import %tn.onnx -o - | FileCheck %s --check-prefix=NORM

// Opset <= 12: Softmax (default axis 1) normalizes dims 1 and 2 together: flatten, softmax,
// reshape back. On the last axis no reshape is needed.
// V9-LABEL: func.func @main
// V9-NEXT: %[[FLAT:.*]] = "graph.reshape"(%arg0) {shape = array<i64: 2, 12>}
// V9-NEXT: %[[SM:.*]] = "graph.softmax"(%[[FLAT]]) {axis = 1 : i64} : (tensor<2x12xf32>) -> tensor<2x12xf32>
// V9-NEXT: %[[Y:.*]] = "graph.reshape"(%[[SM]]) {shape = array<i64: 2, 3, 4>}
// V9-NEXT: %[[Z:.*]] = "graph.log_softmax"(%arg0) {axis = 2 : i64}
// V9-NEXT: return %[[Y]], %[[Z]]

// Opset 13: along `axis` alone (default -1).
// V13-LABEL: func.func @main
// V13-NEXT: %[[Y:.*]] = "graph.softmax"(%arg0) {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// V13-NEXT: %[[Z:.*]] = "graph.log_softmax"(%arg0) {axis = 1 : i64}
// V13-NEXT: return %[[Y]], %[[Z]]

// NORM-LABEL: func.func @main
// NORM-NEXT: %[[S:.*]] = "graph.constant"() {value = #graph.param<"s">}
// NORM-NEXT: %[[B:.*]] = "graph.constant"() {value = #graph.param<"b">}
// NORM-NEXT: %[[M:.*]] = "graph.constant"() {value = #graph.param<"m">}
// NORM-NEXT: %[[V:.*]] = "graph.constant"() {value = #graph.param<"v">}
// NORM-NEXT: %[[BN:.*]] = "graph.batch_norm"(%arg0, %[[S]], %[[B]], %[[M]], %[[V]]) {epsilon = 1.000000e-03 : f32}
// NORM-NEXT: %[[LRN:.*]] = "graph.lrn"(%[[BN]]) {alpha = 9.99999974E-5 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32, size = 3 : i64}
// NORM-NEXT: %[[G:.*]] = "graph.constant"() {value = #graph.param<"g">}
// NORM-NEXT: %[[BETA:.*]] = "graph.constant"() {value = #graph.param<"beta">}
// NORM-NEXT: %[[Y:.*]] = "graph.layer_norm"(%[[LRN]], %[[G]], %[[BETA]]) {axis = -1 : i64, epsilon = 9.99999997E-7 : f32}
// NORM-NEXT: return %[[Y]]
