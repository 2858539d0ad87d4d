// A small graph-dialect model: conv2d + bias + relu, then global pooling and a classifier.
func.func @main(%x: tensor<1x3x16x16xf32>) -> tensor<1x10xf32> {
  %w = "graph.constant"() {value = #graph.param<"conv.weight">} : () -> tensor<8x3x3x3xf32>
  %b = "graph.constant"() {value = #graph.param<"conv.bias">} : () -> tensor<8xf32>
  %c = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r = "graph.relu"(%c) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %r2 = "graph.relu"(%c) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %unused = "graph.exp"(%r2) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %p = "graph.global_avg_pool2d"(%r) : (tensor<1x8x16x16xf32>) -> tensor<1x8x1x1xf32>
  %f = "graph.flatten"(%p) {axis = 1 : i64} : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
  %fw = "graph.constant"() {value = #graph.param<"fc.weight">} : () -> tensor<10x8xf32>
  %fb = "graph.constant"() {value = #graph.param<"fc.bias">} : () -> tensor<10xf32>
  %y = "graph.dense"(%f, %fw, %fb) {alpha = 1.0 : f32, beta = 1.0 : f32, transA = 0 : i64, transB = 1 : i64} : (tensor<1x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}
