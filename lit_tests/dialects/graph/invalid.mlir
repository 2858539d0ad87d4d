// RUN: mlc-opt %s --split-input-file --verify-diagnostics
// Every verifier message of the graph dialect (IRDL structure + mlc shape rules).

func.func @wrong_result_shape(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'graph.relu' op result #0 has type tensor<3xf32> but the operands and attributes give tensor<2xf32>}}
  %0 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @not_broadcastable(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'graph.add' op shapes [2], [3] are not broadcast-compatible}}
  %0 = "graph.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @mixed_dtypes(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.mul' op operand element types differ: f32, i64}}
  %0 = "graph.mul"(%a, %b) : (tensor<2xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @missing_attribute(%a: tensor<2xf32>) {
  // expected-error @+2 {{'graph.softmax' op attribute "axis" is expected but not provided}}
  // expected-note @+1 {{see current operation}}
  %0 = "graph.softmax"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @wrong_attribute_base(%a: tensor<2xf32>) {
  // expected-error @+2 {{expected base attribute 'builtin.integer' but got 'builtin.float'}}
  // expected-note @+1 {{see current operation}}
  %0 = "graph.softmax"(%a) {axis = 1.0 : f32} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @wrong_array_element_type(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'graph.max_pool2d' op attribute 'strides' must be array<i64: ...>, got array<i32: 1, 1>}}
  %0 = "graph.max_pool2d"(%x) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i32: 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

func.func @axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.softmax' op axis 2 is out of range for rank 2}}
  %0 = "graph.softmax"(%a) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @not_a_tensor(%a: memref<2xf32>) {
  // expected-error @+2 {{expected base type 'builtin.tensor' but got 'builtin.memref'}}
  // expected-note @+1 {{see current operation}}
  %0 = "graph.relu"(%a) : (memref<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) {
  // expected-error @+1 {{'graph.relu' op operand #0 must be a ranked tensor whose dynamic dims are named (tensor<?x4xf32, ["n", 4]>), got tensor<?xf32>}}
  %0 = "graph.relu"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'graph.conv2d' op weight expects 4 input channels (4 per group x 1 groups) but the input has 3}}
  %0 = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_bad_strides(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'graph.conv2d' op conv2d: strides must be 2 positive ints}}
  %0 = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 0, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_bad_layout(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'graph.conv2d' op layout 'NHWC' is not NCHW or NCHW<n>c}}
  %0 = "graph.conv2d"(%x, %w) {data_layout = "NHWC", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @matmul_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'graph.matmul' op contracting dims differ: tensor<2x3xf32> x tensor<4x5xf32>}}
  %0 = "graph.matmul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.reshape' op cannot reshape tensor<2x3xf32> (6 elements) to [4, 2]}}
  %0 = "graph.reshape"(%a) {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @transpose_perm(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'graph.transpose' op perm [0, 0] is not a permutation of rank 2}}
  %0 = "graph.transpose"(%a) {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @pool_window(%a: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{'graph.max_pool2d' op window of extent 3 does not fit input 2 + pads}}
  %0 = "graph.max_pool2d"(%a) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{'graph.constant' op value has type tensor<2xf32> but the result is tensor<3xf32>}}
  %0 = "graph.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @constant_bad_value() {
  // expected-error @+1 {{'graph.constant' op value must be #graph.param<"name"> or a dense elements literal, got 3 : i64}}
  %0 = "graph.constant"() {value = 3} : () -> tensor<3xf32>
  return
}

// -----

func.func @where_condition(%c: tensor<2xf32>, %a: tensor<2xf32>) {
  // expected-error @+1 {{'graph.where' op condition must be i1 (bool), got f32}}
  %0 = "graph.where"(%c, %a, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @float_only(%a: tensor<2xi64>) {
  // expected-error @+1 {{'graph.exp' op element type i64 is not a float type}}
  %0 = "graph.exp"(%a) : (tensor<2xi64>) -> tensor<2xi64>
  return
}

// -----

func.func @gather_elements_indices_too_large(%a: tensor<2x3xf32>, %i: tensor<3x3xi64>) {
  // expected-error @+1 {{'graph.gather_elements' op indices tensor<3x3xi64> exceeds the data tensor<2x3xf32> in dim 0}}
  %0 = "graph.gather_elements"(%a, %i) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xi64>) -> tensor<3x3xf32>
  return
}

// -----

func.func @gather_nd_tuple_too_long(%a: tensor<2x3xf32>, %i: tensor<4x3xi64>) {
  // expected-error @+1 {{'graph.gather_nd' op index tuples of 3 entries do not address data tensor<2x3xf32>}}
  %0 = "graph.gather_nd"(%a, %i) {batch_dims = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @scatter_nd_updates_shape(%a: tensor<4x6xf32>, %i: tensor<2x1xi64>, %u: tensor<2x5xf32>) {
  // expected-error @+1 {{'graph.scatter_nd' op updates tensor<2x5xf32> must have shape [2, 6]}}
  %0 = "graph.scatter_nd"(%a, %i, %u) {reduction = "none"} : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2x5xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @scatter_reduction(%a: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'graph.scatter_elements' op reduction 'avg' is not one of none, add, mul, max, min}}
  %0 = "graph.scatter_elements"(%a, %i, %u) {axis = 0 : i64, reduction = "avg"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return
}
