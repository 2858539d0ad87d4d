// REQUIRES: onnx
// RUN: %python %inputs/onnx_rnn_models.py lstm_bidirectional %t.lstm.onnx gru_batch_first %t.gru.onnx
// RUN: mlc import %t.lstm.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=LSTM
// RUN: mlc import %t.gru.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=GRU

// Bidirectional LSTM with run-time sequence lengths. The reverse direction reverses each
// sequence within its length: the row index (t < len ? len - 1 - t : t) * B + b is computed
// once from the lengths and gathers X W^T before the loop and Y after it. Per direction: the
// input projection for all steps (matmul + bias), R^T in panels [4 gates, 8, 8], zero states
// as splat literals, the recurrence, and Y / Y_h taken apart by slices.
// LSTM-LABEL: func.func @main(%arg0: tensor<5x2x3xf32>, %arg1: tensor<2xi32>) -> (tensor<5x2x2x8xf32>, tensor<2x2x8xf32>)
// LSTM-NEXT: %[[LENS:.*]] = "graph.cast"(%arg1) {to = "i64"}
// LSTM: %[[ROWS:.*]] = "graph.add"(%{{.*}}, %{{.*}}) : (tensor<5x2xi64>, tensor<2xi64>) -> tensor<5x2xi64>
// LSTM-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"lstm.W0T">} : () -> tensor<3x32xf32>
// LSTM-NEXT: %[[XW:.*]] = "graph.matmul"(%arg0, %[[W]]) : (tensor<5x2x3xf32>, tensor<3x32xf32>) -> tensor<5x2x32xf32>
// LSTM-NEXT: %[[B:.*]] = "graph.constant"() {value = #graph.param<"lstm.bias0">} : () -> tensor<32xf32>
// LSTM-NEXT: %[[XWB:.*]] = "graph.add"(%[[XW]], %[[B]])
// LSTM-NEXT: %[[RT:.*]] = "graph.constant"() {value = #graph.param<"lstm.R0T">} : () -> tensor<4x8x8xf32>
// LSTM-NEXT: %[[Z:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<2x8xf32>}
// LSTM-NEXT: %[[Z2:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<2x8xf32>}
// LSTM-NEXT: %[[P:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<24xf32>}
// LSTM-NEXT: %[[FWD:.*]] = "graph.lstm_recurrence"(%[[XWB]], %[[RT]], %[[Z]], %[[Z2]], %[[P]], %arg1)
// LSTM-SAME: activations = ["Sigmoid", "Tanh", "Tanh"]
// LSTM-SAME: reverse = 0 : i64
// LSTM-SAME: -> tensor<7x2x8xf32>
// LSTM-NEXT: %[[Y0:.*]] = "graph.slice"(%[[FWD]]) {axes = array<i64: 0>, ends = array<i64: 5>, starts = array<i64: 0>
// LSTM-NEXT: %[[Y0U:.*]] = "graph.unsqueeze"(%[[Y0]]) {axes = array<i64: 1>}
// LSTM-NEXT: %[[H0:.*]] = "graph.slice"(%[[FWD]]) {axes = array<i64: 0>, ends = array<i64: 6>, starts = array<i64: 5>
// LSTM: %[[XW1:.*]] = "graph.add"
// LSTM-NEXT: %[[FLAT:.*]] = "graph.reshape"(%[[XW1]]) {shape = array<i64: 10, 32>}
// LSTM-NEXT: %[[REV:.*]] = "graph.gather"(%[[FLAT]], %[[ROWS]]) {axis = 0 : i64} : (tensor<10x32xf32>, tensor<5x2xi64>) -> tensor<5x2x32xf32>
// LSTM: %[[BWD:.*]] = "graph.lstm_recurrence"(%[[REV]], {{.*}}, %arg1)
// LSTM-SAME: reverse = 0 : i64
// LSTM-NEXT: %[[Y1:.*]] = "graph.slice"(%[[BWD]])
// LSTM-NEXT: %[[Y1F:.*]] = "graph.reshape"(%[[Y1]]) {shape = array<i64: 10, 8>}
// LSTM-NEXT: %[[Y1R:.*]] = "graph.gather"(%[[Y1F]], %[[ROWS]])
// LSTM-NEXT: %[[Y1U:.*]] = "graph.unsqueeze"(%[[Y1R]]) {axes = array<i64: 1>}
// LSTM-NEXT: %[[H1:.*]] = "graph.slice"(%[[BWD]])
// LSTM: %[[Y:.*]] = tensor.concat dim(1) %[[Y0U]], %[[Y1U]] : (tensor<5x1x2x8xf32>, tensor<5x1x2x8xf32>) -> tensor<5x2x2x8xf32>
// LSTM-NEXT: %[[YH:.*]] = tensor.concat dim(0) %[[H0]], %[[H1]]
// LSTM: return %[[Y]], %[[YH]]

// Batch-first GRU (layout 1) asking only for Y_h: X is transposed to [T, B, I] first and Y_h
// back to [B, D, H]; clip and linear_before_reset are the op's attributes.
// GRU-LABEL: func.func @main(%arg0: tensor<2x5x3xf32>) -> tensor<2x1x4xf32>
// GRU-NEXT: %[[X:.*]] = "graph.transpose"(%arg0) {perm = array<i64: 1, 0, 2>} : (tensor<2x5x3xf32>) -> tensor<5x2x3xf32>
// GRU-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"gru.W0T">}
// GRU-NEXT: %[[XW:.*]] = "graph.matmul"(%[[X]], %[[W]])
// GRU-NEXT: %[[RT:.*]] = "graph.constant"() {value = #graph.param<"gru.R0T">} : () -> tensor<3x4x4xf32>
// GRU-NEXT: %[[H0:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<2x4xf32>}
// GRU-NEXT: %[[RBH:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<4xf32>}
// GRU-NEXT: %[[R:.*]] = "graph.gru_recurrence"(%[[XW]], %[[RT]], %[[H0]], %[[RBH]])
// GRU-SAME: clip = 2.500000e+00 : f32, linear_before_reset = 1 : i64, reverse = 0 : i64
// GRU-SAME: -> tensor<6x2x4xf32>
// GRU: %[[YH:.*]] = "graph.slice"(%[[R]]) {axes = array<i64: 0>, ends = array<i64: 6>, starts = array<i64: 5>
// GRU: %[[OUT:.*]] = "graph.transpose"(%[[YH]]) {perm = array<i64: 1, 0, 2>} : (tensor<1x2x4xf32>) -> tensor<2x1x4xf32>
// GRU-NEXT: return %[[OUT]]
