// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// conv2d_integer -> add -> requantize is one kernel: the padded copy reads pad_value (200 as
// the signless byte -56), the conv widens uint8 (extui) and int8 (extsi) to i32 into an i32
// temporary, and the epilogue block adds the bias and requantizes into the uint8 output:
// the exact product rounded half to even by one fma with 1.5 * 2^23 (0x4B400000) and its
// subtraction, zero point, saturation to [0, 255] by compare and select (vmaxps / vminps).
// CHECK-LABEL: func.func private @fused_conv2d_integer_add_requantize_0(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<1x2x4x4xi8>, %[[W:[a-z0-9]+]]: memref<3x2x3x3xi8>, %[[B:[a-z0-9]+]]: memref<3x1x1xi32>, %[[M:[a-z0-9]+]]: memref<3x1x1xf32>, %[[Z:[a-z0-9]+]]: memref<i8>, %[[Y:[a-z0-9]+]]: memref<1x3x4x4xi8>, %[[SCRATCH:[a-z0-9]+]]: memref<?xi8>)
// CHECK: %[[ACC:.*]] = memref.view %[[SCRATCH]]{{.*}} to memref<1x3x4x4xi32>
// CHECK: %[[PADDED:.*]] = memref.view %[[SCRATCH]]{{.*}} to memref<1x2x6x6xi8>
// CHECK-NEXT: "tp.block"(%[[PADDED]]) ({
// CHECK-NEXT: %[[P:.*]] = "tp.read_padded"(%[[X]]) {map = #{{.*}}, value = -56 : i8}
// CHECK-NEXT: gpu.yield %[[P]] : i8
// CHECK: "tp.block"(%[[ACC]]) ({
// CHECK-NEXT: %[[XV:.*]] = "tp.read"(%[[PADDED]])
// CHECK-NEXT: %[[WV:.*]] = "tp.read"(%[[W]])
// CHECK-NEXT: %[[XI:.*]] = arith.extui %[[XV]] : i8 to i32
// CHECK-NEXT: %[[WI:.*]] = arith.extsi %[[WV]] : i8 to i32
// CHECK-NEXT: %[[PROD:.*]] = arith.muli %[[XI]], %[[WI]] : i32
// CHECK-NEXT: gpu.yield %[[PROD]] : i32
// CHECK-NEXT: }) {axes = ["n", "oc", "oh", "ow", "ic", "kh", "kw"], combiner = "add", extents = array<i64: 1, 3, 4, 4, 2, 3, 3>, init = 0 : i32, kinds = "SSSSRRR", name = "conv2d_integer_1"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read"(%[[ACC]])
// CHECK-NEXT: %[[BV:.*]] = "tp.read"(%[[B]])
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[A]], %[[BV]] : i32
// CHECK-NEXT: %[[MV:.*]] = "tp.read"(%[[M]])
// CHECK-NEXT: %[[ZV:.*]] = "tp.read"(%[[Z]])
// CHECK-NEXT: %[[SF:.*]] = arith.sitofp %[[S]] : i32 to f32
// CHECK-NEXT: %[[MAGIC:.*]] = arith.constant 0x4B400000 : f32
// CHECK-NEXT: %[[SHIFTED:.*]] = math.fma %[[SF]], %[[MV]], %[[MAGIC]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[SHIFTED]], %[[MAGIC]] : f32
// CHECK-NEXT: %[[ZF:.*]] = arith.uitofp %[[ZV]] : i8 to f32
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[R]], %[[ZF]] : f32
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ABOVE:.*]] = arith.cmpf ogt, %[[T]], %[[LO]] : f32
// CHECK-NEXT: %[[T1:.*]] = arith.select %[[ABOVE]], %[[T]], %[[LO]] : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 2.550000e+02 : f32
// CHECK-NEXT: %[[BELOW:.*]] = arith.cmpf olt, %[[T1]], %[[HI]] : f32
// CHECK-NEXT: %[[T2:.*]] = arith.select %[[BELOW]], %[[T1]], %[[HI]] : f32
// CHECK-NEXT: %[[I:.*]] = arith.fptosi %[[T2]] : f32 to i32
// CHECK-NEXT: %[[Q:.*]] = arith.trunci %[[I]] : i32 to i8
// CHECK-NEXT: gpu.yield %[[Q]] : i8
func.func @main(%x: tensor<1x2x4x4xui8>, %w: tensor<3x2x3x3xi8>, %b: tensor<3x1x1xi32>, %m: tensor<3x1x1xf32>, %z: tensor<ui8>) -> tensor<1x3x4x4xui8> {
  %acc = "graph.conv2d_integer"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pad_value = 200 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xui8>, tensor<3x2x3x3xi8>) -> tensor<1x3x4x4xi32>
  %s = "graph.add"(%acc, %b) : (tensor<1x3x4x4xi32>, tensor<3x1x1xi32>) -> tensor<1x3x4x4xi32>
  %q = "graph.requantize"(%s, %m, %z) : (tensor<1x3x4x4xi32>, tensor<3x1x1xf32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
  return %q : tensor<1x3x4x4xui8>
}

