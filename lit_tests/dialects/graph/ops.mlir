// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// Round trip of every graph op (print -> parse -> print).

func.func @constant() {
  %0 = "graph.constant"() {value = #graph.param<"w0">} : () -> tensor<4xf32>
  %1 = "graph.constant"() {value = dense<1.500000e+00> : tensor<2xf32>} : () -> tensor<2xf32>
  return
}
func.func @conv2d(%arg0: tensor<1x4x8x8xf32>, %arg1: tensor<8x4x3x3xf32>, %arg2: tensor<8xf32>) {
  %0 = "graph.conv2d"(%arg0, %arg1, %arg2) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return
}
func.func @conv2d_depthwise(%arg0: tensor<1x4x8x8xf32>, %arg1: tensor<4x1x3x3xf32>) {
  %0 = "graph.conv2d"(%arg0, %arg1) {data_layout = "NCHW", dilations = array<i64: 2, 2>, group = 4 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}
func.func @conv2d_nchwc(%arg0: tensor<1x1x8x8x8xf32>, %arg1: tensor<2x1x1x1x8x8xf32>) {
  %0 = "graph.conv2d"(%arg0, %arg1) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x8x8x8xf32>, tensor<2x1x1x1x8x8xf32>) -> tensor<1x2x8x8x8xf32>
  return
}
func.func @matmul(%arg0: tensor<2x3x4xf32>, %arg1: tensor<4x5xf32>) {
  %0 = "graph.matmul"(%arg0, %arg1) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return
}
func.func @batch_matmul(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x4x5xf32>) {
  %0 = "graph.batch_matmul"(%arg0, %arg1) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return
}
func.func @dense(%arg0: tensor<3x4xf32>, %arg1: tensor<5x4xf32>, %arg2: tensor<5xf32>) {
  %0 = "graph.dense"(%arg0, %arg1, %arg2) {alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64} : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return
}
func.func @batch_norm(%arg0: tensor<1x4x8x8xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<4xf32>) {
  %0 = "graph.batch_norm"(%arg0, %arg1, %arg2, %arg3, %arg4) {epsilon = 1.000000e-03 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return
}
func.func @max_pool2d(%arg0: tensor<1x4x8x8xf32>) {
  %0 = "graph.max_pool2d"(%arg0) {ceil_mode = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  return
}
func.func @avg_pool2d(%arg0: tensor<1x4x8x8xf32>) {
  %0 = "graph.avg_pool2d"(%arg0) {ceil_mode = 0 : i64, count_include_pad = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}
func.func @global_pools(%arg0: tensor<1x4x8x8xf32>) {
  %0 = "graph.global_avg_pool2d"(%arg0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %1 = "graph.global_max_pool2d"(%arg0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return
}
func.func @lrn(%arg0: tensor<1x4x8x8xf32>) {
  %0 = "graph.lrn"(%arg0) {alpha = 9.99999974E-5 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32, size = 5 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return
}
func.func @softmax(%arg0: tensor<2x10xf32>) {
  %0 = "graph.softmax"(%arg0) {axis = 1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  %1 = "graph.log_softmax"(%arg0) {axis = -1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}
func.func @layer_norm(%arg0: tensor<2x5x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>) {
  %0 = "graph.layer_norm"(%arg0, %arg1, %arg2) {axis = -1 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  return
}
func.func @unary(%arg0: tensor<2x3xf32>) {
  %0 = "graph.relu"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "graph.neg"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.abs"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "graph.sign"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "graph.sigmoid"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "graph.tanh"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "graph.erf"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = "graph.exp"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = "graph.log"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = "graph.sqrt"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = "graph.reciprocal"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = "graph.floor"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = "graph.ceil"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = "graph.round"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = "graph.sin"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %15 = "graph.cos"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %16 = "graph.softplus"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %17 = "graph.softsign"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %18 = "graph.leaky_relu"(%arg0) {alpha = 0.00999999977 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %19 = "graph.elu"(%arg0) {alpha = 1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %20 = "graph.selu"(%arg0) {alpha = 1.67326319 : f32, gamma = 1.05070102 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %21 = "graph.hard_sigmoid"(%arg0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %22 = "graph.hard_swish"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %23 = "graph.gelu"(%arg0) {approximate = "none"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
func.func @unary_attrs(%arg0: tensor<2x3xf32>) {
  %0 = "graph.clip"(%arg0) {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "graph.leaky_relu"(%arg0) {alpha = 1.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.elu"(%arg0) {alpha = 1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "graph.selu"(%arg0) {alpha = 1.67326319 : f32, gamma = 1.05070102 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "graph.hard_sigmoid"(%arg0) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "graph.hard_swish"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "graph.gelu"(%arg0) {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
func.func @binary(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) {
  %0 = "graph.add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "graph.sub"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = "graph.mul"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = "graph.div"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = "graph.pow"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = "graph.max"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = "graph.min"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = "graph.mod"(%arg0, %arg1) {fmod = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = "graph.prelu"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}
func.func @compare(%arg0: tensor<2x3xf32>, %arg1: tensor<2x1xf32>) {
  %0 = "graph.equal"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
  %1 = "graph.less"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
  %2 = "graph.less_equal"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
  %3 = "graph.greater"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
  %4 = "graph.greater_equal"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
  return
}
func.func @logical(%arg0: tensor<2x3xi1>, %arg1: tensor<2x3xi1>) {
  %0 = "graph.and"(%arg0, %arg1) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %1 = "graph.or"(%arg0, %arg1) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %2 = "graph.xor"(%arg0, %arg1) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %3 = "graph.not"(%arg0) : (tensor<2x3xi1>) -> tensor<2x3xi1>
  return
}
func.func @where(%arg0: tensor<2x3xi1>, %arg1: tensor<2x3xf32>, %arg2: tensor<3xf32>) {
  %0 = "graph.where"(%arg0, %arg1, %arg2) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}
func.func @cast(%arg0: tensor<2x3xf32>) {
  %0 = "graph.cast"(%arg0) {to = "i64"} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %1 = "graph.cast"(%arg0) {to = "f16"} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}
func.func @reductions(%arg0: tensor<2x3x4xf32>) {
  %0 = "graph.reduce_sum"(%arg0) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = "graph.reduce_mean"(%arg0) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %2 = "graph.reduce_max"(%arg0) {axes = array<i64: 1>, keepdims = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %3 = "graph.reduce_min"(%arg0) {axes = array<i64: 1>, keepdims = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %4 = "graph.reduce_prod"(%arg0) {axes = array<i64: 1>, keepdims = 4 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %5 = "graph.reduce_l2"(%arg0) {axes = array<i64: 1>, keepdims = 5 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %6 = "graph.reduce_sum_square"(%arg0) {axes = array<i64: 1>, keepdims = 6 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %7 = "graph.argmax"(%arg0) {axis = 2 : i64, keepdims = 1 : i64, select_last_index = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
  %8 = "graph.argmin"(%arg0) {axis = 0 : i64, keepdims = 0 : i64, select_last_index = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<3x4xi64>
  return
}
func.func @reshape(%arg0: tensor<2x3x4xf32>) {
  %0 = "graph.reshape"(%arg0) {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = "graph.flatten"(%arg0) {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %2 = "graph.unsqueeze"(%arg0) {axes = array<i64: 0, 3>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x1x4xf32>
  %3 = "graph.squeeze"(%2) {axes = array<i64: 0>} : (tensor<1x2x3x1x4xf32>) -> tensor<2x3x1x4xf32>
  return
}
func.func @transpose(%arg0: tensor<2x3x4xf32>) {
  %0 = "graph.transpose"(%arg0) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return
}
func.func @slice(%arg0: tensor<2x10xf32>) {
  %0 = "graph.slice"(%arg0) {axes = array<i64: 0, 1>, ends = array<i64: 2, 0>, starts = array<i64: 1, 8>, steps = array<i64: 1, -2>} : (tensor<2x10xf32>) -> tensor<1x4xf32>
  return
}
func.func @gather(%arg0: tensor<5x4xf32>, %arg1: tensor<2x3xi64>) {
  %0 = "graph.gather"(%arg0, %arg1) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return
}
func.func @pad(%arg0: tensor<2x3xf32>) {
  %0 = "graph.pad"(%arg0) {mode = "constant", pads = array<i64: 0, 1, 1, 2>, value = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<3x6xf32>
  %1 = "graph.pad"(%arg0) {mode = "reflect", pads = array<i64: 1, 1, 1, 1>, value = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  return
}
func.func @expand_tile(%arg0: tensor<3x1xf32>) {
  %0 = "graph.expand"(%arg0) {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = "graph.tile"(%arg0) {repeats = array<i64: 2, 3>} : (tensor<3x1xf32>) -> tensor<6x3xf32>
  return
}
func.func @layout_transform(%arg0: tensor<1x4x8x8xf32>) {
  %0 = "graph.layout_transform"(%arg0) {dst_layout = "NCHW4c", src_layout = "NCHW"} : (tensor<1x4x8x8xf32>) -> tensor<1x1x8x8x4xf32>
  %1 = "graph.layout_transform"(%0) {dst_layout = "NCHW", src_layout = "NCHW4c"} : (tensor<1x1x8x8x4xf32>) -> tensor<1x4x8x8xf32>
  return
}

// CHECK-LABEL: func.func @constant(
// CHECK-NEXT: %{{.*}} = "graph.constant"() {value = #graph.param<"w0">} : () -> tensor<4xf32>
// CHECK-NEXT: %{{.*}} = "graph.constant"() {value = dense<1.500000e+00> : tensor<2xf32>} : () -> tensor<2xf32>
// CHECK-LABEL: func.func @conv2d(
// CHECK-NEXT: %{{.*}} = "graph.conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-LABEL: func.func @conv2d_depthwise(
// CHECK-NEXT: %{{.*}} = "graph.conv2d"(%{{.*}}, %{{.*}}) {data_layout = "NCHW", dilations = array<i64: 2, 2>, group = 4 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK-LABEL: func.func @conv2d_nchwc(
// CHECK-NEXT: %{{.*}} = "graph.conv2d"(%{{.*}}, %{{.*}}) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW8i8o", out_layout = "NCHW8c", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x8x8x8xf32>, tensor<2x1x1x1x8x8xf32>) -> tensor<1x2x8x8x8xf32>
// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT: %{{.*}} = "graph.matmul"(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-LABEL: func.func @batch_matmul(
// CHECK-NEXT: %{{.*}} = "graph.batch_matmul"(%{{.*}}, %{{.*}}) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-LABEL: func.func @dense(
// CHECK-NEXT: %{{.*}} = "graph.dense"(%{{.*}}, %{{.*}}, %{{.*}}) {alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64} : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK-LABEL: func.func @batch_norm(
// CHECK-NEXT: %{{.*}} = "graph.batch_norm"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {epsilon = 1.000000e-03 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-LABEL: func.func @max_pool2d(
// CHECK-NEXT: %{{.*}} = "graph.max_pool2d"(%{{.*}}) {ceil_mode = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
// CHECK-LABEL: func.func @avg_pool2d(
// CHECK-NEXT: %{{.*}} = "graph.avg_pool2d"(%{{.*}}) {ceil_mode = 0 : i64, count_include_pad = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK-LABEL: func.func @global_pools(
// CHECK-NEXT: %{{.*}} = "graph.global_avg_pool2d"(%{{.*}}) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT: %{{.*}} = "graph.global_max_pool2d"(%{{.*}}) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
// CHECK-LABEL: func.func @lrn(
// CHECK-NEXT: %{{.*}} = "graph.lrn"(%{{.*}}) {alpha = 9.99999974E-5 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32, size = 5 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT: %{{.*}} = "graph.softmax"(%{{.*}}) {axis = 1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT: %{{.*}} = "graph.log_softmax"(%{{.*}}) {axis = -1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
// CHECK-LABEL: func.func @layer_norm(
// CHECK-NEXT: %{{.*}} = "graph.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) {axis = -1 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
// CHECK-LABEL: func.func @unary(
// CHECK-NEXT: %{{.*}} = "graph.relu"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.neg"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.abs"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.sign"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.sigmoid"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.tanh"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.erf"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.exp"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.log"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.sqrt"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.reciprocal"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.floor"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.ceil"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.round"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.sin"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.cos"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.softplus"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.softsign"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.leaky_relu"(%{{.*}}) {alpha = 0.00999999977 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.elu"(%{{.*}}) {alpha = 1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.selu"(%{{.*}}) {alpha = 1.67326319 : f32, gamma = 1.05070102 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.hard_sigmoid"(%{{.*}}) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.hard_swish"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.gelu"(%{{.*}}) {approximate = "none"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-LABEL: func.func @unary_attrs(
// CHECK-NEXT: %{{.*}} = "graph.clip"(%{{.*}}) {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.leaky_relu"(%{{.*}}) {alpha = 1.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.elu"(%{{.*}}) {alpha = 1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.selu"(%{{.*}}) {alpha = 1.67326319 : f32, gamma = 1.05070102 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.hard_sigmoid"(%{{.*}}) {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.hard_swish"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.gelu"(%{{.*}}) {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-LABEL: func.func @binary(
// CHECK-NEXT: %{{.*}} = "graph.add"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.sub"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.mul"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.div"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.pow"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.max"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.min"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.mod"(%{{.*}}, %{{.*}}) {fmod = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = "graph.prelu"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-LABEL: func.func @compare(
// CHECK-NEXT: %{{.*}} = "graph.equal"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.less"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.less_equal"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.greater"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.greater_equal"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
// CHECK-LABEL: func.func @logical(
// CHECK-NEXT: %{{.*}} = "graph.and"(%{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.or"(%{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.xor"(%{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %{{.*}} = "graph.not"(%{{.*}}) : (tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-LABEL: func.func @where(
// CHECK-NEXT: %{{.*}} = "graph.where"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-LABEL: func.func @cast(
// CHECK-NEXT: %{{.*}} = "graph.cast"(%{{.*}}) {to = "i64"} : (tensor<2x3xf32>) -> tensor<2x3xi64>
// CHECK-NEXT: %{{.*}} = "graph.cast"(%{{.*}}) {to = "f16"} : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK-LABEL: func.func @reductions(
// CHECK-NEXT: %{{.*}} = "graph.reduce_sum"(%{{.*}}) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.reduce_mean"(%{{.*}}) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.reduce_max"(%{{.*}}) {axes = array<i64: 1>, keepdims = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.reduce_min"(%{{.*}}) {axes = array<i64: 1>, keepdims = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.reduce_prod"(%{{.*}}) {axes = array<i64: 1>, keepdims = 4 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.reduce_l2"(%{{.*}}) {axes = array<i64: 1>, keepdims = 5 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.reduce_sum_square"(%{{.*}}) {axes = array<i64: 1>, keepdims = 6 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.argmax"(%{{.*}}) {axis = 2 : i64, keepdims = 1 : i64, select_last_index = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
// CHECK-NEXT: %{{.*}} = "graph.argmin"(%{{.*}}) {axis = 0 : i64, keepdims = 0 : i64, select_last_index = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<3x4xi64>
// CHECK-LABEL: func.func @reshape(
// CHECK-NEXT: %{{.*}} = "graph.reshape"(%{{.*}}) {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.flatten"(%{{.*}}) {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.unsqueeze"(%{{.*}}) {axes = array<i64: 0, 3>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x1x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.squeeze"(%{{.*}}) {axes = array<i64: 0>} : (tensor<1x2x3x1x4xf32>) -> tensor<2x3x1x4xf32>
// CHECK-LABEL: func.func @transpose(
// CHECK-NEXT: %{{.*}} = "graph.transpose"(%{{.*}}) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-LABEL: func.func @slice(
// CHECK-NEXT: %{{.*}} = "graph.slice"(%{{.*}}) {axes = array<i64: 0, 1>, ends = array<i64: 2, 0>, starts = array<i64: 1, 8>, steps = array<i64: 1, -2>} : (tensor<2x10xf32>) -> tensor<1x4xf32>
// CHECK-LABEL: func.func @gather(
// CHECK-NEXT: %{{.*}} = "graph.gather"(%{{.*}}, %{{.*}}) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK-LABEL: func.func @pad(
// CHECK-NEXT: %{{.*}} = "graph.pad"(%{{.*}}) {mode = "constant", pads = array<i64: 0, 1, 1, 2>, value = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: %{{.*}} = "graph.pad"(%{{.*}}) {mode = "reflect", pads = array<i64: 1, 1, 1, 1>, value = 0.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<4x5xf32>
// CHECK-LABEL: func.func @expand_tile(
// CHECK-NEXT: %{{.*}} = "graph.expand"(%{{.*}}) {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.tile"(%{{.*}}) {repeats = array<i64: 2, 3>} : (tensor<3x1xf32>) -> tensor<6x3xf32>
// CHECK-LABEL: func.func @layout_transform(
// CHECK-NEXT: %{{.*}} = "graph.layout_transform"(%{{.*}}) {dst_layout = "NCHW4c", src_layout = "NCHW"} : (tensor<1x4x8x8xf32>) -> tensor<1x1x8x8x4xf32>
// CHECK-NEXT: %{{.*}} = "graph.layout_transform"(%{{.*}}) {dst_layout = "NCHW", src_layout = "NCHW4c"} : (tensor<1x1x8x8x4xf32>) -> tensor<1x4x8x8xf32>

func.func @indexing(%arg0: tensor<4x6xf32>, %arg1: tensor<3x6xi64>, %arg2: tensor<2x1xi64>, %arg3: tensor<2x6xf32>) {
  %0 = "graph.gather_elements"(%arg0, %arg1) {axis = 0 : i64} : (tensor<4x6xf32>, tensor<3x6xi64>) -> tensor<3x6xf32>
  %1 = "graph.gather_nd"(%arg0, %arg2) {batch_dims = 0 : i64} : (tensor<4x6xf32>, tensor<2x1xi64>) -> tensor<2x6xf32>
  %2 = "graph.scatter_elements"(%arg0, %arg1, %0) {axis = 0 : i64, reduction = "max"} : (tensor<4x6xf32>, tensor<3x6xi64>, tensor<3x6xf32>) -> tensor<4x6xf32>
  %3 = "graph.scatter_nd"(%arg0, %arg2, %arg3) {reduction = "none"} : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2x6xf32>) -> tensor<4x6xf32>
  return
}
// CHECK-LABEL: func.func @indexing(
// CHECK-NEXT: %[[G:.*]] = "graph.gather_elements"(%{{.*}}, %{{.*}}) {axis = 0 : i64} : (tensor<4x6xf32>, tensor<3x6xi64>) -> tensor<3x6xf32>
// CHECK-NEXT: %{{.*}} = "graph.gather_nd"(%{{.*}}, %{{.*}}) {batch_dims = 0 : i64} : (tensor<4x6xf32>, tensor<2x1xi64>) -> tensor<2x6xf32>
// CHECK-NEXT: %{{.*}} = "graph.scatter_elements"(%{{.*}}, %{{.*}}, %[[G]]) {axis = 0 : i64, reduction = "max"} : (tensor<4x6xf32>, tensor<3x6xi64>, tensor<3x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %{{.*}} = "graph.scatter_nd"(%{{.*}}, %{{.*}}, %{{.*}}) {reduction = "none"} : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2x6xf32>) -> tensor<4x6xf32>
