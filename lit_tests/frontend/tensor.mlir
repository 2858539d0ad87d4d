// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py tensor_v11 %t11.onnx tensor_v13 %t13.onnx
// RUN: mlc import %t11.onnx -o - | FileCheck %s --check-prefix=V11
// RUN: mlc import %t13.onnx -o - | FileCheck %s --check-prefix=V13

// Opset 11: Squeeze/Unsqueeze axes are attributes (negative ones normalized).
// V11-LABEL: func.func @main
// V11-NEXT: %[[S:.*]] = "graph.squeeze"(%arg0) {axes = array<i64: 1>} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
// V11-NEXT: %[[U:.*]] = "graph.unsqueeze"(%[[S]]) {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
// V11-NEXT: return %[[U]]

// Opset 13: axes are inputs. The Shape -> Gather -> Unsqueeze -> Concat sub-graph is folded
// into the reshape's static shape; Concat is upstream tensor.concat.
// V13-LABEL: func.func @main
// V13-NEXT: %[[FLAT:.*]] = "graph.reshape"(%arg0) {shape = array<i64: 2, 3>}
// V13-NEXT: %[[SQ:.*]] = "graph.squeeze"(%arg0) {axes = array<i64: 1>}
// V13-NEXT: %[[TR:.*]] = "graph.transpose"(%[[SQ]]) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// V13-NEXT: %[[CAT:.*]] = tensor.concat dim(1) %[[TR]], %[[TR]] : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>
// V13-NEXT: %[[EX:.*]] = "graph.expand"(%[[CAT]]) {shape = array<i64: 2, 1, 1>} : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
// V13-NEXT: %[[Y:.*]] = "graph.tile"(%[[EX]]) {repeats = array<i64: 1, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
// V13-NEXT: return %[[FLAT]], %[[Y]]
