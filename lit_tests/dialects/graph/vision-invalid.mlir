// RUN: mlc-opt %s --split-input-file --verify-diagnostics
// The shape-rule messages of the N-D window, sampling and selection ops.

func.func @conv_nd_group(%x: tensor<1x3x4x4x4xf32>, %w: tensor<4x1x1x1x1xf32>) {
  // expected-error @+1 {{'graph.conv_nd' op group 2 must divide input channels 3 and output channels 4}}
  %0 = "graph.conv_nd"(%x, %w) {dilations = array<i64: 1, 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x3x4x4x4xf32>, tensor<4x1x1x1x1xf32>) -> tensor<1x4x4x4x4xf32>
  return
}

// -----

func.func @pool_nd_kernel(%x: tensor<1x1x4x4x4xf32>) {
  // expected-error @+1 {{'graph.max_pool_nd' op kernel_shape must be 3 positive ints}}
  %0 = "graph.max_pool_nd"(%x) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x3x3x3xf32>
  return
}

// -----

func.func @resample_weights(%x: tensor<2x5xf16>, %i: tensor<2x4xi64>, %w: tensor<2x4xf16>) {
  // expected-error @+1 {{'graph.resample' op weights of a f16 input must be f32, got f16}}
  %0 = "graph.resample"(%x, %i, %w) {axis = 1 : i64} : (tensor<2x5xf16>, tensor<2x4xi64>, tensor<2x4xf16>) -> tensor<2x4xf16>
  return
}

// -----

func.func @topk_k(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'graph.topk' op k = 6 must lie in [0, 5]}}
  %0 = "graph.topk"(%x) {axis = 1 : i64, k = 6 : i64, largest = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x6xi64>
  return
}

// -----

func.func @grid_sample_cubic_3d(%x: tensor<1x1x2x3x4xf32>, %g: tensor<1x2x2x2x3xf32>) {
  // expected-error @+1 {{'graph.grid_sample' op cubic sampling is defined for 2 spatial dims}}
  %0 = "graph.grid_sample"(%x, %g) {align_corners = 0 : i64, mode = "cubic", padding_mode = "zeros"} : (tensor<1x1x2x3x4xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x1x2x2x2xf32>
  return
}

// -----

func.func @roi_align_rois(%x: tensor<1x2x4x4xf32>, %r: tensor<3x5xf32>, %b: tensor<3xi64>) {
  // expected-error @+1 {{'graph.roi_align' op rois tensor<3x5xf32> must be [num_rois, 4] of the input's type}}
  %0 = "graph.roi_align"(%x, %r, %b) {grid_h = 2 : i64, grid_w = 2 : i64, half_pixel = 1 : i64, mode = "avg", output_height = 1 : i64, output_width = 1 : i64, sampling_ratio = 2 : i64, spatial_scale = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<3x5xf32>, tensor<3xi64>) -> tensor<3x2x1x1xf32>
  return
}

// -----

func.func @max_unpool_small_output(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  // expected-error @+1 {{'graph.max_unpool' op output_shape [3, 4] must hold the unpooled sizes [4, 4]}}
  %0 = "graph.max_unpool"(%x, %i) {kernel_shape = array<i64: 2, 2>, output_shape = array<i64: 3, 4>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x3x4xf32>
  return
}

// -----

func.func @col2im_blocks(%x: tensor<1x8x5xf32>) {
  // expected-error @+1 {{'graph.col2im' op 5 blocks do not match the [3, 2] sliding blocks of the image}}
  %0 = "graph.col2im"(%x) {block_shape = array<i64: 2, 2>, dilations = array<i64: 1, 1>, image_shape = array<i64: 4, 3>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 1>} : (tensor<1x8x5xf32>) -> tensor<1x2x4x3xf32>
  return
}
