// RUN: mlc-opt %s --split-input-file --verify-diagnostics
// The shape rules of the recurrent ops.

func.func @rt_not_in_panels(%xw: tensor<3x2x8xf32>, %rt: tensor<8x8xf32>, %h0: tensor<2x8xf32>) {
  // expected-error @+1 {{'graph.rnn_recurrence' op rt tensor<8x8xf32> must be R^T in column panels [P, H, w]}}
  %0 = "graph.rnn_recurrence"(%xw, %rt, %h0) {activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, activations = ["Tanh"], clip = 0.0 : f32, reverse = 0 : i64} : (tensor<3x2x8xf32>, tensor<8x8xf32>, tensor<2x8xf32>) -> tensor<4x2x8xf32>
  return
}

// -----

func.func @wrong_result(%xw: tensor<3x2x8xf32>, %rt: tensor<1x8x8xf32>, %h0: tensor<2x8xf32>) {
  // expected-error @+1 {{'graph.rnn_recurrence' op result #0 has type tensor<3x2x8xf32> but the operands and attributes give tensor<4x2x8xf32>}}
  %0 = "graph.rnn_recurrence"(%xw, %rt, %h0) {activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, activations = ["Tanh"], clip = 0.0 : f32, reverse = 0 : i64} : (tensor<3x2x8xf32>, tensor<1x8x8xf32>, tensor<2x8xf32>) -> tensor<3x2x8xf32>
  return
}

// -----

func.func @unknown_activation(%xw: tensor<3x2x8xf32>, %rt: tensor<1x8x8xf32>, %h0: tensor<2x8xf32>) {
  // expected-error @+1 {{'graph.rnn_recurrence' op activation 'Swish' is not one of Relu, Tanh, Sigmoid}}
  %0 = "graph.rnn_recurrence"(%xw, %rt, %h0) {activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, activations = ["Swish"], clip = 0.0 : f32, reverse = 0 : i64} : (tensor<3x2x8xf32>, tensor<1x8x8xf32>, tensor<2x8xf32>) -> tensor<4x2x8xf32>
  return
}

// -----

func.func @alpha_not_floats(%xw: tensor<3x2x8xf32>, %rt: tensor<1x8x8xf32>, %h0: tensor<2x8xf32>) {
  // expected-error @+1 {{'graph.rnn_recurrence' op attribute 'activation_alpha' must be array<f32: ...>, got array<i64: 0>}}
  %0 = "graph.rnn_recurrence"(%xw, %rt, %h0) {activation_alpha = array<i64: 0>, activation_beta = array<f32: 0.0>, activations = ["Tanh"], clip = 0.0 : f32, reverse = 0 : i64} : (tensor<3x2x8xf32>, tensor<1x8x8xf32>, tensor<2x8xf32>) -> tensor<4x2x8xf32>
  return
}

// -----

func.func @lens_shape(%xw: tensor<3x2x8xf32>, %rt: tensor<1x8x8xf32>, %h0: tensor<2x8xf32>, %lens: tensor<3xi32>) {
  // expected-error @+1 {{'graph.rnn_recurrence' op lens tensor<3xi32> must be i32 or i64 of shape [2]}}
  %0 = "graph.rnn_recurrence"(%xw, %rt, %h0, %lens) {activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, activations = ["Tanh"], clip = 0.0 : f32, reverse = 0 : i64} : (tensor<3x2x8xf32>, tensor<1x8x8xf32>, tensor<2x8xf32>, tensor<3xi32>) -> tensor<4x2x8xf32>
  return
}

// -----

func.func @lstm_peepholes(%xw: tensor<3x1x32xf32>, %rt: tensor<4x8x8xf32>, %h0: tensor<1x8xf32>, %c0: tensor<1x8xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'graph.lstm_recurrence' op p tensor<16xf32> must have shape [24]}}
  %0 = "graph.lstm_recurrence"(%xw, %rt, %h0, %c0, %p) {activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>, activations = ["Sigmoid", "Tanh", "Tanh"], clip = 0.0 : f32, input_forget = 0 : i64, reverse = 0 : i64} : (tensor<3x1x32xf32>, tensor<4x8x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<16xf32>) -> tensor<5x1x8xf32>
  return
}
