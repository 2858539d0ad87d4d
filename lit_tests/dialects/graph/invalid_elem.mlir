// RUN: mlc-opt %s --split-input-file --verify-diagnostics
// Every shape-rule message of the ops added with the ONNX elementwise family.

func.func @bitwise_on_floats(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.bitwise_and' op element type f32 is not an integer type}}
  %0 = "graph.bitwise_and"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @bitwise_not_on_bools(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{'graph.bitwise_not' op element type i1 is not an integer type}}
  %0 = "graph.bitwise_not"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @shift_direction(%a: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error @+1 {{'graph.bit_shift' op direction 'UP' is not LEFT or RIGHT}}
  %0 = "graph.bit_shift"(%a, %a) {direction = "UP"} : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

func.func @bitcast_width(%a: tensor<2xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'graph.bitcast' op f32 (32 bits) and i64 (64 bits) differ in width}}
  %0 = "graph.bitcast"(%a) {to = "i64"} : (tensor<2xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @bitcast_type(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.bitcast' op cannot reinterpret f32 as complex}}
  %0 = "graph.bitcast"(%a) {to = "complex"} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @is_nan_of_integers(%a: tensor<2xi32>) -> tensor<2xi1> {
  // expected-error @+1 {{'graph.is_nan' op element type i32 is not a float type}}
  %0 = "graph.is_nan"(%a) : (tensor<2xi32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @trilu_of_a_vector(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.trilu' op input tensor<4xf32> must have rank >= 2}}
  %0 = "graph.trilu"(%a) {k = 0 : i64, upper = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @scan_of_bools(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'graph.cumsum' op a scan of bools (i1) is not defined}}
  %0 = "graph.cumsum"(%a) {axis = 0 : i64, exclusive = 0 : i64, reverse = 0 : i64} : (tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @scan_axis(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.cumprod' op axis 1 is out of range for rank 1}}
  %0 = "graph.cumprod"(%a) {axis = 1 : i64, exclusive = 0 : i64, reverse = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @rms_scale(%a: tensor<2x4xf32>, %s: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.rms_norm' op scale tensor<2x4xf32> must broadcast to [4]}}
  %0 = "graph.rms_norm"(%a, %s) {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @group_count(%a: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.group_norm' op num_groups 3 must be positive and divide the 4 channels}}
  %0 = "graph.group_norm"(%a, %s, %s) {num_groups = 3 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @group_params(%a: tensor<2x4xf32>, %s: tensor<2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.group_norm' op scale/bias tensor<2xf32> must be [4]}}
  %0 = "graph.group_norm"(%a, %s, %s) {num_groups = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @group_rank(%a: tensor<4xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.group_norm' op input tensor<4xf32> must have rank >= 2 (N, C, ...)}}
  %0 = "graph.group_norm"(%a, %s, %s) {num_groups = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mvn_axes(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.mean_variance_norm' op axes must be distinct and not empty}}
  %0 = "graph.mean_variance_norm"(%a) {axes = array<i64: 1, -1>, epsilon = 1.0e-9 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @lp_p(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.lp_norm' op p must be 1 or 2, got 3}}
  %0 = "graph.lp_norm"(%a) {axis = 1 : i64, p = 3 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @norm_of_integers(%a: tensor<2x4xi32>) -> tensor<2x4xi32> {
  // expected-error @+1 {{'graph.lp_norm' op element type i32 is not a float type}}
  %0 = "graph.lp_norm"(%a) {axis = 1 : i64, p = 2 : i64} : (tensor<2x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}
