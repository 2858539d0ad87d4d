// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// softmax along the last axis: the row maxima into a scratch temporary (one element per row; a
// `fastmax`: NaN makes the row NaN through the sum anyway), the
// output written once as exp(x - max) (an exp of x <= 0 for mlc-math-approx), its row sums into a second temporary, replaced by their
// reciprocals (one division per row), then the product as the kernel's final block, in place.
// CHECK: #[[$X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func private @fused_softmax_0(
// CHECK-SAME: %[[X:.*]]: memref<2x5xf32>, %[[Y:.*]]: memref<2x5xf32>, %[[SCRATCH:.*]]: memref<?xi8>)
// CHECK: %[[MAX:.*]] = memref.view %[[SCRATCH]][%{{.*}}][] : memref<?xi8> to memref<2x1xf32>
// CHECK: %[[SUM:.*]] = memref.view %[[SCRATCH]][%{{.*}}][] : memref<?xi8> to memref<2x1xf32>
// CHECK-NEXT: "tp.block"(%[[MAX]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$X]]}
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {axes = ["s0", "r1"], combiner = "fastmax", extents = array<i64: 2, 5>, init = 0xFF800000 : f32, kinds = "SR", name = "softmax_max_0", out_map = #[[$ROW]]
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$X]]}
// CHECK-NEXT: %[[M:.*]] = "tp.read"(%[[MAX]]) {map = #[[$ROW]]}
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]] {mlc.nonpositive} : f32
// CHECK-NEXT: gpu.yield %[[E]] : f32
// CHECK-NEXT: }) {{.*}} name = "softmax_exp_1"
// CHECK-NEXT: "tp.block"(%[[SUM]]) ({
// CHECK-NEXT: %[[E:.*]] = "tp.read"(%[[Y]]) {map = #[[$X]]}
// CHECK-NEXT: gpu.yield %[[E]] : f32
// CHECK-NEXT: }) {axes = ["s0", "r1"], combiner = "add", extents = array<i64: 2, 5>, init = 0.000000e+00 : f32, kinds = "SR", name = "softmax_sum_2", out_map = #[[$ROW]]
// CHECK-NEXT: "tp.block"(%[[SUM]]) ({
// CHECK-NEXT: %[[S:.*]] = "tp.read"(%[[SUM]]) {map = #[[$X]]}
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {{.*}} name = "softmax_reciprocal_3"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[E:.*]] = "tp.read"(%[[Y]]) {map = #[[$X]]}
// CHECK-NEXT: %[[R:.*]] = "tp.read"(%[[SUM]]) {map = #[[$ROW]]}
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[E]], %[[R]] : f32
// CHECK-NEXT: gpu.yield %[[P]] : f32
// CHECK-NEXT: }) {{.*}} name = "epilogue_4"
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = "graph.softmax"(%x) {axis = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// log_softmax along axis 0: the reduced dim is r0; the final block is (x - max) - log(sum).
// CHECK: #[[$IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: #[[$COL:.*]] = affine_map<(d0, d1) -> (0, d0)>
// CHECK: #[[$X:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[$AT:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func private @fused_log_softmax_0(
// CHECK: name = "log_softmax_max_0", out_map = #[[$COL]]
// CHECK: "tp.block"(%[[SUM:.*]]) ({
// CHECK-NEXT: "tp.read"(%arg0) {map = #[[$IN]]}
// CHECK: kinds = "SR", name = "log_softmax_sum_1", out_map = #[[$COL]]
// CHECK-NEXT: "tp.block"(%arg1) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%arg0) {map = #[[$X]]}
// CHECK-NEXT: %[[M:.*]] = "tp.read"(%{{.*}}) {map = #[[$AT]]}
// CHECK-NEXT: %[[S:.*]] = "tp.read"(%[[SUM]]) {map = #[[$AT]]}
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT: %[[L:.*]] = math.log %[[S]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[D]], %[[L]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
func.func @main(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %y = "graph.log_softmax"(%x) {axis = 0 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// layer_norm: sum, mean in place, sum of squared deviations, rsqrt(var + eps) in place, then
// (x - mean) * rstd * scale + bias with scale and bias broadcast over the normalized dim.
// CHECK: #[[$X:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK: #[[$ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK: #[[$LAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func private @fused_layer_norm_0(
// CHECK-SAME: %[[X:.*]]: memref<2x4x8xf32>, %[[SCALE:.*]]: memref<8xf32>, %[[BIAS:.*]]: memref<8xf32>, %[[Y:.*]]: memref<2x4x8xf32>, %[[SCRATCH:.*]]: memref<?xi8>)
// CHECK: %[[MEAN:.*]] = memref.view %[[SCRATCH]]{{.*}} to memref<2x4x1xf32>
// CHECK: %[[RSTD:.*]] = memref.view %[[SCRATCH]]{{.*}} to memref<2x4x1xf32>
// CHECK-NEXT: "tp.block"(%[[MEAN]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$X]]}
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK-NEXT: }) {axes = ["s0", "s1", "r2"], combiner = "add", {{.*}} name = "layer_norm_sum_0", out_map = #[[$ROW]]
// CHECK-NEXT: "tp.block"(%[[MEAN]]) ({
// CHECK-NEXT: %[[S:.*]] = "tp.read"(%[[MEAN]])
// CHECK-NEXT: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[M:.*]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: gpu.yield %[[M]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1", "i2"], combiner = "none", extents = array<i64: 2, 4, 1>, {{.*}} name = "layer_norm_mean_1"
// CHECK-NEXT: "tp.block"(%[[RSTD]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$X]]}
// CHECK-NEXT: %[[M:.*]] = "tp.read"(%[[MEAN]]) {map = #[[$ROW]]}
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT: gpu.yield %[[SQ]] : f32
// CHECK-NEXT: }) {axes = ["s0", "s1", "r2"], combiner = "add", {{.*}} name = "layer_norm_var_2", out_map = #[[$ROW]]
// CHECK-NEXT: "tp.block"(%[[RSTD]]) ({
// CHECK-NEXT: %[[S:.*]] = "tp.read"(%[[RSTD]])
// CHECK-NEXT: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[VAR:.*]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT: %[[VE:.*]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK-NEXT: %[[R:.*]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {{.*}} name = "layer_norm_rstd_3"
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]]) {map = #[[$X]]}
// CHECK-NEXT: %[[M:.*]] = "tp.read"(%[[MEAN]]) {map = #[[$ROW]]}
// CHECK-NEXT: %[[R:.*]] = "tp.read"(%[[RSTD]]) {map = #[[$ROW]]}
// CHECK-NEXT: %[[G:.*]] = "tp.read"(%[[SCALE]]) {map = #[[$LAST]]}
// CHECK-NEXT: %[[B:.*]] = "tp.read"(%[[BIAS]]) {map = #[[$LAST]]}
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT: %[[NRM:.*]] = arith.mulf %[[D]], %[[R]] : f32
// CHECK-NEXT: %[[SC:.*]] = arith.mulf %[[NRM]], %[[G]] : f32
// CHECK-NEXT: %[[OUT:.*]] = arith.addf %[[SC]], %[[B]] : f32
// CHECK-NEXT: gpu.yield %[[OUT]] : f32
// CHECK-NEXT: }) {{.*}} name = "epilogue_4"
func.func @main(%x: tensor<2x4x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %y = "graph.layer_norm"(%x, %s, %b) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// lrn, size 4: the channel window [c - 1, c + 2] is a reduce axis over padded reads, summed
// into the output buffer; x / (bias + alpha / size * sum)^beta is then applied in place.
// CHECK: #[[$WIN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d4 - 1, d2, d3)>
// CHECK: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func private @fused_lrn_0(
// CHECK-SAME: %[[X:.*]]: memref<1x6x2x2xf32>, %[[Y:.*]]: memref<1x6x2x2xf32>)
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read_padded"(%[[X]]) {map = #[[$WIN]], value = 0.000000e+00 : f32}
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT: gpu.yield %[[SQ]] : f32
// CHECK-NEXT: }) {axes = ["i0", "i1", "i2", "i3", "k"], combiner = "add", extents = array<i64: 1, 6, 2, 2, 4>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "lrn_square_sum_0", out_map = #[[$OUT]]
// CHECK-NEXT: "tp.block"(%[[Y]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[X]])
// CHECK-NEXT: %[[S:.*]] = "tp.read"(%[[Y]])
// CHECK-NEXT: %[[BIAS:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[AS:.*]] = arith.constant 2.500000e-05 : f32
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[S]], %[[AS]] : f32
// CHECK-NEXT: %[[BASE:.*]] = arith.addf %[[BIAS]], %[[T]] : f32
// CHECK-NEXT: %[[BETA:.*]] = arith.constant 7.500000e-01 : f32
// CHECK-NEXT: %[[P:.*]] = math.powf %[[BASE]], %[[BETA]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[V]], %[[P]] : f32
// CHECK-NEXT: gpu.yield %[[R]] : f32
// CHECK-NEXT: }) {{.*}} name = "epilogue_1"
func.func @main(%x: tensor<1x6x2x2xf32>) -> tensor<1x6x2x2xf32> {
  %y = "graph.lrn"(%x) {size = 4 : i64, alpha = 1.0e-04 : f32, beta = 0.75 : f32, bias = 2.0 : f32} : (tensor<1x6x2x2xf32>) -> tensor<1x6x2x2xf32>
  return %y : tensor<1x6x2x2xf32>
}
