// Winograd F(2x2, 3x3) transforms over a run-time batch (lowering/graph-to-tp/winograd.mlir reads it).
func.func @main(%x: tensor<?x1x5x6x8xf32, ["batch", 1, 5, 6, 8]>, %m: tensor<16x?x8xf32, [16, "9*batch", 8]>, %b: tensor<8xf32>) -> (tensor<16x?x8xf32, [16, "9*batch", 8]>, tensor<?x1x5x6x8xf32, ["batch", 1, 5, 6, 8]>) {
  %v = "graph.winograd_input"(%x) {data_layout = "NCHW8c", out_size = array<i64: 5, 6>, pads = array<i64: 1, 1>, tile = 2 : i64} : (tensor<?x1x5x6x8xf32, ["batch", 1, 5, 6, 8]>) -> tensor<16x?x8xf32, [16, "9*batch", 8]>
  %y = "graph.winograd_output"(%m, %b) {batch = 0 : i64, out_layout = "NCHW8c", out_size = array<i64: 5, 6>, tile = 2 : i64} : (tensor<16x?x8xf32, [16, "9*batch", 8]>, tensor<8xf32>) -> tensor<?x1x5x6x8xf32, ["batch", 1, 5, 6, 8]>
  return %v, %y : tensor<16x?x8xf32, [16, "9*batch", 8]>, tensor<?x1x5x6x8xf32, ["batch", 1, 5, 6, 8]>
}
