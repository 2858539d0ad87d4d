// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_vision_model.py conv_transpose %t.ct.onnx resize %t.rs.onnx topk %t.tk.onnx rearrange %t.ra.onnx sampling %t.sa.onnx pools3d %t.p3.onnx
// RUN: mlc import %t.ct.onnx -o - | FileCheck %s --check-prefix=CT
// RUN: mlc import %t.rs.onnx -o - | FileCheck %s --check-prefix=RS
// RUN: mlc import %t.tk.onnx -o - | FileCheck %s --check-prefix=TK
// RUN: mlc import %t.ra.onnx -o - | FileCheck %s --check-prefix=RA
// RUN: mlc import %t.sa.onnx -o - | FileCheck %s --check-prefix=SA
// RUN: mlc import %t.p3.onnx -o - | FileCheck %s --check-prefix=ND

// ConvTranspose, kernel 3, stride 2, pads 1: four phases. Even outputs use the centre tap
// (a 1x1 conv), odd ones taps 2 and 0 (a 2-tap conv reading one padded row / column more);
// the weights are transposed to conv form and each phase takes its taps with a gather. The
// phases are stacked, interleaved and cut from 10 x 10 to the 9 x 9 output.
// CT-LABEL: func.func @main
// CT-SAME: (%[[X:.*]]: tensor<1x4x5x5xf32>) -> tensor<1x2x9x9xf32>
// CT-NEXT: %[[B:.*]] = "graph.constant"() {value = #graph.param<"b">}
// CT-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x2x3x3xf32>
// CT-NEXT: %[[WC:.*]] = "graph.transpose"(%[[W]]) {perm = array<i64: 1, 0, 2, 3>} : (tensor<4x2x3x3xf32>) -> tensor<2x4x3x3xf32>
// CT: %[[P0:.*]] = "graph.conv2d"(%[[X]], %{{.*}}, %[[B]])
// CT-SAME: pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>
// CT-SAME: (tensor<1x4x5x5xf32>, tensor<2x4x1x1xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
// CT: %[[TAPS:.*]] = "graph.constant"() {value = #graph.param<"y.taps">} : () -> tensor<2xi64>
// CT-NEXT: %[[WP1:.*]] = "graph.gather"(%{{.*}}, %[[TAPS]]) {axis = 3 : i64}
// CT-NEXT: %[[P1:.*]] = "graph.conv2d"(%[[X]], %[[WP1]], %[[B]])
// CT-SAME: pads = array<i64: 0, 0, 0, 1>
// CT: %[[P2:.*]] = "graph.conv2d"(%[[X]], %{{.*}}, %[[B]])
// CT-SAME: pads = array<i64: 0, 0, 1, 0>
// CT: %[[P3:.*]] = "graph.conv2d"(%[[X]], %{{.*}}, %[[B]])
// CT-SAME: pads = array<i64: 0, 0, 1, 1>
// CT-SAME: (tensor<1x4x5x5xf32>, tensor<2x4x2x2xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
// CT-NEXT: %[[U0:.*]] = "graph.unsqueeze"(%[[P0]]) {axes = array<i64: 0>}
// CT-NEXT: %[[U1:.*]] = "graph.unsqueeze"(%[[P1]]) {axes = array<i64: 0>}
// CT-NEXT: %[[U2:.*]] = "graph.unsqueeze"(%[[P2]]) {axes = array<i64: 0>}
// CT-NEXT: %[[U3:.*]] = "graph.unsqueeze"(%[[P3]]) {axes = array<i64: 0>}
// CT-NEXT: %[[S:.*]] = tensor.concat dim(0) %[[U0]], %[[U1]], %[[U2]], %[[U3]] {{.*}} -> tensor<4x1x2x5x5xf32>
// CT-NEXT: %[[R:.*]] = "graph.reshape"(%[[S]]) {shape = array<i64: 2, 2, 1, 2, 5, 5>}
// CT-NEXT: %[[T:.*]] = "graph.transpose"(%[[R]]) {perm = array<i64: 2, 3, 4, 0, 5, 1>}
// CT-NEXT: %[[I:.*]] = "graph.reshape"(%[[T]]) {shape = array<i64: 1, 2, 10, 10>}
// CT-NEXT: %[[Y:.*]] = "graph.slice"(%[[I]]) {axes = array<i64: 2, 3>, ends = array<i64: 9, 9>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>}
// CT-NEXT: return %[[Y]]

