// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py nn %t.onnx conv1d %t1.onnx
// RUN: mlc import %t.onnx -o - | FileCheck %s
// RUN: mlc import %t1.onnx -o - | FileCheck %s --check-prefix=CONV1D

// SAME_UPPER becomes explicit pads (the odd one at the end); weights are parameters.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<8x3x3x3xf32>
// CHECK-NEXT: %[[B:.*]] = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<8xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.conv2d"(%arg0, %[[W]], %[[B]])
// CHECK-SAME: group = 1 : i64
// CHECK-SAME: pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>
// CHECK-SAME: -> tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[DW:.*]] = "graph.constant"() {value = #graph.param<"dw">}
// CHECK-NEXT: %[[D:.*]] = "graph.conv2d"(%[[C]], %[[DW]])
// CHECK-SAME: group = 8 : i64
// CHECK-NEXT: %[[P:.*]] = "graph.max_pool2d"(%[[D]]) {ceil_mode = 1 : i64
// CHECK-SAME: -> tensor<1x8x4x4xf32>
// CHECK-NEXT: %[[AVG:.*]] = "graph.avg_pool2d"(%[[P]]) {ceil_mode = 0 : i64, count_include_pad = 1 : i64
// CHECK-SAME: pads = array<i64: 1, 1, 0, 0>
// CHECK-NEXT: %[[GAP:.*]] = "graph.global_avg_pool2d"(%[[AVG]]) : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT: %[[F:.*]] = "graph.flatten"(%[[GAP]]) {axis = 1 : i64}
// CHECK-NEXT: %[[FW:.*]] = "graph.constant"() {value = #graph.param<"fc_w">}
// CHECK-NEXT: %[[FB:.*]] = "graph.constant"() {value = #graph.param<"fc_b">}
// CHECK-NEXT: %[[FC:.*]] = "graph.dense"(%[[F]], %[[FW]], %[[FB]]) {alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64}
// CHECK-NEXT: %[[PW:.*]] = "graph.constant"() {value = #graph.param<"proj">}
// CHECK-NEXT: %[[Y:.*]] = "graph.matmul"(%[[FC]], %[[PW]]) : (tensor<1x10xf32>, tensor<10x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT: return %[[Y]]

// A 1-D convolution runs as a 2-D one of unit height.
// CONV1D-LABEL: func.func @main
// CONV1D-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x2x3xf32>
// CONV1D-NEXT: %[[X2:.*]] = "graph.unsqueeze"(%arg0) {axes = array<i64: 2>} : (tensor<1x2x10xf32>) -> tensor<1x2x1x10xf32>
// CONV1D-NEXT: %[[W2:.*]] = "graph.unsqueeze"(%[[W]]) {axes = array<i64: 2>}
// CONV1D-NEXT: %[[C:.*]] = "graph.conv2d"(%[[X2]], %[[W2]])
// CONV1D-SAME: dilations = array<i64: 1, 2>
// CONV1D-SAME: pads = array<i64: 0, 1, 0, 1>
// CONV1D-NEXT: %[[Y:.*]] = "graph.squeeze"(%[[C]]) {axes = array<i64: 2>} : (tensor<1x4x1x8xf32>) -> tensor<1x4x8xf32>
// CONV1D-NEXT: return %[[Y]]
