// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse-qdq)' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse-qdq,graph-fold-constants)' | FileCheck %s --check-prefix=FOLD

// A per-channel QDQ conv with bias becomes conv2d_integer on the raw uint8 input, padded with
// its zero point (3), plus the bias minus zx * sum(w) per channel, requantized with
// x_scale * w_scale / y_scale; the float conv and the dequantize ops are gone.
// CHECK-LABEL: func.func @conv_per_channel
// CHECK: %[[ACC:.*]] = "graph.conv2d_integer"(%arg0, %[[W:.*]]) {{.*}}pad_value = 3 : i64
// CHECK-NEXT: %[[WI:.*]] = "graph.cast"(%[[W]]) {to = "i32"}
// CHECK-NEXT: %[[SUMS:.*]] = "graph.reduce_sum"(%[[WI]]) {axes = array<i64: 1, 2, 3>, keepdims = 0 : i64}
// CHECK-NEXT: %[[ZX:.*]] = "graph.cast"(%{{.*}}) {to = "i32"}
// CHECK-NEXT: %[[CORR:.*]] = "graph.mul"(%[[ZX]], %[[SUMS]])
// CHECK-NEXT: %[[OFFSET:.*]] = "graph.sub"(%{{.*}}, %[[CORR]])
// CHECK-NEXT: %[[OFFSET3:.*]] = "graph.reshape"(%[[OFFSET]]) {shape = array<i64: 2, 1, 1>}
// CHECK-NEXT: %[[BIASED:.*]] = "graph.add"(%[[ACC]], %[[OFFSET3]])
// CHECK-NEXT: %[[SW:.*]] = "graph.reshape"(%{{.*}}) {shape = array<i64: 2, 1, 1>}
// CHECK-NEXT: %[[SXW:.*]] = "graph.mul"(%{{.*}}, %[[SW]])
// CHECK-NEXT: %[[M:.*]] = "graph.div"(%[[SXW]], %{{.*}})
// CHECK-NEXT: %[[Q:.*]] = "graph.requantize"(%[[BIASED]], %[[M]], %{{.*}})
// CHECK-NEXT: return %[[Q]]
// FOLD-LABEL: func.func @conv_per_channel
// FOLD-NEXT: %[[W:.*]] = "graph.constant"() {value = dense<{{\[\[\[\[}}1]], {{\[\[}}-2]]], {{\[\[\[}}3]], {{\[\[}}4]]]]> : tensor<2x2x1x1xi8>}
// FOLD-NEXT: %[[ZY:.*]] = "graph.constant"() {value = dense<10> : tensor<ui8>}
// FOLD-NEXT: %[[ACC:.*]] = "graph.conv2d_integer"(%arg0, %[[W]])
// FOLD-NEXT: %[[OFFSET:.*]] = "graph.constant"() {value = dense<{{\[\[\[}}10]], {{\[\[}}-30]]]> : tensor<2x1x1xi32>}
// FOLD-NEXT: %[[BIASED:.*]] = "graph.add"(%[[ACC]], %[[OFFSET]])
// FOLD-NEXT: %[[M:.*]] = "graph.constant"() {value = dense<{{\[\[\[}}6.250000e-01]], {{\[\[}}3.125000e-01]]]> : tensor<2x1x1xf32>}
// FOLD-NEXT: %[[Q:.*]] = "graph.requantize"(%[[BIASED]], %[[M]], %[[ZY]])
// FOLD-NEXT: return %[[Q]]
func.func @conv_per_channel(%xq: tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xui8> {
  %sx = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zx = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %wq = "graph.constant"() {value = dense<[[[[1]], [[-2]]], [[[3]], [[4]]]]> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1xi8>
  %sw = "graph.constant"() {value = dense<[[[[2.500000e-01]]], [[[1.250000e-01]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %zw = "graph.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %bq = "graph.constant"() {value = dense<[7, -9]> : tensor<2xi32>} : () -> tensor<2xi32>
  %sb = "graph.constant"() {value = dense<[1.250000e-01, 6.250000e-02]> : tensor<2xf32>} : () -> tensor<2xf32>
  %zb = "graph.constant"() {value = dense<0> : tensor<2xi32>} : () -> tensor<2xi32>
  %sy = "graph.constant"() {value = dense<2.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zy = "graph.constant"() {value = dense<10> : tensor<ui8>} : () -> tensor<ui8>
  %x = "graph.dequantize_linear"(%xq, %sx, %zx) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %w = "graph.dequantize_linear"(%wq, %sw, %zw) : (tensor<2x2x1x1xi8>, tensor<2x1x1x1xf32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %b = "graph.dequantize_linear"(%bq, %sb, %zb) : (tensor<2xi32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  %y = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %q = "graph.quantize_linear"(%y, %sy, %zy) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  return %q : tensor<1x2x4x4xui8>
}

// A matmul with per-column int8 weight zero points (subtracted from the constant weights in
// i16) and a relu: max(requantized, y_zero_point). A zero input zero point needs no correction.
// CHECK-LABEL: func.func @matmul_relu
// CHECK: %[[W16:.*]] = "graph.cast"(%{{.*}}) {to = "i16"} : (tensor<4x2xi8>) -> tensor<4x2xi16>
// CHECK-NEXT: %[[ZW16:.*]] = "graph.cast"(%{{.*}}) {to = "i16"} : (tensor<2xi8>) -> tensor<2xi16>
// CHECK-NEXT: %[[W:.*]] = "graph.sub"(%[[W16]], %[[ZW16]])
// CHECK-NEXT: %[[ACC:.*]] = "graph.matmul_integer"(%arg0, %[[W]]) {rhs_layout = "KN"} : (tensor<3x4xi8>, tensor<4x2xi16>) -> tensor<3x2xi32>
// CHECK-NEXT: %[[SXW:.*]] = "graph.mul"
// CHECK-NEXT: %[[M:.*]] = "graph.div"(%[[SXW]], %{{.*}})
// CHECK-NEXT: %[[Q:.*]] = "graph.requantize"(%[[ACC]], %[[M]], %[[ZY:.*]]) : (tensor<3x2xi32>, tensor<2xf32>, tensor<i8>) -> tensor<3x2xi8>
// CHECK-NEXT: %[[R:.*]] = "graph.max"(%[[Q]], %[[ZY]])
// CHECK-NEXT: return %[[R]]
func.func @matmul_relu(%xq: tensor<3x4xi8>) -> tensor<3x2xi8> {
  %sx = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zx = "graph.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %wq = "graph.constant"() {value = dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8>} : () -> tensor<4x2xi8>
  %sw = "graph.constant"() {value = dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>} : () -> tensor<2xf32>
  %zw = "graph.constant"() {value = dense<[1, -1]> : tensor<2xi8>} : () -> tensor<2xi8>
  %sy = "graph.constant"() {value = dense<2.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zy = "graph.constant"() {value = dense<-5> : tensor<i8>} : () -> tensor<i8>
  %x = "graph.dequantize_linear"(%xq, %sx, %zx) : (tensor<3x4xi8>, tensor<f32>, tensor<i8>) -> tensor<3x4xf32>
  %w = "graph.dequantize_linear"(%wq, %sw, %zw) : (tensor<4x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<4x2xf32>
  %y = "graph.matmul"(%x, %w) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %r = "graph.relu"(%y) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %q = "graph.quantize_linear"(%r, %sy, %zy) : (tensor<3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<3x2xi8>
  return %q : tensor<3x2xi8>
}

// Gemm with transB (per-row weight scales [N, 1]): the weights are transposed once (a constant
// op graph-fold-constants evaluates) and the scales reshaped to one per column.
// CHECK-LABEL: func.func @dense_trans_b
// CHECK: %[[WT:.*]] = "graph.transpose"(%{{.*}}) {perm = array<i64: 1, 0>} : (tensor<2x4xi8>) -> tensor<4x2xi8>
// CHECK-NEXT: %[[ACC:.*]] = "graph.matmul_integer"(%arg0, %[[WT]]) {rhs_layout = "KN"} : (tensor<3x4xui8>, tensor<4x2xi8>) -> tensor<3x2xi32>
// CHECK-NEXT: %[[SW:.*]] = "graph.reshape"(%{{.*}}) {shape = array<i64: 2>} : (tensor<2x1xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[SXW:.*]] = "graph.mul"(%{{.*}}, %[[SW]])
// CHECK-NEXT: %[[M:.*]] = "graph.div"(%[[SXW]], %{{.*}})
// CHECK-NEXT: %[[Q:.*]] = "graph.requantize"(%[[ACC]], %[[M]], %{{.*}})
// CHECK-NEXT: return %[[Q]]
func.func @dense_trans_b(%xq: tensor<3x4xui8>) -> tensor<3x2xui8> {
  %sx = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zx = "graph.constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %wq = "graph.constant"() {value = dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi8>} : () -> tensor<2x4xi8>
  %sw = "graph.constant"() {value = dense<[[2.500000e-01], [1.250000e-01]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %zw = "graph.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %sy = "graph.constant"() {value = dense<2.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zy = "graph.constant"() {value = dense<7> : tensor<ui8>} : () -> tensor<ui8>
  %x = "graph.dequantize_linear"(%xq, %sx, %zx) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
  %w = "graph.dequantize_linear"(%wq, %sw, %zw) : (tensor<2x4xi8>, tensor<2x1xf32>, tensor<i8>) -> tensor<2x4xf32>
  %y = "graph.dense"(%x, %w) {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64} : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  %q = "graph.quantize_linear"(%y, %sy, %zy) : (tensor<3x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x2xui8>
  return %q : tensor<3x2xui8>
}

// Left to the float path: a bias whose scale is not x_scale * w_scale (0.1 != 0.5 * 0.25).
// CHECK-LABEL: func.func @bias_scale_mismatch
// CHECK-NOT: graph.conv2d_integer
// CHECK: "graph.conv2d"
// CHECK-NEXT: "graph.quantize_linear"
func.func @bias_scale_mismatch(%xq: tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xui8> {
  %sx = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zx = "graph.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %wq = "graph.constant"() {value = dense<1> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1xi8>
  %sw = "graph.constant"() {value = dense<2.500000e-01> : tensor<f32>} : () -> tensor<f32>
  %zw = "graph.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %bq = "graph.constant"() {value = dense<[7, -9]> : tensor<2xi32>} : () -> tensor<2xi32>
  %sb = "graph.constant"() {value = dense<1.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zb = "graph.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %sy = "graph.constant"() {value = dense<2.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zy = "graph.constant"() {value = dense<10> : tensor<ui8>} : () -> tensor<ui8>
  %x = "graph.dequantize_linear"(%xq, %sx, %zx) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %w = "graph.dequantize_linear"(%wq, %sw, %zw) : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %b = "graph.dequantize_linear"(%bq, %sb, %zb) : (tensor<2xi32>, tensor<f32>, tensor<i32>) -> tensor<2xf32>
  %y = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %q = "graph.quantize_linear"(%y, %sy, %zy) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  return %q : tensor<1x2x4x4xui8>
}

// Left to the float path: weights computed at run time.
// CHECK-LABEL: func.func @runtime_weights
// CHECK-NOT: graph.matmul_integer
// CHECK: "graph.matmul"
// CHECK-NEXT: "graph.quantize_linear"
func.func @runtime_weights(%xq: tensor<3x4xui8>, %wq: tensor<4x2xi8>) -> tensor<3x2xui8> {
  %s = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zx = "graph.constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %zw = "graph.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %x = "graph.dequantize_linear"(%xq, %s, %zx) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
  %w = "graph.dequantize_linear"(%wq, %s, %zw) : (tensor<4x2xi8>, tensor<f32>, tensor<i8>) -> tensor<4x2xf32>
  %y = "graph.matmul"(%x, %w) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %q = "graph.quantize_linear"(%y, %s, %zx) : (tensor<3x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x2xui8>
  return %q : tensor<3x2xui8>
}

// Left to the float path: a per-channel output scale (the requantization needs one zero point).
// CHECK-LABEL: func.func @per_channel_output
// CHECK-NOT: graph.matmul_integer
// CHECK: "graph.matmul"
// CHECK-NEXT: "graph.quantize_linear"
func.func @per_channel_output(%xq: tensor<3x4xui8>) -> tensor<3x2xui8> {
  %s = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zx = "graph.constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %wq = "graph.constant"() {value = dense<1> : tensor<4x2xi8>} : () -> tensor<4x2xi8>
  %zw = "graph.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %sy = "graph.constant"() {value = dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>} : () -> tensor<2xf32>
  %x = "graph.dequantize_linear"(%xq, %s, %zx) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
  %w = "graph.dequantize_linear"(%wq, %s, %zw) : (tensor<4x2xi8>, tensor<f32>, tensor<i8>) -> tensor<4x2xf32>
  %y = "graph.matmul"(%x, %w) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %q = "graph.quantize_linear"(%y, %sy, %zx) : (tensor<3x2xf32>, tensor<2xf32>, tensor<ui8>) -> tensor<3x2xui8>
  return %q : tensor<3x2xui8>
}

// Sizes known only at run time: the same QDQ matmul on a run-time number of rows becomes the
// integer product with the rows kept symbolic.
// CHECK-LABEL: func.func @symbolic_rows
// CHECK: %[[ACC:.*]] = "graph.matmul_integer"(%arg0, %{{.*}}) {rhs_layout = "KN"} : (tensor<?x4xi8, ["seq", 4]>, tensor<4x2xi16>) -> tensor<?x2xi32, ["seq", 2]>
// CHECK: %[[Q:.*]] = "graph.requantize"(%[[ACC]], %{{.*}}, %[[ZY:.*]]) : (tensor<?x2xi32, ["seq", 2]>, tensor<2xf32>, tensor<i8>) -> tensor<?x2xi8, ["seq", 2]>
// CHECK-NEXT: "graph.max"(%[[Q]], %[[ZY]])
func.func @symbolic_rows(%xq: tensor<?x4xi8, ["seq", 4]>) -> tensor<?x2xi8, ["seq", 2]> {
  %sx = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zx = "graph.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %wq = "graph.constant"() {value = dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8>} : () -> tensor<4x2xi8>
  %sw = "graph.constant"() {value = dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>} : () -> tensor<2xf32>
  %zw = "graph.constant"() {value = dense<[1, -1]> : tensor<2xi8>} : () -> tensor<2xi8>
  %sy = "graph.constant"() {value = dense<2.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %zy = "graph.constant"() {value = dense<-5> : tensor<i8>} : () -> tensor<i8>
  %x = "graph.dequantize_linear"(%xq, %sx, %zx) : (tensor<?x4xi8, ["seq", 4]>, tensor<f32>, tensor<i8>) -> tensor<?x4xf32, ["seq", 4]>
  %w = "graph.dequantize_linear"(%wq, %sw, %zw) : (tensor<4x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<4x2xf32>
  %y = "graph.matmul"(%x, %w) : (tensor<?x4xf32, ["seq", 4]>, tensor<4x2xf32>) -> tensor<?x2xf32, ["seq", 2]>
  %r = "graph.relu"(%y) : (tensor<?x2xf32, ["seq", 2]>) -> tensor<?x2xf32, ["seq", 2]>
  %q = "graph.quantize_linear"(%r, %sy, %zy) : (tensor<?x2xf32, ["seq", 2]>, tensor<f32>, tensor<i8>) -> tensor<?x2xi8, ["seq", 2]>
  return %q : tensor<?x2xi8, ["seq", 2]>
}
