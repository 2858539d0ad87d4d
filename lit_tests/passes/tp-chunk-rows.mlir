// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-chunk-rows{min-bytes=0 chunk-bytes=4096})' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-chunk-rows)' | FileCheck %s --check-prefix=SMALL
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(tp-chunk-rows{chunk-bytes=0})' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: chunk-bytes >= 1

// An attention kernel (2 heads, 64 queries and keys, head size 8): Q·Kᵀ, the softmax's max and
// exp, ·V. The blocks share the heads (s0, s1) and each indexes the query rows at its own row,
// so each gets a loop over chunks of queries right after the heads: 4096 bytes of scores and
// maxima (260 per query) give chunks of 15 rows, which keep most of the two products' register
// tiles (5 of 6 rows, 15 of 16). The chunk loop replaces the parallel loops' last one.
// CHECK-LABEL: func.func @attention
// CHECK: name = "matmul_0"
// CHECK-SAME: order = ["s0", "s1", "s2.0", "s2.1", "k", "s2.2", "s3"], parallel = ["s0", "s1", "s2.0"], tile = {s2 = array<i64: 15, 5>}, unroll = {s2.2 = 5 : i64}, vectorize = "s3"
// CHECK: name = "softmax_max_1"
// CHECK-SAME: order = ["s0", "s1", "s2.0", "s2.1", "r3"], parallel = ["s0", "s1", "s2.0"], tile = {s2 = array<i64: 15>}, vectorize = "r3"
// CHECK: name = "softmax_exp_2"
// CHECK-SAME: order = ["i0", "i1", "i2.0", "i2.1", "i3.0", "i3.1"], parallel = ["i0", "i1", "i2.0"], tile = {i2 = array<i64: 15>, i3 = array<i64: 16>}, vectorize = "i3.1"
// CHECK: name = "matmul_6"
// CHECK-SAME: order = ["s0", "s1", "s2.0", "k", "s2.1", "s3"], parallel = ["s0", "s1", "s2.0"], tile = {s2 = array<i64: 15>}, unroll = {s2.1 = 15 : i64}, vectorize = "s3"
// By default (512 KiB of intermediates per head) these 16 KiB stay whole.
// SMALL-LABEL: func.func @attention
// SMALL: name = "matmul_0"
// SMALL-SAME: order = ["s0", "s1", "s2.0", "k", "s2.1", "s3"], parallel = ["s0", "s1", "s2.0"], tile = {s2 = array<i64: 6>}
func.func @attention(%q: memref<1x2x64x8xf32>, %kt: memref<1x2x8x64xf32>, %v: memref<1x2x64x8xf32>, %out: memref<1x2x64x8xf32>, %ws: memref<?xi8>) attributes {tp.kernel} {
  %c0 = arith.constant 0 : index
  %s = memref.view %ws[%c0][] : memref<?xi8> to memref<1x2x64x64xf32>
  "tp.block"(%s) ({
    %0 = "tp.read"(%q) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d2, d4)>} : (memref<1x2x64x8xf32>) -> f32
    %1 = "tp.read"(%kt) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>} : (memref<1x2x8x64xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["s0", "s1", "s2", "s3", "k"], combiner = "add", extents = array<i64: 1, 2, 64, 64, 8>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "matmul_0", out_map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, schedule = {order = ["s0", "s1", "s2.0", "k", "s2.1", "s3"], parallel = ["s0", "s1", "s2.0"], tile = {s2 = array<i64: 6>}, unroll = {s2.1 = 6 : i64}, vectorize = "s3"}} : (memref<1x2x64x64xf32>) -> ()
  %c16384 = arith.constant 16384 : index
  %m = memref.view %ws[%c16384][] : memref<?xi8> to memref<1x2x64x1xf32>
  "tp.block"(%m) ({
    %0 = "tp.read"(%s) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>} : (memref<1x2x64x64xf32>) -> f32
    gpu.yield %0 : f32
  }) {axes = ["s0", "s1", "s2", "r3"], combiner = "max", extents = array<i64: 1, 2, 64, 64>, init = 0xFF800000 : f32, kinds = "SSSR", name = "softmax_max_1", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, schedule = {order = ["s0", "s1", "s2", "r3"], parallel = ["s0", "s1", "s2"], vectorize = "r3"}} : (memref<1x2x64x1xf32>) -> ()
  "tp.block"(%s) ({
    %0 = "tp.read"(%s) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>} : (memref<1x2x64x64xf32>) -> f32
    %1 = "tp.read"(%m) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>} : (memref<1x2x64x1xf32>) -> f32
    %2 = arith.subf %0, %1 : f32
    %3 = math.exp %2 : f32
    gpu.yield %3 : f32
  }) {axes = ["i0", "i1", "i2", "i3"], combiner = "none", extents = array<i64: 1, 2, 64, 64>, init, kinds = "SSSS", name = "softmax_exp_2", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, schedule = {order = ["i0", "i1", "i2", "i3.0", "i3.1"], parallel = ["i0", "i1", "i2"], tile = {i3 = array<i64: 16>}, vectorize = "i3.1"}} : (memref<1x2x64x64xf32>) -> ()
  "tp.block"(%out) ({
    %0 = "tp.read"(%s) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d2, d4)>} : (memref<1x2x64x64xf32>) -> f32
    %1 = "tp.read"(%v) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>} : (memref<1x2x64x8xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["s0", "s1", "s2", "s3", "k"], combiner = "add", extents = array<i64: 1, 2, 64, 8, 64>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "matmul_6", out_map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, schedule = {order = ["s0", "s1", "s2.0", "k", "s2.1", "s3"], parallel = ["s0", "s1", "s2.0"], tile = {s2 = array<i64: 16>}, unroll = {s2.1 = 16 : i64}, vectorize = "s3"}} : (memref<1x2x64x8xf32>) -> ()
  return
}

