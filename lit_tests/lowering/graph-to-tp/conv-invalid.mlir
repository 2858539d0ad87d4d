// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' --verify-diagnostics

// A blocked conv whose data block (8) differs from its kernel's input block (4) has no index
// builder: graph-to-tp names the op and the layouts it needs.
func.func @main(%x: tensor<1x2x5x5x8xf32>, %w: tensor<2x4x3x3x4x8xf32>) -> tensor<1x2x3x3x8xf32> {
  // expected-error @+1 {{graph-to-tp: blocked conv2d needs data block == kernel input block and kernel output block == output block (or a depthwise conv with OIHW1i<b>o weights)}}
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW8c", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW4i8o", out_layout = "NCHW8c", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5x8xf32>, tensor<2x4x3x3x4x8xf32>) -> tensor<1x2x3x3x8xf32>
  return %c : tensor<1x2x3x3x8xf32>
}
