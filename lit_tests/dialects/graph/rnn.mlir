// RUN: mlc-opt %s --split-input-file | mlc-opt --split-input-file | FileCheck %s
// Round trip of the recurrent ops (their `floats` attributes are f32 dense arrays).

// CHECK-LABEL: func.func @rnn
// CHECK-NEXT: "graph.rnn_recurrence"(%arg0, %arg1, %arg2) {activation_alpha = array<f32: 0.000000e+00>, activation_beta = array<f32: 0.000000e+00>, activations = ["Tanh"], clip = 0.000000e+00 : f32, reverse = 1 : i64} : (tensor<3x2x8xf32>, tensor<1x8x8xf32>, tensor<2x8xf32>) -> tensor<4x2x8xf32>
func.func @rnn(%xw: tensor<3x2x8xf32>, %rt: tensor<1x8x8xf32>, %h0: tensor<2x8xf32>) {
  %0 = "graph.rnn_recurrence"(%xw, %rt, %h0) {activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, activations = ["Tanh"], clip = 0.0 : f32, reverse = 1 : i64} : (tensor<3x2x8xf32>, tensor<1x8x8xf32>, tensor<2x8xf32>) -> tensor<4x2x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @gru
// CHECK-NEXT: "graph.gru_recurrence"(%arg0, %arg1, %arg2, %arg3, %arg4) {activation_alpha = array<f32: 2.000000e-01, 1.000000e+00>, activation_beta = array<f32: 5.000000e-01, 0.000000e+00>, activations = ["HardSigmoid", "Elu"], clip = 2.500000e+00 : f32, linear_before_reset = 1 : i64, reverse = 0 : i64}
// CHECK-SAME: -> tensor<4x2x4xf32>
func.func @gru(%xw: tensor<3x2x12xf32>, %rt: tensor<3x4x4xf32>, %h0: tensor<2x4xf32>, %rbh: tensor<4xf32>, %lens: tensor<2xi32>) {
  %0 = "graph.gru_recurrence"(%xw, %rt, %h0, %rbh, %lens) {activation_alpha = array<f32: 0.2, 1.0>, activation_beta = array<f32: 0.5, 0.0>, activations = ["HardSigmoid", "Elu"], clip = 2.5 : f32, linear_before_reset = 1 : i64, reverse = 0 : i64} : (tensor<3x2x12xf32>, tensor<3x4x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<2xi32>) -> tensor<4x2x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @lstm
// CHECK-NEXT: "graph.lstm_recurrence"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: input_forget = 1 : i64
// CHECK-SAME: -> tensor<5x1x8xf64>
func.func @lstm(%xw: tensor<3x1x32xf64>, %rt: tensor<4x8x8xf64>, %h0: tensor<1x8xf64>, %c0: tensor<1x8xf64>, %p: tensor<24xf64>) {
  %0 = "graph.lstm_recurrence"(%xw, %rt, %h0, %c0, %p) {activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>, activations = ["Sigmoid", "Tanh", "Tanh"], clip = 0.0 : f32, input_forget = 1 : i64, reverse = 0 : i64} : (tensor<3x1x32xf64>, tensor<4x8x8xf64>, tensor<1x8xf64>, tensor<1x8xf64>, tensor<24xf64>) -> tensor<5x1x8xf64>
  return
}
