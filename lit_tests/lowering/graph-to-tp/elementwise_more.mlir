// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// trilu: j - i from the block's axis values (tp.index), compared with k; 0 elsewhere.
// CHECK-LABEL: func.func private @fused_trilu_0(
// CHECK: "tp.block"
// CHECK-NEXT: %[[V:.*]] = "tp.read"
// CHECK-NEXT: %[[J:.*]] = "tp.index"() {axis = "i1"}
// CHECK-NEXT: %[[I:.*]] = "tp.index"() {axis = "i0"}
// CHECK-NEXT: %[[M1:.*]] = arith.constant -1 : index
// CHECK-NEXT: %[[NEG_I:.*]] = arith.muli %[[I]], %[[M1]]
// CHECK-NEXT: %[[D:.*]] = arith.addi %[[J]], %[[NEG_I]]
// CHECK-NEXT: %[[K:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[KEEP:.*]] = arith.cmpi sge, %[[D]], %[[K]]
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[KEEP]], %[[V]], %[[ZERO]]
// CHECK-NEXT: gpu.yield %[[Y]]
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = "graph.trilu"(%x) {upper = 1 : i64, k = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// Signed right shift: an amount outside [0, 8) (negative ones compare as huge unsigned) becomes
// 7, whose arithmetic shift is the sign fill.
// CHECK-LABEL: func.func private @fused_bit_shift_0(
// CHECK: %[[X:.*]] = "tp.read"
// CHECK-NEXT: %[[S:.*]] = "tp.read"
// CHECK-NEXT: %[[W:.*]] = arith.constant 8 : i8
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi ult, %[[S]], %[[W]]
// CHECK-NEXT: %[[MAX:.*]] = arith.constant 7 : i8
// CHECK-NEXT: %[[AMOUNT:.*]] = arith.select %[[OK]], %[[S]], %[[MAX]]
// CHECK-NEXT: %[[Y:.*]] = arith.shrsi %[[X]], %[[AMOUNT]]
// CHECK-NEXT: gpu.yield %[[Y]]
func.func @main(%a: tensor<3x4xi8>, %b: tensor<4xi8>) -> tensor<3x4xi8> {
  %y = "graph.bit_shift"(%a, %b) {direction = "RIGHT"} : (tensor<3x4xi8>, tensor<4xi8>) -> tensor<3x4xi8>
  return %y : tensor<3x4xi8>
}

// -----

// Unsigned left shift: the amount is clamped to 0 and the result replaced by 0 when invalid.
// CHECK-LABEL: func.func private @fused_bit_shift_0(
// CHECK: %[[OK:.*]] = arith.cmpi ult
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i16
// CHECK-NEXT: %[[AMOUNT:.*]] = arith.select %[[OK]], %{{.*}}, %[[Z]]
// CHECK-NEXT: %[[SH:.*]] = arith.shli %{{.*}}, %[[AMOUNT]]
// CHECK-NEXT: %[[Z2:.*]] = arith.constant 0 : i16
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[OK]], %[[SH]], %[[Z2]]
func.func @main(%a: tensor<4xui16>, %b: tensor<4xui16>) -> tensor<4xui16> {
  %y = "graph.bit_shift"(%a, %b) {direction = "LEFT"} : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  return %y : tensor<4xui16>
}

// -----

// is_nan is x unordered with itself; is_inf with only detect_negative compares with -inf;
// the bools are stored as bytes.
// CHECK-LABEL: func.func private @fused_is_nan_0(
// CHECK: %[[V:.*]] = "tp.read"
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT: %[[B:.*]] = arith.extui %[[NAN]] : i1 to i8
// CHECK-LABEL: func.func private @fused_is_inf_1(
// CHECK: %[[V:.*]] = "tp.read"
// CHECK-NEXT: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[INF:.*]] = arith.cmpf oeq, %[[V]], %[[NEG_INF]] : f32
func.func @main(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %n = "graph.is_nan"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  %i = "graph.is_inf"(%x) {detect_negative = 1 : i64, detect_positive = 0 : i64} : (tensor<4xf32>) -> tensor<4xi1>
  return %n, %i : tensor<4xi1>, tensor<4xi1>
}
