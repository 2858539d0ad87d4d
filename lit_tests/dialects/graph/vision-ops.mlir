// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// Round trip of the N-D window, sampling and selection ops (ops.mlir has the others).

func.func @windows(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x2x2x2xf32>) {
  %0 = "graph.conv_nd"(%x, %w) {dilations = array<i64: 1, 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x3x3xf32>
  %1 = "graph.max_pool_nd"(%x) {ceil_mode = 1 : i64, dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 3, 3, 3>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  %2 = "graph.avg_pool_nd"(%x) {ceil_mode = 0 : i64, count_include_pad = 1 : i64, dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 2, 2, 2>, pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x3x3x3xf32>
  %4 = "graph.max_pool_indices"(%x) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, storage_order = 1 : i64, strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xi64>
  %3 = "graph.lp_pool_nd"(%x) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 2, 2, 2>, p = 3.000000e+00 : f32, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  return
}
func.func @sampling(%x: tensor<1x2x4x5xf32>, %i: tensor<2x8xi64>, %w: tensor<2x8xf32>, %g: tensor<1x3x3x2xf32>, %r: tensor<2x4xf32>, %b: tensor<2xi64>, %o: tensor<1x8x3x4xf32>) {
  %0 = "graph.resample"(%x, %i, %w) {axis = 3 : i64} : (tensor<1x2x4x5xf32>, tensor<2x8xi64>, tensor<2x8xf32>) -> tensor<1x2x4x8xf32>
  %1 = "graph.grid_sample"(%x, %g) {align_corners = 1 : i64, mode = "cubic", padding_mode = "reflection"} : (tensor<1x2x4x5xf32>, tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
  %3 = "graph.deform_im2col"(%x, %o) {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, offset_group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x5xf32>, tensor<1x8x3x4xf32>) -> tensor<1x2x2x2x3x4xf32>
  %2 = "graph.roi_align"(%x, %r, %b) {grid_h = 3 : i64, grid_w = 2 : i64, half_pixel = 0 : i64, mode = "max", output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 0 : i64, spatial_scale = 5.000000e-01 : f32} : (tensor<1x2x4x5xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x2x2x2xf32>
  return
}
func.func @selection(%x: tensor<3x7xf32>, %i: tensor<3x2xi64>) {
  %0 = "graph.topk"(%x) {axis = -1 : i64, k = 2 : i64, largest = 0 : i64} : (tensor<3x7xf32>) -> tensor<3x2xi64>
  %1 = "graph.take_along_axis"(%x, %i) {axis = 1 : i64} : (tensor<3x7xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return
}
func.func @unpool(%x: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xi64>, %c: tensor<1x8x6xf32>) {
  %0 = "graph.max_unpool"(%x, %i) {kernel_shape = array<i64: 2, 2>, output_shape = array<i64: 5, 4>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x5x4xf32>
  %1 = "graph.col2im"(%c) {block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, image_shape = array<i64: 4, 3>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 1>} : (tensor<1x8x6xf32>) -> tensor<1x2x4x3xf32>
  return
}

// CHECK-LABEL: func.func @windows(
// CHECK-NEXT: "graph.conv_nd"(%{{.*}}, %{{.*}}) {dilations = array<i64: 1, 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x3x3xf32>
// CHECK-NEXT: "graph.max_pool_nd"(%{{.*}}) {ceil_mode = 1 : i64, {{.*}}} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
// CHECK-NEXT: "graph.avg_pool_nd"(%{{.*}}) {ceil_mode = 0 : i64, count_include_pad = 1 : i64, {{.*}}} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x3x3x3xf32>
// CHECK-NEXT: "graph.max_pool_indices"(%{{.*}}) {{{.*}}storage_order = 1 : i64{{.*}}} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xi64>
// CHECK-NEXT: "graph.lp_pool_nd"(%{{.*}}) {{{.*}}p = 3.000000e+00 : f32{{.*}}} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
// CHECK-LABEL: func.func @sampling(
// CHECK-NEXT: "graph.resample"(%{{.*}}, %{{.*}}, %{{.*}}) {axis = 3 : i64} : (tensor<1x2x4x5xf32>, tensor<2x8xi64>, tensor<2x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK-NEXT: "graph.grid_sample"(%{{.*}}, %{{.*}}) {align_corners = 1 : i64, mode = "cubic", padding_mode = "reflection"} : (tensor<1x2x4x5xf32>, tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT: "graph.deform_im2col"(%{{.*}}, %{{.*}}) {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, offset_group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x5xf32>, tensor<1x8x3x4xf32>) -> tensor<1x2x2x2x3x4xf32>
// CHECK-NEXT: "graph.roi_align"(%{{.*}}, %{{.*}}, %{{.*}}) {grid_h = 3 : i64, grid_w = 2 : i64, half_pixel = 0 : i64, mode = "max", {{.*}}} : (tensor<1x2x4x5xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x2x2x2xf32>
// CHECK-LABEL: func.func @selection(
// CHECK-NEXT: "graph.topk"(%{{.*}}) {axis = -1 : i64, k = 2 : i64, largest = 0 : i64} : (tensor<3x7xf32>) -> tensor<3x2xi64>
// CHECK-NEXT: "graph.take_along_axis"(%{{.*}}, %{{.*}}) {axis = 1 : i64} : (tensor<3x7xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
// CHECK-LABEL: func.func @unpool(
// CHECK-NEXT: "graph.max_unpool"(%{{.*}}, %{{.*}}) {kernel_shape = array<i64: 2, 2>, output_shape = array<i64: 5, 4>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x5x4xf32>
// CHECK-NEXT: "graph.col2im"(%{{.*}}) {block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, image_shape = array<i64: 4, 3>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 1>} : (tensor<1x8x6xf32>) -> tensor<1x2x4x3xf32>
