// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-alter-layout{block=8},graph-fuse,graph-to-tp)' | FileCheck %s --check-prefix=TP
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-alter-layout{block=8},graph-fuse,graph-to-tp,tp-default-schedule{vector-bits=256 parallel=false},tp-to-loops,func.func(canonicalize,cse))' | FileCheck %s --check-prefix=LOOPS

// A depthwise 3x3 conv (stride 1, pads 1) on 58 channels, which no 8-channel block divides:
// the channels are padded to 64 and the conv runs NCHW8c. It reads its input in place
// (tp.read_padded, no `pad` block into scratch), and the bias and relu run in its kernel.
// TP-LABEL: func.func private @fused_conv2d_relu_3(
// TP-SAME: %[[X:.*]]: memref<1x8x14x14x8xf32>, %{{.*}}: memref<8x1x3x3x1x8xf32>, %{{.*}}: memref<64xf32>, %[[Y:.*]]: memref<1x8x14x14x8xf32>) attributes
// TP-NOT: name = "pad
// TP: "tp.block"(%[[Y]]) ({
// TP-NEXT: "tp.read_padded"(%[[X]]) {map = #{{.*}}, value = 0.000000e+00 : f32} : (memref<1x8x14x14x8xf32>) -> f32
// TP: name = "conv2d_0"
// TP: arith.maximumf
// TP: name = "epilogue_1"
// TP-NEXT: return

// Its body: vectors along the 8 channels of a block; one unsigned compare per outer index
// tests whether a window row or column lies inside the image, where the vector is loaded,
// and zero stands for the padding outside (a branch taken only at the border).
// LOOPS-LABEL: func.func private @fused_conv2d_relu_3(
// LOOPS-NOT: memref.view
// LOOPS: %[[H:.*]] = arith.cmpi ult, %{{.*}}, %c14 : index
// LOOPS-NEXT: %[[W:.*]] = arith.cmpi ult, %{{.*}}, %c14 : index
// LOOPS-NEXT: %[[IN:.*]] = arith.andi %[[H]], %[[W]] : i1
// LOOPS-NEXT: %[[V:.*]] = scf.if %[[IN]] -> (vector<8xf32>) {
// LOOPS-NEXT: vector.load %arg0[{{.*}}] : memref<1x8x14x14x8xf32>, vector<8xf32>
// LOOPS: } else {
// LOOPS-NEXT: scf.yield %[[ZERO:.*]] : vector<8xf32>
// LOOPS: %[[K:.*]] = vector.load %arg1[{{.*}}] : memref<8x1x3x3x1x8xf32>, vector<8xf32>
// LOOPS-NEXT: arith.mulf %[[V]], %[[K]] {{.*}} : vector<8xf32>
// LOOPS: arith.maximumf %{{.*}} : vector<8xf32>
// LOOPS: return
func.func @main(%x: tensor<1x58x14x14xf32>) -> tensor<1x58x14x14xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<58x1x3x3xf32>
  %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<58xf32>
  %c = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 58 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x58x14x14xf32>, tensor<58x1x3x3xf32>, tensor<58xf32>) -> tensor<1x58x14x14xf32>
  %r = "graph.relu"(%c) : (tensor<1x58x14x14xf32>) -> tensor<1x58x14x14xf32>
  return %r : tensor<1x58x14x14xf32>
}
