// REQUIRES: onnx
// RUN: %python %inputs/onnx_elem_models.py norms_losses %t.onnx
// RUN: mlc import %t.onnx -o - | FileCheck %s

// One graph op per normalization. SoftmaxCrossEntropyLoss is log_softmax along the classes,
// then the NLL: the target's class selected by a one-hot mask and a sum over axis 1; targets
// equal to ignore_index are selected out of the loss and of the weights the mean divides by.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3xf32>, %[[LABELS:.*]]: tensor<2x3xi64>) -> tensor<f32>
// CHECK-NEXT: %[[RS:.*]] = "graph.constant"() {value = #graph.param<"rms_scale">}
// CHECK-NEXT: %[[RMS:.*]] = "graph.rms_norm"(%[[X]], %[[RS]]) {axis = 2 : i64, epsilon = 9.99999974E-6 : f32}
// CHECK-NEXT: %[[GS:.*]] = "graph.constant"() {value = #graph.param<"g_scale">}
// CHECK-NEXT: %[[GB:.*]] = "graph.constant"() {value = #graph.param<"g_bias">}
// CHECK-NEXT: %[[GN:.*]] = "graph.group_norm"(%[[RMS]], %[[GS]], %[[GB]]) {epsilon = 9.99999974E-6 : f32, num_groups = 2 : i64}
// CHECK-NEXT: %[[MVN:.*]] = "graph.mean_variance_norm"(%[[GN]]) {axes = array<i64: 0, 2>, epsilon = 9.99999971E-10 : f32}
// CHECK-NEXT: %[[LP:.*]] = "graph.lp_norm"(%[[MVN]]) {axis = 1 : i64, p = 1 : i64}
// CHECK-NEXT: %[[LOGP:.*]] = "graph.log_softmax"(%[[LP]]) {axis = 1 : i64}
// CHECK-NEXT: %[[ZERO:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<f32>}
// CHECK-NEXT: %[[CLASSES:.*]] = "graph.constant"() {value = #graph.param<"classes">} : () -> tensor<1x4x1xi64>
// CHECK-NEXT: %[[T:.*]] = "graph.unsqueeze"(%[[LABELS]]) {axes = array<i64: 1>}
// CHECK-NEXT: %[[HOT:.*]] = "graph.equal"(%[[T]], %[[CLASSES]]) : (tensor<2x1x3xi64>, tensor<1x4x1xi64>) -> tensor<2x4x3xi1>
// CHECK-NEXT: %[[MASKED:.*]] = "graph.where"(%[[HOT]], %[[LOGP]], %[[ZERO]])
// CHECK-NEXT: %[[PICKED:.*]] = "graph.reduce_sum"(%[[MASKED]]) {axes = array<i64: 1>, keepdims = 0 : i64}
// CHECK-NEXT: %[[LOSS:.*]] = "graph.neg"(%[[PICKED]])
// CHECK-NEXT: %[[II:.*]] = "graph.constant"() {value = dense<0> : tensor<i64>}
// CHECK-NEXT: %[[IS_II:.*]] = "graph.equal"(%[[LABELS]], %[[II]])
// CHECK-NEXT: %[[KEPT:.*]] = "graph.not"(%[[IS_II]])
// CHECK-NEXT: %[[ONE:.*]] = "graph.constant"() {value = dense<1.000000e+00> : tensor<f32>}
// CHECK-NEXT: %[[KEPT_LOSS:.*]] = "graph.where"(%[[KEPT]], %[[LOSS]], %[[ZERO]])
// CHECK-NEXT: %[[WEIGHT:.*]] = "graph.where"(%[[KEPT]], %[[ONE]], %[[ZERO]])
// CHECK-NEXT: %[[SUM:.*]] = "graph.reduce_sum"(%[[KEPT_LOSS]]) {axes = array<i64: 0, 1>, keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK-NEXT: %[[COUNT:.*]] = "graph.reduce_sum"(%[[WEIGHT]]) {axes = array<i64: 0, 1>, keepdims = 0 : i64}
// CHECK-NEXT: %[[MEAN:.*]] = "graph.div"(%[[SUM]], %[[COUNT]])
// CHECK-NEXT: return %[[MEAN]]