// -----

// matmul_integer: one reduction over k, int8 lhs sign-extended, uint8 rhs zero-extended.
// CHECK-LABEL: func.func private @fused_matmul_integer_0(
// CHECK-NEXT: "tp.block"(%arg2) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read"(%arg0)
// CHECK-NEXT: %[[B:.*]] = "tp.read"(%arg1)
// CHECK-NEXT: %[[AI:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK-NEXT: %[[BI:.*]] = arith.extui %[[B]] : i8 to i32
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[AI]], %[[BI]] : i32
// CHECK-NEXT: gpu.yield %[[P]] : i32
// CHECK-NEXT: }) {axes = ["s0", "s1", "k"], combiner = "add", extents = array<i64: 3, 4, 5>, init = 0 : i32, kinds = "SSR", name = "matmul_integer_0"
func.func @main(%a: tensor<3x5xi8>, %b: tensor<5x4xui8>) -> tensor<3x4xi32> {
  %y = "graph.matmul_integer"(%a, %b) {rhs_layout = "KN"} : (tensor<3x5xi8>, tensor<5x4xui8>) -> tensor<3x4xi32>
  return %y : tensor<3x4xi32>
}

// -----

// quantize_linear then dequantize_linear inline in one block: x times the reciprocal of the scale
// with an fma correction (the division's rounding), round half to even, add
// the zero point and saturate in f32; back: the difference in i32, converted, times the scale
// (scale and zero point are read once and shared by both ops).
// CHECK-LABEL: func.func private @fused_quantize_linear_dequantize_linear_0(
// CHECK-NEXT: "tp.block"(%arg3) ({
// CHECK-NEXT: %[[X:.*]] = "tp.read"(%arg0)
// CHECK-NEXT: %[[S:.*]] = "tp.read"(%arg1)
// CHECK-NEXT: %[[Z:.*]] = "tp.read"(%arg2)
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[RCP:.*]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK-NEXT: %[[Q0:.*]] = arith.mulf %[[X]], %[[RCP]] : f32
// CHECK-NEXT: %[[NQ:.*]] = arith.negf %[[Q0]] : f32
// CHECK-NEXT: %[[RES:.*]] = math.fma %[[NQ]], %[[S]], %[[X]] : f32
// CHECK-NEXT: %[[Q1:.*]] = math.fma %[[RES]], %[[RCP]], %[[Q0]] : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[Q1]], %[[Q1]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.select %[[NAN]], %[[Q0]], %[[Q1]] : f32
// CHECK-NEXT: %[[R:.*]] = math.roundeven %[[D]] : f32
// CHECK-NEXT: %[[ZF:.*]] = arith.sitofp %[[Z]] : i8 to f32
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[R]], %[[ZF]] : f32
// CHECK-NEXT: %[[LO:.*]] = arith.constant -1.280000e+02 : f32
// CHECK-NEXT: %[[ABOVE:.*]] = arith.cmpf ogt, %[[T]], %[[LO]] : f32
// CHECK-NEXT: %[[T1:.*]] = arith.select %[[ABOVE]], %[[T]], %[[LO]] : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-NEXT: %[[BELOW:.*]] = arith.cmpf olt, %[[T1]], %[[HI]] : f32
// CHECK-NEXT: %[[T2:.*]] = arith.select %[[BELOW]], %[[T1]], %[[HI]] : f32
// CHECK-NEXT: %[[I:.*]] = arith.fptosi %[[T2]] : f32 to i32
// CHECK-NEXT: %[[Q:.*]] = arith.trunci %[[I]] : i32 to i8
// CHECK-NEXT: %[[QI:.*]] = arith.extsi %[[Q]] : i8 to i32
// CHECK-NEXT: %[[ZI:.*]] = arith.extsi %[[Z]] : i8 to i32
// CHECK-NEXT: %[[DIFF:.*]] = arith.subi %[[QI]], %[[ZI]] : i32
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[DIFF]] : i32 to f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[F]], %[[S]] : f32
// CHECK-NEXT: gpu.yield %[[Y]] : f32
func.func @main(%x: tensor<8xf32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<8xf32> {
  %q = "graph.quantize_linear"(%x, %s, %z) : (tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<8xi8>
  %d = "graph.dequantize_linear"(%q, %s, %z) : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
  return %d : tensor<8xf32>
}
