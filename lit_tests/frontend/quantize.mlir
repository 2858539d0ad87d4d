// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py quantize %t.q.onnx qlinear %t.ql.onnx
// RUN: mlc import %t.q.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=QDQ
// RUN: mlc import %t.ql.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=QLINEAR

// Per-axis parameters broadcast as [C, 1] (one parameter per shape, shared by both ops); a
// blocked scale is repeated block_size times along its axis and cut to the input's extent; an
// absent zero point is a uint8 zero; the DequantizeLinear of an int8 initializer is kept.
// QDQ-LABEL: func.func @main
// QDQ-NEXT: %[[S:.*]] = "graph.constant"() {value = #graph.param<"s_axis.shape3x1">} : () -> tensor<3x1xf32>
// QDQ-NEXT: %[[Z:.*]] = "graph.constant"() {value = #graph.param<"z_axis.shape3x1">} : () -> tensor<3x1xui8>
// QDQ-NEXT: %[[Q:.*]] = "graph.quantize_linear"(%arg0, %[[S]], %[[Z]]) : (tensor<1x3x4xf32>, tensor<3x1xf32>, tensor<3x1xui8>) -> tensor<1x3x4xui8>
// QDQ-NEXT: %[[DQ:.*]] = "graph.dequantize_linear"(%[[Q]], %[[S]], %[[Z]])
// QDQ-NEXT: %[[SB:.*]] = "graph.constant"() {value = #graph.param<"s_block">} : () -> tensor<1x3x2xf32>
// QDQ-NEXT: %[[U:.*]] = "graph.unsqueeze"(%[[SB]]) {axes = array<i64: 3>}
// QDQ-NEXT: %[[E:.*]] = "graph.expand"(%[[U]]) {shape = array<i64: 1, 3, 2, 3>}
// QDQ-NEXT: %[[R:.*]] = "graph.reshape"(%[[E]]) {shape = array<i64: 1, 3, 6>}
// QDQ-NEXT: %[[CUT:.*]] = "graph.slice"(%[[R]]) {axes = array<i64: 2>, ends = array<i64: 4>, starts = array<i64: 0>, steps = array<i64: 1>}
// QDQ-NEXT: %[[ZERO:.*]] = "graph.constant"() {value = dense<0> : tensor<ui8>}
// QDQ-NEXT: %[[QB:.*]] = "graph.quantize_linear"(%arg0, %[[CUT]], %[[ZERO]])
// QDQ-NEXT: %[[ZW:.*]] = "graph.constant"() {value = dense<0> : tensor<i8>}
// QDQ-NEXT: %[[SW:.*]] = "graph.constant"() {value = dense<1.000000e-01> : tensor<f32>}
// QDQ-NEXT: %[[WQ:.*]] = "graph.constant"() {value = #graph.param<"wq">} : () -> tensor<1x3x4xi8>
// QDQ-NEXT: %[[W:.*]] = "graph.dequantize_linear"(%[[WQ]], %[[SW]], %[[ZW]])
// QDQ-NEXT: %[[Y:.*]] = "graph.add"(%[[DQ]], %[[W]])
// QDQ-NEXT: return %[[Y]], %[[QB]]

// QLinearConv: the conv on the raw uint8 input padded with x_zero_point, the bias minus
// zx * sum(w) per channel, requantized by x_scale * w_scale / y_scale (zero weight zero
// points leave no trace). MatMulInteger with a run-time zero point subtracts za * column sums.
// QLINEAR-LABEL: func.func @main
// QLINEAR: %[[ACC:.*]] = "graph.conv2d_integer"(%arg0, %[[W:.*]]) {{.*}}pad_value = 3 : i64, pads = array<i64: 1, 1, 1, 1>
// QLINEAR-NEXT: %[[WI:.*]] = "graph.cast"(%[[W]]) {to = "i32"}
// QLINEAR-NEXT: %[[SUMS:.*]] = "graph.reduce_sum"(%[[WI]]) {axes = array<i64: 1, 2, 3>, keepdims = 0 : i64}
// QLINEAR-NEXT: %[[ZX:.*]] = "graph.cast"(%{{.*}}) {to = "i32"} : (tensor<ui8>) -> tensor<i32>
// QLINEAR-NEXT: %[[CORR:.*]] = "graph.mul"(%[[ZX]], %[[SUMS]])
// QLINEAR-NEXT: %[[OFF:.*]] = "graph.sub"(%{{.*}}, %[[CORR]]) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// QLINEAR-NEXT: %[[OFF3:.*]] = "graph.reshape"(%[[OFF]]) {shape = array<i64: 2, 1, 1>}
// QLINEAR-NEXT: %[[BIASED:.*]] = "graph.add"(%[[ACC]], %[[OFF3]])
// QLINEAR-NEXT: %[[SW:.*]] = "graph.constant"() {value = #graph.param<"sw.shape2x1x1">} : () -> tensor<2x1x1xf32>
// QLINEAR-NEXT: %[[SX:.*]] = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>}
// QLINEAR-NEXT: %[[SY:.*]] = "graph.constant"() {value = dense<2.000000e-01> : tensor<f32>}
// QLINEAR-NEXT: %[[ZY:.*]] = "graph.constant"() {value = dense<10> : tensor<ui8>}
// QLINEAR-NEXT: %[[SXW:.*]] = "graph.mul"(%[[SX]], %[[SW]])
// QLINEAR-NEXT: %[[M:.*]] = "graph.div"(%[[SXW]], %[[SY]])
// QLINEAR-NEXT: %[[Y:.*]] = "graph.requantize"(%[[BIASED]], %[[M]], %[[ZY]]) : (tensor<1x2x3x3xi32>, tensor<2x1x1xf32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
// QLINEAR-NEXT: %[[B:.*]] = "graph.constant"() {value = #graph.param<"bq">} : () -> tensor<3x2xi8>
// QLINEAR-NEXT: %[[MM:.*]] = "graph.matmul_integer"(%arg1, %[[B]]) {rhs_layout = "KN"} : (tensor<2x3xui8>, tensor<3x2xi8>) -> tensor<2x2xi32>
// QLINEAR-NEXT: %[[BI:.*]] = "graph.cast"(%[[B]]) {to = "i32"}
// QLINEAR-NEXT: %[[COLS:.*]] = "graph.reduce_sum"(%[[BI]]) {axes = array<i64: 0>, keepdims = 1 : i64} : (tensor<3x2xi32>) -> tensor<1x2xi32>
// QLINEAR-NEXT: %[[ZA:.*]] = "graph.cast"(%arg2) {to = "i32"}
// QLINEAR-NEXT: %[[C:.*]] = "graph.mul"(%[[ZA]], %[[COLS]])
// QLINEAR-NEXT: %[[NEG:.*]] = "graph.neg"(%[[C]])
// QLINEAR-NEXT: %[[OUT:.*]] = "graph.add"(%[[MM]], %[[NEG]])
// QLINEAR-NEXT: return %[[Y]], %[[OUT]]