// Resize: nearest 2x by repetition (a broadcast per axis, no copy); linear to height 5 is
// a resample with constant [taps, out] tables; the unchanged width is left alone.
// RS-LABEL: func.func @main
// RS-SAME: (%[[X:.*]]: tensor<1x2x3x4xf32>) -> tensor<1x2x5x8xf32>
// RS-NEXT: %[[A:.*]] = "graph.unsqueeze"(%[[X]]) {axes = array<i64: 3>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x1x4xf32>
// RS-NEXT: %[[B:.*]] = "graph.expand"(%[[A]]) {shape = array<i64: 1, 2, 3, 2, 4>}
// RS-NEXT: %[[H:.*]] = "graph.reshape"(%[[B]]) {shape = array<i64: 1, 2, 6, 4>}
// RS-NEXT: %[[C:.*]] = "graph.unsqueeze"(%[[H]]) {axes = array<i64: 4>}
// RS-NEXT: %[[D:.*]] = "graph.expand"(%[[C]]) {shape = array<i64: 1, 2, 6, 4, 2>}
// RS-NEXT: %[[N:.*]] = "graph.reshape"(%[[D]]) {shape = array<i64: 1, 2, 6, 8>}
// RS-NEXT: %[[I:.*]] = "graph.constant"() {value = #graph.param<"y.indices2">} : () -> tensor<2x5xi64>
// RS-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"y.weights2">} : () -> tensor<2x5xf32>
// RS-NEXT: %[[Y:.*]] = "graph.resample"(%[[N]], %[[I]], %[[W]]) {axis = 2 : i64} : (tensor<1x2x6x8xf32>, tensor<2x5xi64>, tensor<2x5xf32>) -> tensor<1x2x5x8xf32>
// RS-NEXT: return %[[Y]]

// TopK: the indices, then the values taken at them.
// TK-LABEL: func.func @main
// TK-SAME: (%[[X:.*]]: tensor<2x10xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// TK-NEXT: %[[I:.*]] = "graph.topk"(%[[X]]) {axis = 1 : i64, k = 3 : i64, largest = 0 : i64} : (tensor<2x10xf32>) -> tensor<2x3xi64>
// TK-NEXT: %[[V:.*]] = "graph.take_along_axis"(%[[X]], %[[I]]) {axis = 1 : i64} : (tensor<2x10xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
// TK-NEXT: return %[[V]], %[[I]]

// DepthToSpace (CRD), SpaceToDepth (DCR) and CenterCropPad: reshape / transpose / reshape,
// then a slice for the shrinking height and a zero pad for the growing width.
// RA-LABEL: func.func @main
// RA-NEXT: %[[A:.*]] = "graph.reshape"(%arg0) {shape = array<i64: 1, 2, 2, 2, 3, 3>}
// RA-NEXT: %[[B:.*]] = "graph.transpose"(%[[A]]) {perm = array<i64: 0, 1, 4, 2, 5, 3>}
// RA-NEXT: %[[C:.*]] = "graph.reshape"(%[[B]]) {shape = array<i64: 1, 2, 6, 6>}
// RA-NEXT: %[[D:.*]] = "graph.reshape"(%[[C]]) {shape = array<i64: 1, 2, 3, 2, 3, 2>}
// RA-NEXT: %[[E:.*]] = "graph.transpose"(%[[D]]) {perm = array<i64: 0, 3, 5, 1, 2, 4>}
// RA-NEXT: %[[F:.*]] = "graph.reshape"(%[[E]]) {shape = array<i64: 1, 8, 3, 3>}
// RA-NEXT: %[[G:.*]] = "graph.slice"(%[[F]]) {axes = array<i64: 2>, ends = array<i64: 2>, starts = array<i64: 0>, steps = array<i64: 1>}
// RA-NEXT: %[[Y:.*]] = "graph.pad"(%[[G]]) {mode = "constant", pads = array<i64: 0, 0, 0, 1, 0, 0, 0, 1>, value = 0.000000e+00 : f32} : (tensor<1x8x2x3xf32>) -> tensor<1x8x2x5xf32>
// RA-NEXT: return %[[Y]]

// GridSample-16 bicubic is cubic; RoiAlign-16 rois are half-pixel shifted.
// SA-LABEL: func.func @main
// SA-NEXT: %[[G:.*]] = "graph.grid_sample"(%arg0, %arg1) {align_corners = 0 : i64, mode = "cubic", padding_mode = "border"} : (tensor<1x2x6x6xf32>, tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
// SA-NEXT: %[[Y:.*]] = "graph.roi_align"(%[[G]], %arg2, %arg3) {grid_h = 2 : i64, grid_w = 2 : i64, half_pixel = 1 : i64, mode = "max", output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64, spatial_scale = 1.000000e+00 : f32}
// SA-NEXT: return %[[Y]]

// 3-D MaxPool, LpPool and Conv: the N-D window ops.
// ND-LABEL: func.func @main
// ND-NEXT: %[[M:.*]] = "graph.max_pool_nd"(%arg0) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 2, 2, 2>} : (tensor<1x2x6x6x6xf32>) -> tensor<1x2x3x3x3xf32>
// ND-NEXT: %[[L:.*]] = "graph.lp_pool_nd"(%[[M]]) {{{.*}}kernel_shape = array<i64: 2, 1, 2>, p = 3.000000e+00 : f32
// ND-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x2x3x1x3xf32>
// ND-NEXT: %[[Y:.*]] = "graph.conv_nd"(%[[L]], %[[W]]) {dilations = array<i64: 1, 1, 1>, group = 1 : i64, pads = array<i64: 1, 0, 1, 1, 0, 1>, strides = array<i64: 1, 1, 1>} : (tensor<1x2x2x3x2xf32>, tensor<4x2x3x1x3xf32>) -> tensor<1x4x2x3x2xf32>
// ND-NEXT: return %[[Y]]