// -----

// The consumer vectorizes the rows (dim 1) the blocks would be chunked along after the batch
// they share: its partial last vector is peeled by its own loop, so nothing is chunked.
// CHECK-LABEL: func.func @vectorized_rows
// CHECK: schedule = {order = ["i0", "i1", "i2"], vectorize = "i2"}
// CHECK: schedule = {order = ["j0", "j2", "j1"], vectorize = "j1"}
func.func @vectorized_rows(%a: memref<2x40x40xf32>, %out: memref<2x40x40xf32>, %ws: memref<?xi8>) attributes {tp.kernel} {
  %c0 = arith.constant 0 : index
  %t = memref.view %ws[%c0][] : memref<?xi8> to memref<2x40x40xf32>
  "tp.block"(%t) ({
    %0 = "tp.read"(%a) {map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : (memref<2x40x40xf32>) -> f32
    %1 = math.exp %0 : f32
    gpu.yield %1 : f32
  }) {axes = ["i0", "i1", "i2"], combiner = "none", extents = array<i64: 2, 40, 40>, init, kinds = "SSS", name = "exp", out_map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>, schedule = {order = ["i0", "i1", "i2"], vectorize = "i2"}} : (memref<2x40x40xf32>) -> ()
  "tp.block"(%out) ({
    %0 = "tp.read"(%t) {map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : (memref<2x40x40xf32>) -> f32
    %1 = arith.addf %0, %0 : f32
    gpu.yield %1 : f32
  }) {axes = ["j0", "j1", "j2"], combiner = "none", extents = array<i64: 2, 40, 40>, init, kinds = "SSS", name = "transposed_double", out_map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>, schedule = {order = ["j0", "j2", "j1"], vectorize = "j1"}} : (memref<2x40x40xf32>) -> ()
  return
}

// -----

// The same attention on a run-time number of queries and keys (seq): blocks with run-time
// extents are not chunked (the chunk count would be known only at run time); their
// schedules stay as tp-default-schedule made them.
// CHECK-LABEL: func.func @symbolic_attention
// CHECK: name = "matmul_0"
// CHECK-SAME: schedule = {order = ["s0", "s1", "s3.0", "s2.0", "k", "s2.1", "s3.1"], tile = {s2 = array<i64: 6>, s3 = array<i64: 16>}, unroll = {s2.1 = 6 : i64}, vectorize = "s3.1"}
// CHECK: name = "softmax_max_1"
// CHECK-SAME: schedule = {order = ["s0", "s1", "s2", "r3.0", "r3.1"], tile = {r3 = array<i64: 32>}, vectorize = "r3.1"}
// CHECK: name = "matmul_6"
// CHECK-SAME: schedule = {order = ["s0", "s1", "s2.0", "k", "s2.1", "s3"], tile = {s2 = array<i64: 8>}, unroll = {s2.1 = 8 : i64}, vectorize = "s3"}
#map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d2, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>
#map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
module {
  func.func @symbolic_attention(%arg0: memref<1x2x?x8xf32>, %arg1: memref<1x2x8x?xf32>, %arg2: memref<1x2x?x8xf32>, %arg3: memref<1x2x?x8xf32>, %arg4: memref<1x2x?x?xf32>, %arg5: memref<1x2x?x1xf32>, %arg6: index) attributes {tp.kernel, tp.symbols = ["seq"]} {
    "tp.block"(%arg4) ({
      %0 = "tp.read"(%arg0) {map = #map} : (memref<1x2x?x8xf32>) -> f32
      %1 = "tp.read"(%arg1) {map = #map1} : (memref<1x2x8x?xf32>) -> f32
      %2 = arith.mulf %0, %1 : f32
      gpu.yield %2 : f32
    }) {axes = ["s0", "s1", "s2", "s3", "k"], combiner = "add", extent_exprs = ["", "", "seq", "seq", ""], extents = array<i64: 1, 2, -1, -1, 8>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "matmul_0", out_map = #map2, schedule = {order = ["s0", "s1", "s3.0", "s2.0", "k", "s2.1", "s3.1"], tile = {s2 = array<i64: 6>, s3 = array<i64: 16>}, unroll = {s2.1 = 6 : i64}, vectorize = "s3.1"}} : (memref<1x2x?x?xf32>) -> ()
    "tp.block"(%arg5) ({
      %0 = "tp.read"(%arg4) {map = #map3} : (memref<1x2x?x?xf32>) -> f32
      gpu.yield %0 : f32
    }) {axes = ["s0", "s1", "s2", "r3"], combiner = "max", extent_exprs = ["", "", "seq", "seq"], extents = array<i64: 1, 2, -1, -1>, init = 0xFF800000 : f32, kinds = "SSSR", name = "softmax_max_1", out_map = #map4, schedule = {order = ["s0", "s1", "s2", "r3.0", "r3.1"], tile = {r3 = array<i64: 32>}, vectorize = "r3.1"}} : (memref<1x2x?x1xf32>) -> ()
    "tp.block"(%arg4) ({
      %0 = "tp.read"(%arg4) {map = #map3} : (memref<1x2x?x?xf32>) -> f32
      %1 = "tp.read"(%arg5) {map = #map4} : (memref<1x2x?x1xf32>) -> f32
      %2 = arith.subf %0, %1 : f32
      %3 = math.exp %2 : f32
      gpu.yield %3 : f32
    }) {axes = ["i0", "i1", "i2", "i3"], combiner = "none", extent_exprs = ["", "", "seq", "seq"], extents = array<i64: 1, 2, -1, -1>, init, kinds = "SSSS", name = "softmax_exp_2", out_map = #map3, schedule = {order = ["i0", "i1", "i2", "i3.0", "i3.1"], tile = {i3 = array<i64: 8>}, vectorize = "i3.1"}} : (memref<1x2x?x?xf32>) -> ()
    "tp.block"(%arg3) ({
      %0 = "tp.read"(%arg4) {map = #map} : (memref<1x2x?x?xf32>) -> f32
      %1 = "tp.read"(%arg2) {map = #map1} : (memref<1x2x?x8xf32>) -> f32
      %2 = arith.mulf %0, %1 : f32
      gpu.yield %2 : f32
    }) {axes = ["s0", "s1", "s2", "s3", "k"], combiner = "add", extent_exprs = ["", "", "seq", "", "seq"], extents = array<i64: 1, 2, -1, 8, -1>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "matmul_6", out_map = #map2, schedule = {order = ["s0", "s1", "s2.0", "k", "s2.1", "s3"], tile = {s2 = array<i64: 8>}, unroll = {s2.1 = 8 : i64}, vectorize = "s3"}} : (memref<1x2x?x8xf32>) -> ()
    return
  }
}

// -----

// A 1x1 conv and its bias + relu epilogue at batch 2 (56x56, 64 output channels as 4 blocks of
// 16): they share the image, and one image's output (784 KiB) outgrows `min-bytes`, so the
// channel blocks are chunked. One block (196 KiB) fits `chunk-bytes`, two do not, but a chunk
// of one block would halve the conv's register tile (two blocks): chunks of two, which stay
// within twice `chunk-bytes`.
// SMALL-LABEL: func.func @conv_relu_batch
// SMALL: name = "conv2d_0"
// SMALL-SAME: schedule = {order = ["n", "ocb.0", "oh", "ow.0", "icb", "kh", "kw", "ic", "ow.1", "ocb.1", "oc"], parallel = ["n", "ocb.0"], tile = {ocb = array<i64: 2>, ow = array<i64: 14>}, unroll = {ocb.1 = 2 : i64, ow.1 = 14 : i64}, vectorize = "oc"}
// SMALL: name = "epilogue_1"
// SMALL-SAME: schedule = {order = ["i0", "i1.0", "i1.1", "i2", "i3", "i4"], parallel = ["i0", "i1.0"], tile = {i1 = array<i64: 2>}, vectorize = "i4"}
#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 16 + d4, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d8)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
#map5 = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 16 + d4)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 16, d2, d3, d1 mod 16)>
#map7 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  func.func @conv_relu_batch(%arg0: memref<2x2x56x56x16xf32>, %arg1: memref<4x2x1x1x16x16xf32>, %arg2: memref<64xf32>, %arg3: memref<2x4x56x56x16xf32>) attributes {tp.kernel} {
    "tp.block"(%arg3) ({
      %0 = "tp.read"(%arg0) {map = #map2} : (memref<2x2x56x56x16xf32>) -> f32
      %1 = "tp.read"(%arg1) {map = #map3} : (memref<4x2x1x1x16x16xf32>) -> f32
      %2 = arith.mulf %0, %1 : f32
      gpu.yield %2 : f32
    }) {axes = ["n", "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"], combiner = "add", extents = array<i64: 2, 4, 56, 56, 16, 2, 1, 1, 16>, init = 0.000000e+00 : f32, kinds = "SSSSSRRRR", name = "conv2d_0", out_map = #map4, schedule = {order = ["n", "ocb.0", "oh", "ow.0", "icb", "kh", "kw", "ic", "ow.1", "ocb.1", "oc"], parallel = ["n", "ocb.0", "oh"], tile = {ocb = array<i64: 2>, ow = array<i64: 14>}, unroll = {ocb.1 = 2 : i64, ow.1 = 14 : i64}, vectorize = "oc"}} : (memref<2x4x56x56x16xf32>) -> ()
    "tp.block"(%arg3) ({
      %0 = "tp.read"(%arg3) {map = #map1} : (memref<2x4x56x56x16xf32>) -> f32
      %1 = "tp.read"(%arg2) {map = #map5} : (memref<64xf32>) -> f32
      %2 = arith.addf %0, %1 : f32
      %cst = arith.constant 0.000000e+00 : f32
      %3 = arith.maximumf %2, %cst : f32
      gpu.yield %3 : f32
    }) {axes = ["i0", "i1", "i2", "i3", "i4"], combiner = "none", extents = array<i64: 2, 4, 56, 56, 16>, init, kinds = "SSSSS", name = "epilogue_1", out_map = #map1, schedule = {order = ["i0", "i1", "i2", "i3", "i4"], parallel = ["i0", "i1", "i2"], vectorize = "i4"}} : (memref<2x4x56x56x16xf32>) -> ()
    return
  }
}
