// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// An exclusive cumsum over 5 elements: ceil(log2 5) = 3 doubling steps. The first reads the
// input one and two positions back (exclusive: shifted by one), padded with the identity 0;
// the steps alternate between the output and a scratch buffer so that the last writes the
// output.
// CHECK-DAG: #[[$BACK1:.*]] = affine_map<(d0, d1) -> (d0, d1 - 1)>
// CHECK-DAG: #[[$BACK2:.*]] = affine_map<(d0, d1) -> (d0, d1 - 2)>
// CHECK-DAG: #[[$BACK4:.*]] = affine_map<(d0, d1) -> (d0, d1 - 4)>
// CHECK-DAG: #[[$SAME:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func private @fused_cumsum_0(
// CHECK-SAME: %[[X:.*]]: memref<2x5xf32>, %[[Y:.*]]: memref<2x5xf32>, %[[SCRATCH:.*]]: memref<?xi8>)
// CHECK: %[[TMP:.*]] = memref.view %[[SCRATCH]]
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read_padded"(%[[X]]) {map = #[[$BACK1]], value = 0.000000e+00 : f32}
// CHECK-NEXT: %[[B:.*]] = "tp.read_padded"(%[[X]]) {map = #[[$BACK2]], value = 0.000000e+00 : f32}
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]]
// CHECK-NEXT: gpu.yield %[[S]] : f32
// CHECK-NEXT: }) {{.*}} name = "cumsum_step_0"
// CHECK-NEXT: "tp.block"(%[[TMP]]) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read"(%[[Y]]) {map = #[[$SAME]]}
// CHECK-NEXT: %[[B:.*]] = "tp.read_padded"(%[[Y]]) {map = #[[$BACK2]], value = 0.000000e+00 : f32}
// CHECK: name = "cumsum_step_1"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read"(%[[TMP]]) {map = #[[$SAME]]}
// CHECK-NEXT: %[[B:.*]] = "tp.read_padded"(%[[TMP]]) {map = #[[$BACK4]], value = 0.000000e+00 : f32}
// CHECK: name = "cumsum_step_2"
// CHECK-NEXT: return
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = "graph.cumsum"(%x) {axis = 1 : i64, exclusive = 1 : i64, reverse = 0 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// A reversed cumprod along axis 0 of an f16 tensor: reads one position ahead (identity 1),
// products in f32 temporaries, rounded once into the output.
// CHECK-DAG: #[[$AHEAD1:.*]] = affine_map<(d0, d1) -> (d0 + 1, d1)>
// CHECK-DAG: #[[$AHEAD2:.*]] = affine_map<(d0, d1) -> (d0 + 2, d1)>
// CHECK-LABEL: func.func private @fused_cumprod_0(
// CHECK-SAME: %[[X:.*]]: memref<3x2xf16>, %[[Y:.*]]: memref<3x2xf16>, %[[SCRATCH:.*]]: memref<?xi8>)
// CHECK: %[[LAST:.*]] = memref.view %[[SCRATCH]]{{.*}} to memref<3x2xf32>
// CHECK: %[[TMP:.*]] = memref.view %[[SCRATCH]]{{.*}} to memref<3x2xf32>
// CHECK-NEXT: "tp.block"(%[[TMP]]) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read"(%[[X]])
// CHECK-NEXT: %[[B:.*]] = "tp.read_padded"(%[[X]]) {map = #[[$AHEAD1]], value = 1.000000e+00 : f16}
// CHECK-NEXT: %[[WA:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT: %[[WB:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[WA]], %[[WB]]
// CHECK-NEXT: gpu.yield %[[P]] : f32
// CHECK: "tp.block"(%[[LAST]]) ({
// CHECK-NEXT: "tp.read"(%[[TMP]])
// CHECK-NEXT: "tp.read_padded"(%[[TMP]]) {map = #[[$AHEAD2]], value = 1.000000e+00 : f32}
// CHECK: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[LAST]])
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: gpu.yield %[[R]] : f16
func.func @main(%x: tensor<3x2xf16>) -> tensor<3x2xf16> {
  %y = "graph.cumprod"(%x) {axis = 0 : i64, exclusive = 0 : i64, reverse = 1 : i64} : (tensor<3x2xf16>) -> tensor<3x2xf16>
  return %y : tensor<3x2xf16>
}
