// RUN: mlc-opt %s | mlc-opt | FileCheck %s
// Round trip of tp programs: blocks with named axes, reads, padded reads, loads, indices, schedules.

// CHECK-LABEL: func.func @matmul_relu
// CHECK-SAME: attributes {tp.kernel}
func.func @matmul_relu(%A: memref<64x32xf32>, %B: memref<32x16xf32>, %C: memref<64x16xf32>) attributes {tp.kernel} {
  // CHECK: "tp.block"(%[[C:.*]]) ({
  // CHECK-NEXT: %[[A:.*]] = "tp.read"(%{{.*}}) {map = #[[MAP_IK:.*]]} : (memref<64x32xf32>) -> f32
  // CHECK-NEXT: %[[B:.*]] = "tp.read"(%{{.*}}) {map = #[[MAP_KJ:.*]]} : (memref<32x16xf32>) -> f32
  // CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
  // CHECK-NEXT: gpu.yield %[[M]] : f32
  // CHECK-NEXT: }) {axes = ["i", "j", "k"], combiner = "add", extents = array<i64: 64, 16, 32>, init = 0.000000e+00 : f32, kinds = "SSR", name = "matmul", out_map = #{{.*}}, schedule = {order = ["i.0", "j.0", "k", "i.1", "j.1"], tile = {i = array<i64: 4>, j = array<i64: 8>}, unroll = {i.1 = 4 : i64}, vectorize = "j.1"}} : (memref<64x16xf32>) -> ()
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<64x32xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<32x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 64, 16, 32>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32,
      schedule = {tile = {i = array<i64: 4>, j = array<i64: 8>}, order = ["i.0", "j.0", "k", "i.1", "j.1"],
                  unroll = {"i.1" = 4}, vectorize = "j.1"}} : (memref<64x16xf32>) -> ()
  // CHECK: "tp.block"(%[[C]]) ({
  // CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[C]]) {map = #{{.*}}} : (memref<64x16xf32>) -> f32
  // CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[V]], %[[Z]] : f32
  // CHECK-NEXT: gpu.yield %[[R]] : f32
  // CHECK-NEXT: }) {axes = ["i", "j"], combiner = "none", extents = array<i64: 64, 16>, init, kinds = "SS", name = "relu", out_map = #{{.*}}, schedule = {parallel = ["i"]}}
  "tp.block"(%C) ({
    %v = "tp.read"(%C) {map = affine_map<(i, j) -> (i, j)>} : (memref<64x16xf32>) -> f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %z : f32
    gpu.yield %r : f32
  }) {name = "relu", axes = ["i", "j"], kinds = "SS", extents = array<i64: 64, 16>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {parallel = ["i"]}} : (memref<64x16xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @conv_padded
func.func @conv_padded(%X: memref<1x2x4x4xf32>, %W: memref<3x2x3x3xf32>, %O: memref<1x3x4x4xf32>) attributes {tp.kernel} {
  // CHECK: "tp.read_padded"(%{{.*}}) {map = #{{.*}}, value = 0.000000e+00 : f32} : (memref<1x2x4x4xf32>) -> f32
  "tp.block"(%O) ({
    %x = "tp.read_padded"(%X) {map = affine_map<(n, oc, oh, ow, ic, kh, kw) -> (n, ic, oh + kh - 1, ow + kw - 1)>, value = 0.0 : f32} : (memref<1x2x4x4xf32>) -> f32
    %w = "tp.read"(%W) {map = affine_map<(n, oc, oh, ow, ic, kh, kw) -> (oc, ic, kh, kw)>} : (memref<3x2x3x3xf32>) -> f32
    %m = arith.mulf %x, %w : f32
    gpu.yield %m : f32
  }) {name = "conv", axes = ["n", "oc", "oh", "ow", "ic", "kh", "kw"], kinds = "SSSSRRR",
      extents = array<i64: 1, 3, 4, 4, 2, 3, 3>, out_map = affine_map<(n, oc, oh, ow, ic, kh, kw) -> (n, oc, oh, ow)>,
      combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x3x4x4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @gather
func.func @gather(%D: memref<5x4xf32>, %I: memref<3xi64>, %O: memref<3x4xf32>) attributes {tp.kernel} {
  // CHECK: %[[IDX:.*]] = "tp.read"(%{{.*}}) {map = #{{.*}}} : (memref<3xi64>) -> i64
  // CHECK-NEXT: %[[CAST:.*]] = arith.index_cast %[[IDX]] : i64 to index
  // CHECK-NEXT: %[[J:.*]] = "tp.index"() {axis = "j"} : () -> index
  // CHECK-NEXT: %{{.*}} = "tp.load"(%{{.*}}, %[[CAST]], %[[J]]) : (memref<5x4xf32>, index, index) -> f32
  "tp.block"(%O) ({
    %i = "tp.read"(%I) {map = affine_map<(i, j) -> (i)>} : (memref<3xi64>) -> i64
    %ii = arith.index_cast %i : i64 to index
    %j = "tp.index"() {axis = "j"} : () -> index
    %v = "tp.load"(%D, %ii, %j) : (memref<5x4xf32>, index, index) -> f32
    gpu.yield %v : f32
  }) {name = "gather", axes = ["i", "j"], kinds = "SS", extents = array<i64: 3, 4>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {}} : (memref<3x4xf32>) -> ()
  return
}

// A scatter block: no out_map results; the yield carries the output position after the value.
// CHECK-LABEL: func.func @scatter_add
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT: %[[J:.*]] = "tp.index"() {axis = "j"} : () -> index
// CHECK-NEXT: gpu.yield %{{.*}}, %[[ROW]], %[[J]] : f32, index, index
// CHECK-NEXT: }) {axes = ["i", "j"], combiner = "add", {{.*}} out_map = #{{.*}}
func.func @scatter_add(%U: memref<3x4xf32>, %I: memref<3xi64>, %O: memref<5x4xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %u = "tp.read"(%U) {map = affine_map<(i, j) -> (i, j)>} : (memref<3x4xf32>) -> f32
    %i = "tp.read"(%I) {map = affine_map<(i, j) -> (i)>} : (memref<3xi64>) -> i64
    %row = arith.index_cast %i : i64 to index
    %j = "tp.index"() {axis = "j"} : () -> index
    gpu.yield %u, %row, %j : f32, index, index
  }) {name = "scatter", axes = ["i", "j"], kinds = "SS", extents = array<i64: 3, 4>,
      out_map = affine_map<(i, j) -> ()>, combiner = "add", init, schedule = {}} : (memref<5x4xf32>) -> ()
  return
}

// The int8 dot product of two words of four bytes (uint8 x int8), summed over the words.
// CHECK-LABEL: func.func @dot4
// CHECK: %[[A:.*]] = "tp.read"(%{{.*}}) {map = #{{.*}}} : (memref<8xi32>) -> i32
// CHECK-NEXT: %[[B:.*]] = "tp.read"(%{{.*}}) {map = #{{.*}}} : (memref<8x4xi32>) -> i32
// CHECK-NEXT: %[[D:.*]] = "tp.dot4"(%[[A]], %[[B]]) : (i32, i32) -> i32
// CHECK-NEXT: gpu.yield %[[D]] : i32
func.func @dot4(%A: memref<8xi32>, %B: memref<8x4xi32>, %C: memref<4xi32>) attributes {tp.kernel} {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(j, k) -> (k)>} : (memref<8xi32>) -> i32
    %b = "tp.read"(%B) {map = affine_map<(j, k) -> (k, j)>} : (memref<8x4xi32>) -> i32
    %d = "tp.dot4"(%a, %b) : (i32, i32) -> i32
    gpu.yield %d : i32
  }) {name = "dot", axes = ["j", "k"], kinds = "SR", extents = array<i64: 4, 8>,
      out_map = affine_map<(j, k) -> (j)>, combiner = "add", init = 0 : i32, schedule = {}} : (memref<4xi32>) -> ()
  return
}
