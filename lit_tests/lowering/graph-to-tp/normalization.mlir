// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// rms_norm: the sum of squares per row into a scratch temporary, turned into
// rsqrt(sum / count + epsilon) in place, then x * rstd * scale as the kernel's final block.
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func private @fused_rms_norm_0(
// CHECK-SAME: %[[X:.*]]: memref<2x8xf32>, %[[S:.*]]: memref<8xf32>, %[[Y:.*]]: memref<2x8xf32>, %[[SCRATCH:.*]]: memref<?xi8>)
// CHECK: %[[R:.*]] = memref.view %[[SCRATCH]]{{.*}} to memref<2x1xf32>
// CHECK-NEXT: "tp.block"(%[[R]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$X]]}
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[V]], %[[V]]
// CHECK-NEXT: gpu.yield %[[SQ]] : f32
// CHECK-NEXT: }) {axes = ["s0", "r1"], combiner = "add", {{.*}} kinds = "SR", name = "rms_norm_square_sum_0", out_map = #[[$ROW]]
// CHECK-NEXT: "tp.block"(%[[R]]) ({
// CHECK-NEXT: %[[SUM:.*]] = "tp.read"(%[[R]])
// CHECK-NEXT: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[MEAN:.*]] = arith.divf %[[SUM]], %[[N]]
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT: %[[PLUS:.*]] = arith.addf %[[MEAN]], %[[EPS]]
// CHECK-NEXT: %[[RSTD:.*]] = math.rsqrt %[[PLUS]]
// CHECK-NEXT: gpu.yield %[[RSTD]] : f32
// CHECK-NEXT: }) {{.*}} name = "rms_norm_rstd_1"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$X]]}
// CHECK-NEXT: %[[RS:.*]] = "tp.read"(%[[R]]) {map = #[[$ROW]]}
// CHECK-NEXT: %[[SC:.*]] = "tp.read"(%[[S]]) {map = #[[$COL]]}
// CHECK-NEXT: %[[N1:.*]] = arith.mulf %[[V]], %[[RS]]
// CHECK-NEXT: %[[N2:.*]] = arith.mulf %[[N1]], %[[SC]]
// CHECK-NEXT: gpu.yield %[[N2]] : f32
// CHECK-NEXT: }) {{.*}} name = "epilogue_2"
func.func @main(%x: tensor<2x8xf32>, %s: tensor<8xf32>) -> tensor<2x8xf32> {
  %y = "graph.rms_norm"(%x, %s) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// group_norm with 2 groups of 2 channels: the statistics reduce a [N, G, C/G, spatial] view of
// x (channel = g * 2 + c, no division in the reads); the final block reads them at
// channel floordiv 2 and the scale and bias per channel.
// CHECK-DAG: #[[$GROUPED:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1 * 2 + d2, d3)>
// CHECK-DAG: #[[$STAT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
// CHECK-DAG: #[[$OF_CHANNEL:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 2, 0, 0)>
// CHECK-DAG: #[[$CHANNEL:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func private @fused_group_norm_0(
// CHECK-SAME: %[[X:.*]]: memref<1x4x3xf32>, %[[S:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[Y:.*]]: memref<1x4x3xf32>
// CHECK: %[[MEAN:.*]] = memref.view {{.*}} to memref<1x2x1x1xf32>
// CHECK-NEXT: "tp.block"(%[[MEAN]]) ({
// CHECK-NEXT: "tp.read"(%[[X]]) {map = #[[$GROUPED]]}
// CHECK: kinds = "SSRR", name = "group_norm_sum_0", out_map = #[[$STAT]]
// CHECK: name = "group_norm_mean_1"
// CHECK: %[[RSTD:.*]] = memref.view {{.*}} to memref<1x2x1x1xf32>
// CHECK: name = "group_norm_square_sum_2"
// CHECK: math.rsqrt
// CHECK: name = "group_norm_stat_3"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]])
// CHECK-NEXT: %[[M:.*]] = "tp.read"(%[[MEAN]]) {map = #[[$OF_CHANNEL]]}
// CHECK-NEXT: %[[R:.*]] = "tp.read"(%[[RSTD]]) {map = #[[$OF_CHANNEL]]}
// CHECK-NEXT: %[[SC:.*]] = "tp.read"(%[[S]]) {map = #[[$CHANNEL]]}
// CHECK-NEXT: %[[BI:.*]] = "tp.read"(%[[B]]) {map = #[[$CHANNEL]]}
// CHECK-NEXT: %[[C:.*]] = arith.subf %[[V]], %[[M]]
// CHECK-NEXT: %[[N:.*]] = arith.mulf %[[C]], %[[R]]
// CHECK-NEXT: %[[Z:.*]] = arith.mulf %[[N]], %[[SC]]
// CHECK-NEXT: %[[OUT:.*]] = arith.addf %[[Z]], %[[BI]]
// CHECK-NEXT: gpu.yield %[[OUT]] : f32
func.func @main(%x: tensor<1x4x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x3xf32> {
  %y = "graph.group_norm"(%x, %s, %b) {num_groups = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3xf32>
  return %y : tensor<1x4x3xf32>
}

// -----

// lp_norm with p = 2: the sum of squares, its square root in place, then x / norm selected to
// 0 where the norm is 0.
// CHECK-LABEL: func.func private @fused_lp_norm_0(
// CHECK: name = "lp_norm_sum_0"
// CHECK: math.sqrt
// CHECK: name = "lp_norm_norm_1"
// CHECK-NEXT: "tp.block"
// CHECK-NEXT: %[[V:.*]] = "tp.read"
// CHECK-NEXT: %[[N:.*]] = "tp.read"
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[IS_ZERO:.*]] = arith.cmpf oeq, %[[N]], %[[ZERO]]
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[V]], %[[N]]
// CHECK-NEXT: %[[OUT:.*]] = arith.select %[[IS_ZERO]], %[[ZERO]], %[[Q]]
// CHECK-NEXT: gpu.yield %[[OUT]]
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = "graph.lp_norm"(%x) {axis = 0 : i64, p = 2 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
