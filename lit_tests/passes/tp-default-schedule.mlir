// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-default-schedule{vector-bits=256})' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-default-schedule{vector-bits=0 parallel=false})' | FileCheck %s --check-prefix=SCALAR
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-default-schedule{threads=2 vector-bits=256})' | FileCheck %s --check-prefix=THREADS2
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-default-schedule{vector-bits=512})' | FileCheck %s --check-prefix=AVX512
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-default-schedule{threads=2 vector-bits=256 parallel-by-reads=false})' | FileCheck %s --check-prefix=ITERS
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-default-schedule{vector-bits=256 l2-bytes=524288})' | FileCheck %s --check-prefix=L2HALF
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(tp-default-schedule{l2-bytes=100})' 2>&1 | FileCheck %s --check-prefix=BADL2
// BADL2: tp-default-schedule: l2-bytes must be at least 16384, got 100
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-default-schedule{threads=2 vector-bits=256 reduce-cost=1.0})' | FileCheck %s --check-prefix=COST1
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(tp-default-schedule{reduce-cost=0})' 2>&1 | FileCheck %s --check-prefix=BADCOST
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-default-schedule{threads=2 vector-bits=256 symbol-hint=512})' | FileCheck %s --check-prefix=HINT
// BADCOST: tp-default-schedule: reduce-cost must be > 0, got 0.0
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(tp-default-schedule{min-parallel-work-in-region=0})' 2>&1 | FileCheck %s --check-prefix=BADREGION
// BADREGION: tp-default-schedule: min-parallel-work-in-region must be >= 1, got 0

// matmul: j (the output's contiguous axis) is vectorized 2 x 8 lanes; i, which the vector read of
// B does not depend on, is unrolled into a 6-row register tile kept across k. Column blocks run
// outside row blocks (each 16-column panel of B stays in cache for all rows); j.0 and i.0 are parallel (8 column panels alone would split unevenly over threads).
// CHECK-LABEL: func.func @matmul
// CHECK: schedule = {order = ["j.0", "i.0", "k", "i.1", "j.1"], parallel = ["j.0", "i.0"], tile = {i = array<i64: 6>, j = array<i64: 16>}, unroll = {i.1 = 6 : i64}, vectorize = "j.1"}
// SCALAR-LABEL: func.func @matmul
// SCALAR: schedule = {order = ["i", "j", "k"]}
func.func @matmul(%A: memref<96x64xf32>, %B: memref<64x128xf32>, %C: memref<96x128xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<96x64xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<64x128xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 96, 128, 64>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<96x128xf32>) -> ()
  return
}

// -----

// Elementwise: vectorized by 8 lanes along the last dim; small blocks stay sequential; blocks
// that already have a schedule keep it.
// CHECK-LABEL: func.func @elementwise
// CHECK: schedule = {order = ["i0", "i1.0", "i1.1"], tile = {i1 = array<i64: 8>}, vectorize = "i1.1"}
// CHECK: schedule = {unroll = {i0 = 2 : i64}}
func.func @elementwise(%A: memref<4x16xf32>, %O: memref<4x16xf32>) {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i0, i1) -> (i0, i1)>} : (memref<4x16xf32>) -> f32
    %e = math.exp %a : f32
    gpu.yield %e : f32
  }) {name = "exp", axes = ["i0", "i1"], kinds = "SS", extents = array<i64: 4, 16>,
      out_map = affine_map<(i0, i1) -> (i0, i1)>, combiner = "none", init, schedule = {}} : (memref<4x16xf32>) -> ()
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i0, i1) -> (i0, i1)>} : (memref<4x16xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "copy", axes = ["i0", "i1"], kinds = "SS", extents = array<i64: 4, 16>,
      out_map = affine_map<(i0, i1) -> (i0, i1)>, combiner = "none", init, schedule = {unroll = {"i0" = 2}}} : (memref<4x16xf32>) -> ()
  return
}

// -----

// A reduction whose output has no contiguous spatial axis (global pooling) keeps scalar
// accumulators.
// CHECK-LABEL: func.func @global_pool
// CHECK: schedule = {order = ["n", "c", "r0", "r1"]}
func.func @global_pool(%X: memref<1x8x7x7xf32>, %O: memref<1x8x1x1xf32>) {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(n, c, r0, r1) -> (n, c, r0, r1)>} : (memref<1x8x7x7xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "gap", axes = ["n", "c", "r0", "r1"], kinds = "SSRR", extents = array<i64: 1, 8, 7, 7>,
      out_map = affine_map<(n, c, r0, r1) -> (n, c, 0, 0)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x8x1x1xf32>) -> ()
  return
}

// -----

// A global pool written to [N, C] (ReduceMean without keepdims): the output's channels are its
// vector axis, but their inputs lie 49 floats apart, so every lane is a scalar load. One
// register of lanes per step, never the whole axis (64 lanes gave LLVM's SLP vectorizer
// 448-load insertelement chains: 6 s on shufflenet_v2's pool).
// CHECK-LABEL: func.func @global_pool_flat
// CHECK: schedule = {order = ["n", "c.0", "r0", "r1", "c.1"], tile = {c = array<i64: 8>}, unroll = {r1 = 7 : i64}, vectorize = "c.1"}
// AVX512-LABEL: func.func @global_pool_flat
// AVX512: schedule = {order = ["n", "c.0", "r0", "r1", "c.1"], tile = {c = array<i64: 16>}, unroll = {r1 = 7 : i64}, vectorize = "c.1"}
func.func @global_pool_flat(%X: memref<1x64x7x7xf32>, %O: memref<1x64xf32>) {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(n, c, r0, r1) -> (n, c, r0, r1)>} : (memref<1x64x7x7xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "gap", axes = ["n", "c", "r0", "r1"], kinds = "SSRR", extents = array<i64: 1, 64, 7, 7>,
      out_map = affine_map<(n, c, r0, r1) -> (n, c)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x64xf32>) -> ()
  return
}

// -----

// A 7x7 feature map cannot be vectorized along its contiguous axis: the output channels are
// (the weights are gathered, the input is shared by the 8 lanes), with ow unrolled.
// CHECK-LABEL: func.func @conv_short_rows
// CHECK: schedule = {order = ["oc.0", "n", "oh", "ic", "kh", "kw", "ow", "oc.1"], tile = {oc = array<i64: 8>}, unroll = {ow = 7 : i64}, vectorize = "oc.1"}
func.func @conv_short_rows(%X: memref<1x16x7x7xf32>, %W: memref<16x16x1x1xf32>, %O: memref<1x16x7x7xf32>) {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(n, oc, oh, ow, ic, kh, kw) -> (n, ic, oh + kh, ow + kw)>} : (memref<1x16x7x7xf32>) -> f32
    %w = "tp.read"(%W) {map = affine_map<(n, oc, oh, ow, ic, kh, kw) -> (oc, ic, kh, kw)>} : (memref<16x16x1x1xf32>) -> f32
    %m = arith.mulf %x, %w : f32
    gpu.yield %m : f32
  }) {name = "conv", axes = ["n", "oc", "oh", "ow", "ic", "kh", "kw"], kinds = "SSSSRRR",
      extents = array<i64: 1, 16, 7, 7, 16, 1, 1>, out_map = affine_map<(n, oc, oh, ow, ic, kh, kw) -> (n, oc, oh, ow)>,
      combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x16x7x7xf32>) -> ()
  return
}

// -----

// Blocked conv (NCHW8c): the 8 output channels of a block are the vector; 4 output columns and
// 2 channel blocks (which only the weights depend on) make an 8-accumulator register tile with
// 6 loads per 8 FMAs; the 8 input channels of a block are unrolled, kw stays a loop.
// CHECK-LABEL: func.func @conv_nchw8c
// CHECK: schedule = {order = ["ocb.0", "n", "oh", "ow.0", "icb", "kh", "kw", "ic", "ow.1", "ocb.1", "oc"], parallel = ["ocb.0", "n", "oh"], tile = {ocb = array<i64: 2>, ow = array<i64: 4>}, unroll = {ic = 8 : i64, ocb.1 = 2 : i64, ow.1 = 4 : i64}, vectorize = "oc"}
func.func @conv_nchw8c(%X: memref<1x4x18x18x8xf32>, %W: memref<4x4x3x3x8x8xf32>, %O: memref<1x4x16x16x8xf32>) {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(n, ocb, oh, ow, oc, icb, kh, kw, ic) -> (n, icb, oh + kh, ow + kw, ic)>} : (memref<1x4x18x18x8xf32>) -> f32
    %w = "tp.read"(%W) {map = affine_map<(n, ocb, oh, ow, oc, icb, kh, kw, ic) -> (ocb, icb, kh, kw, ic, oc)>} : (memref<4x4x3x3x8x8xf32>) -> f32
    %m = arith.mulf %x, %w : f32
    gpu.yield %m : f32
  }) {name = "conv", axes = ["n", "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"], kinds = "SSSSSRRRR",
      extents = array<i64: 1, 4, 16, 16, 8, 4, 3, 3, 8>, out_map = affine_map<(n, ocb, oh, ow, oc, icb, kh, kw, ic) -> (n, ocb, oh, ow, oc)>,
      combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x4x16x16x8xf32>) -> ()
  return
}

// -----

// A depthwise conv: every read is a vector, rows slide along `ow` over the taps `kw`. At most
// 8 rows there, the most useful ones (7 cover 14 exactly). Before, the 24 channel blocks were the
// rows (each a weight load of its own) or 28 pixels spilled the window's inputs: 3x slower.
// AVX512-LABEL: func.func @depthwise
// AVX512: schedule = {order = ["n", "ocb", "oh", "ow.0", "kh", "kw", "ow.1", "oc"], parallel = ["n", "ocb"], tile = {ow = array<i64: 7>}, unroll = {ow.1 = 7 : i64}, vectorize = "oc"}
func.func @depthwise(%X: memref<1x24x16x16x16xf32>, %W: memref<24x1x3x3x1x16xf32>, %O: memref<1x24x14x14x16xf32>) {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(n, ocb, oh, ow, oc, kh, kw) -> (n, ocb, oh + kh, ow + kw, oc)>} : (memref<1x24x16x16x16xf32>) -> f32
    %w = "tp.read"(%W) {map = affine_map<(n, ocb, oh, ow, oc, kh, kw) -> (ocb, 0, kh, kw, 0, oc)>} : (memref<24x1x3x3x1x16xf32>) -> f32
    %m = arith.mulf %x, %w : f32
    gpu.yield %m : f32
  }) {name = "dwconv", axes = ["n", "ocb", "oh", "ow", "oc", "kh", "kw"], kinds = "SSSSSRR",
      extents = array<i64: 1, 24, 14, 14, 16, 3, 3>, out_map = affine_map<(n, ocb, oh, ow, oc, kh, kw) -> (n, ocb, oh, ow, oc)>,
      combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x24x14x14x16xf32>) -> ()
  return
}

// -----

// 512 input channels: the weights of one column block (2 channel blocks x 64 x 3 x 3 x 8 x 8,
// 295 KiB) outgrow L2's share, so the input-channel blocks are split (icb.0 outside the pixels):
// each 16-block slice (74 KiB) stays in cache while every pixel tile uses it. With half the L2
// (Zen 3's 512 KiB) the slices are half as large: 8 blocks, 37 KiB.
// L2HALF-LABEL: func.func @conv_blocked_reduction
// L2HALF: tile = {icb = array<i64: 8>, ocb = array<i64: 2>, ow = array<i64: 4>}
// CHECK-LABEL: func.func @conv_blocked_reduction
// CHECK: schedule = {order = ["ocb.0", "icb.0", "n", "oh", "ow.0", "icb.1", "kh", "kw", "ic", "ow.1", "ocb.1", "oc"], parallel = ["ocb.0"], tile = {icb = array<i64: 16>, ocb = array<i64: 2>, ow = array<i64: 4>}, unroll = {ic = 8 : i64, ocb.1 = 2 : i64, ow.1 = 4 : i64}, vectorize = "oc"}
// SCALAR-LABEL: func.func @conv_blocked_reduction
// SCALAR-NOT: icb.0
func.func @conv_blocked_reduction(%X: memref<1x64x10x10x8xf32>, %W: memref<32x64x3x3x8x8xf32>, %O: memref<1x32x8x8x8xf32>) {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(n, ocb, oh, ow, oc, icb, kh, kw, ic) -> (n, icb, oh + kh, ow + kw, ic)>} : (memref<1x64x10x10x8xf32>) -> f32
    %w = "tp.read"(%W) {map = affine_map<(n, ocb, oh, ow, oc, icb, kh, kw, ic) -> (ocb, icb, kh, kw, ic, oc)>} : (memref<32x64x3x3x8x8xf32>) -> f32
    %m = arith.mulf %x, %w : f32
    gpu.yield %m : f32
  }) {name = "conv", axes = ["n", "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"], kinds = "SSSSSRRRR",
      extents = array<i64: 1, 32, 8, 8, 8, 64, 3, 3, 8>, out_map = affine_map<(n, ocb, oh, ow, oc, icb, kh, kw, ic) -> (n, ocb, oh, ow, oc)>,
      combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x32x8x8x8xf32>) -> ()
  return
}

// -----

// A matrix-vector product has no row to unroll: 8 vectors along the output make the
// independent accumulators instead.
// CHECK-LABEL: func.func @gemv
// CHECK: schedule = {order = ["s1.0", "s0", "k", "s1.1"], parallel = ["s1.0", "s0"], tile = {s1 = array<i64: 64>}, vectorize = "s1.1"}
func.func @gemv(%A: memref<1x256xf32>, %B: memref<256x512xf32>, %C: memref<1x512xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(s0, s1, k) -> (s0, k)>} : (memref<1x256xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(s0, s1, k) -> (k, s1)>} : (memref<256x512xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "dense", axes = ["s0", "s1", "k"], kinds = "SSR", extents = array<i64: 1, 512, 256>,
      out_map = affine_map<(s0, s1, k) -> (s0, s1)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x512xf32>) -> ()
  return
}

// -----

// A matrix-vector product over a 4 MiB matrix streams it: k outer, so the matrix is read row by
// row in memory order and the output is updated in memory (in L1); with 2 threads each thread
// takes one slice of columns (125 vectors do not split in 2: 5 slices of 200, chunked 3 + 2).
// CHECK-LABEL: func.func @gemv_streaming
// CHECK: schedule = {order = ["s0", "k", "s1.0", "s1.1"], tile = {s1 = array<i64: 8>}, vectorize = "s1.1"}
// THREADS2-LABEL: func.func @gemv_streaming
// THREADS2: schedule = {order = ["s1.0", "s0", "k", "s1.1", "s1.2"], parallel = ["s1.0"], tile = {s1 = array<i64: 200, 8>}, vectorize = "s1.2"}
func.func @gemv_streaming(%A: memref<1x1024xf32>, %B: memref<1024x1000xf32>, %C: memref<1x1000xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(s0, s1, k) -> (s0, k)>} : (memref<1x1024xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(s0, s1, k) -> (k, s1)>} : (memref<1024x1000xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "dense", axes = ["s0", "s1", "k"], kinds = "SSR", extents = array<i64: 1, 1000, 1024>,
      out_map = affine_map<(s0, s1, k) -> (s0, s1)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x1000xf32>) -> ()
  return
}

// -----

// graph-split-gemv's form: a batch of two matrix-vector products, each over its own block of
// 512 rows (2 MiB): one block per thread, each streamed in memory order.
// CHECK-LABEL: func.func @gemv_row_blocks
// CHECK: schedule = {order = ["s0", "s1", "k", "s2.0", "s2.1"], tile = {s2 = array<i64: 8>}, vectorize = "s2.1"}
// THREADS2-LABEL: func.func @gemv_row_blocks
// THREADS2: schedule = {order = ["s0", "s1", "k", "s2.0", "s2.1"], parallel = ["s0"], tile = {s2 = array<i64: 8>}, vectorize = "s2.1"}
func.func @gemv_row_blocks(%A: memref<2x1x512xf32>, %B: memref<2x512x1024xf32>, %C: memref<2x1x1024xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(s0, s1, s2, k) -> (s0, s1, k)>} : (memref<2x1x512xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(s0, s1, s2, k) -> (s0, k, s2)>} : (memref<2x512x1024xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "dense", axes = ["s0", "s1", "s2", "k"], kinds = "SSSR", extents = array<i64: 2, 1, 1024, 512>,
      out_map = affine_map<(s0, s1, s2, k) -> (s0, s1, s2)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<2x1x1024xf32>) -> ()
  return
}

// -----

// The vector read of A is the only read using s1, so s1 is both the fallback row and the only
// companion candidate (a 4-D x 1-D matmul): it is unrolled once, not twice.
// CHECK-LABEL: func.func @row_is_companion
// CHECK: schedule = {order = ["s0", "k", "s1", "s2"], unroll = {k = 3 : i64, s1 = 2 : i64}, vectorize = "s2"}
func.func @row_is_companion(%A: memref<1x2x4x3xf32>, %B: memref<3xf32>, %C: memref<1x2x4xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(s0, s1, s2, k) -> (s0, s1, s2, k)>} : (memref<1x2x4x3xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(s0, s1, s2, k) -> (k)>} : (memref<3xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["s0", "s1", "s2", "k"], kinds = "SSSR", extents = array<i64: 1, 2, 4, 3>,
      out_map = affine_map<(s0, s1, s2, k) -> (s0, s1, s2)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x2x4xf32>) -> ()
  return
}

// -----

// AVX-512 (32 registers of 16 floats): an attention product whose sizes 16 does not divide.
// The register tile is 6 rows x 4 vectors (24 accumulators); the last row tile is partial
// (197 = 32 x 6 + 5, guarded) and so is the last column tile (197 = 3 x 64 + 5: the lowering
// peels it onto narrower vectors). Both operands depend on the head axis s0: it goes first,
// where the softmax and the product by V of an attention kernel share it (row fusion).
// AVX512-LABEL: func.func @attention_scores
// AVX512: schedule = {order = ["s0", "s2.0", "s1.0", "k", "s1.1", "s2.1"], parallel = ["s0", "s2.0"], tile = {s1 = array<i64: 6>, s2 = array<i64: 64>}, unroll = {s1.1 = 6 : i64}, vectorize = "s2.1"}
func.func @attention_scores(%Q: memref<6x197x64xf32>, %K: memref<6x64x197xf32>, %S: memref<6x197x197xf32>) {
  "tp.block"(%S) ({
    %q = "tp.read"(%Q) {map = affine_map<(s0, s1, s2, k) -> (s0, s1, k)>} : (memref<6x197x64xf32>) -> f32
    %k = "tp.read"(%K) {map = affine_map<(s0, s1, s2, k) -> (s0, k, s2)>} : (memref<6x64x197xf32>) -> f32
    %m = arith.mulf %q, %k : f32
    gpu.yield %m : f32
  }) {name = "scores", axes = ["s0", "s1", "s2", "k"], kinds = "SSSR", extents = array<i64: 6, 197, 197, 64>,
      out_map = affine_map<(s0, s1, s2, k) -> (s0, s1, s2)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<6x197x197xf32>) -> ()
  return
}

// -----

// Scatter blocks run sequentially (their points may write the same position, in order); one
// whose last output position is its last axis writes consecutive elements per vector: it is
// vectorized along that axis. One whose last position is loaded stays scalar.
// CHECK-LABEL: func.func @scatter
// CHECK: name = "scatter_rows", out_map = #{{.*}}, schedule = {tile = {j = array<i64: 8>}, vectorize = "j.1"}
// CHECK: name = "scatter_columns", out_map = #{{.*}}, schedule = {}
func.func @scatter(%U: memref<256x512xf32>, %I: memref<256xi64>, %J: memref<256x512xi64>, %O: memref<300x512xf32>) {
  "tp.block"(%O) ({
    %u = "tp.read"(%U) {map = affine_map<(i, j) -> (i, j)>} : (memref<256x512xf32>) -> f32
    %i = "tp.read"(%I) {map = affine_map<(i, j) -> (i)>} : (memref<256xi64>) -> i64
    %row = arith.index_cast %i : i64 to index
    %j = "tp.index"() {axis = "j"} : () -> index
    gpu.yield %u, %row, %j : f32, index, index
  }) {name = "scatter_rows", axes = ["i", "j"], kinds = "SS", extents = array<i64: 256, 512>,
      out_map = affine_map<(i, j) -> ()>, combiner = "none", init, schedule = {}} : (memref<300x512xf32>) -> ()
  "tp.block"(%O) ({
    %u = "tp.read"(%U) {map = affine_map<(i, j) -> (i, j)>} : (memref<256x512xf32>) -> f32
    %i = "tp.index"() {axis = "i"} : () -> index
    %c = "tp.read"(%J) {map = affine_map<(i, j) -> (i, j)>} : (memref<256x512xi64>) -> i64
    %col = arith.index_cast %c : i64 to index
    gpu.yield %u, %i, %col : f32, index, index
  }) {name = "scatter_columns", axes = ["i", "j"], kinds = "SS", extents = array<i64: 256, 512>,
      out_map = affine_map<(i, j) -> ()>, combiner = "add", init, schedule = {}} : (memref<300x512xf32>) -> ()
  return
}

// -----

// A row reduction (a softmax's sum) whose output has no vector axis: the reduce axis, contiguous
// in the read, is vectorized; its lanes (four registers: independent chains of adds) hold partial
// sums combined once per row.
// CHECK-LABEL: func.func @row_sums
// CHECK: schedule = {order = ["i", "z", "k.0", "k.1"], parallel = ["i"], tile = {k = array<i64: 32>}, vectorize = "k.1"}
// AVX512-LABEL: func.func @row_sums
// AVX512: schedule = {order = ["i", "z", "k.0", "k.1"], parallel = ["i"], tile = {k = array<i64: 64>}, vectorize = "k.1"}
func.func @row_sums(%X: memref<1024x197xf32>, %O: memref<1024x1xf32>) {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(i, z, k) -> (i, k)>} : (memref<1024x197xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "sum", axes = ["i", "z", "k"], kinds = "SSR", extents = array<i64: 1024, 1, 197>,
      out_map = affine_map<(i, z, k) -> (i, z)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1024x1xf32>) -> ()
  return
}

// -----

// A batch of matrix-vector products ([T, M, K] x [T, K, 1], a mixture of experts' routed
// tokens): the vector's trailing unit dim leaves it contiguous along k, so this is a row
// reduction of both reads. Vectorizing the output's rows gathered A's lanes K floats apart
// (Mixtral-like: 0.15x onnxruntime).
// AVX512-LABEL: func.func @batched_matvec
// AVX512: schedule = {order = ["s0", "s1", "s2", "k.0", "k.1"], parallel = ["s0", "s1"], tile = {k = array<i64: 64>}, vectorize = "k.1"}
func.func @batched_matvec(%A: memref<8x96x256xf32>, %B: memref<8x256x1xf32>, %C: memref<8x96x1xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(s0, s1, s2, k) -> (s0, s1, k)>} : (memref<8x96x256xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(s0, s1, s2, k) -> (s0, k, s2)>} : (memref<8x256x1xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["s0", "s1", "s2", "k"], kinds = "SSSR", extents = array<i64: 8, 96, 1, 256>,
      out_map = affine_map<(s0, s1, s2, k) -> (s0, s1, s2)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<8x96x1xf32>) -> ()
  return
}

// -----

// Parallel loops only for blocks worth a parallel region (2^17 iterations): 256x256 elements
// (2 us on one thread) stay sequential, 512x256 run in parallel over rows.
// THREADS2-LABEL: func.func @parallel_threshold
// THREADS2: name = "small", out_map = #{{.*}}, schedule = {order = ["i", "j.0", "j.1"], tile = {j = array<i64: 8>}, vectorize = "j.1"}
// THREADS2-LABEL: func.func @parallel_threshold_large
// THREADS2: name = "large", out_map = #{{.*}}, schedule = {order = ["i", "j.0", "j.1"], parallel = ["i"], tile = {j = array<i64: 8>}, vectorize = "j.1"}
func.func @parallel_threshold(%A: memref<512x256xf32>, %S: memref<256x256xf32>) {
  "tp.block"(%S) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j) -> (i, j)>} : (memref<512x256xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "small", axes = ["i", "j"], kinds = "SS", extents = array<i64: 256, 256>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {}} : (memref<256x256xf32>) -> ()
  return
}
func.func @parallel_threshold_large(%A: memref<512x256xf32>, %L: memref<512x256xf32>) {
  "tp.block"(%L) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j) -> (i, j)>} : (memref<512x256xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "large", axes = ["i", "j"], kinds = "SS", extents = array<i64: 512, 256>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {}} : (memref<512x256xf32>) -> ()
  return
}

// A map whose vectors gather a read lane by lane (a transpose's input: a column of A per
// vector) counts GATHERED_READ_COST per element: BERT's Kᵀ, 2^16 elements, took 175 us on one
// thread (a relu of that size: 5 us) and now runs on the threads; the same copy without the
// transpose stays serial. The loop along the input's rows (d) goes inside the vector tiles
// (t.0): a tile of vectors then reads the same 8 lines of A (2 KiB apart, two L1 sets) for
// every d, not 128 of them; 175 -> 14 us on one thread.
// THREADS2-LABEL: func.func @gathered_transpose
// THREADS2: name = "transpose", out_map = #{{.*}}, schedule = {order = ["h", "t.0", "d", "t.1"], parallel = ["h", "t.0"], tile = {t = array<i64: 8>}, vectorize = "t.1"}
// THREADS2: name = "copy", out_map = #{{.*}}, schedule = {order = ["t", "c.0", "c.1"], tile = {c = array<i64: 8>}, vectorize = "c.1"}
func.func @gathered_transpose(%A: memref<128x512xf32>, %T: memref<8x64x128xf32>, %C: memref<128x512xf32>) {
  "tp.block"(%T) ({
    %a = "tp.read"(%A) {map = affine_map<(h, d, t) -> (t, h * 64 + d)>} : (memref<128x512xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "transpose", axes = ["h", "d", "t"], kinds = "SSS", extents = array<i64: 8, 64, 128>,
      out_map = affine_map<(h, d, t) -> (h, d, t)>, combiner = "none", init, schedule = {}} : (memref<8x64x128xf32>) -> ()
  return
}
func.func @gathered_copy(%A: memref<128x512xf32>, %C: memref<128x512xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(t, c) -> (t, c)>} : (memref<128x512xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "copy", axes = ["t", "c"], kinds = "SS", extents = array<i64: 128, 512>,
      out_map = affine_map<(t, c) -> (t, c)>, combiner = "none", init, schedule = {}} : (memref<128x512xf32>) -> ()
  return
}

// -----

// A kernel that forks for one block runs its other blocks of 2^14 iterations or more on the
// threads too (min-parallel-work-in-region): inside the kernel's one region a serial block
// costs the same barrier and leaves the other thread waiting. 64x64 elements stay serial.
// THREADS2-LABEL: func.func @joins_the_region
// THREADS2: name = "small", out_map = #{{.*}}, schedule = {order = ["i", "j.0", "j.1"], parallel = ["i"], tile = {j = array<i64: 8>}, vectorize = "j.1"}
// THREADS2: name = "tiny", out_map = #{{.*}}, schedule = {order = ["i", "j.0", "j.1"], tile = {j = array<i64: 8>}, vectorize = "j.1"}
// THREADS2: name = "large", out_map = #{{.*}}, schedule = {order = ["i", "j.0", "j.1"], parallel = ["i"], tile = {j = array<i64: 8>}, vectorize = "j.1"}
func.func @joins_the_region(%A: memref<512x256xf32>, %S: memref<256x256xf32>, %T: memref<64x64xf32>, %L: memref<512x256xf32>) {
  "tp.block"(%S) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j) -> (i, j)>} : (memref<512x256xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "small", axes = ["i", "j"], kinds = "SS", extents = array<i64: 256, 256>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {}} : (memref<256x256xf32>) -> ()
  "tp.block"(%T) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j) -> (i, j)>} : (memref<512x256xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "tiny", axes = ["i", "j"], kinds = "SS", extents = array<i64: 64, 64>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {}} : (memref<64x64xf32>) -> ()
  "tp.block"(%L) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j) -> (i, j)>} : (memref<512x256xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "large", axes = ["i", "j"], kinds = "SS", extents = array<i64: 512, 256>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {}} : (memref<512x256xf32>) -> ()
  return
}

// -----

// A 1x1 conv on a batch of 4 images (256 -> 128 channels at 56x56): its weights (128 KiB) are
// smaller than one image (3 MiB), so the images go outermost and each image's input streams
// from cache once per column block. With the column blocks outermost, every column block
// streamed all four images (12.8 MB) from memory: 0.4x onnxruntime.
// AVX512-LABEL: func.func @images_first
// AVX512: schedule = {order = ["n", "ocb.0", "oh", "ow.0", "icb", "kh", "kw", "ic", "ow.1", "ocb.1", "oc"]
func.func @images_first(%x: memref<4x16x56x56x16xf32>, %w: memref<8x16x1x1x16x16xf32>, %y: memref<4x8x56x56x16xf32>) {
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d8)>} : (memref<4x16x56x56x16xf32>) -> f32
    %b = "tp.read"(%w) {map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>} : (memref<8x16x1x1x16x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "conv", axes = ["n", "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"], kinds = "SSSSSRRRR", extents = array<i64: 4, 8, 56, 56, 16, 16, 1, 1, 16>,
      out_map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<4x8x56x56x16xf32>) -> ()
  return
}

// -----

// 3x3 conv, 128 channels at 28x28, batch 4: the weights (576 KiB) outweigh one image, but the
// four images' inputs (1.8 MiB) outgrow L2 while one (460 KiB) fits half of it: images first,
// so each column block reads its image from L2, not all four from L3 (0.81x -> 1.00x
// onnxruntime). Batch 1 keeps the column blocks outermost.
// AVX512-LABEL: func.func @images_first_3x3
// AVX512: schedule = {order = ["n", "ocb.0", "oh", "ow.0", "icb", "kh", "kw", "ic", "ow.1", "ocb.1", "oc"]
func.func @images_first_3x3(%x: memref<4x8x30x30x16xf32>, %w: memref<8x8x3x3x16x16xf32>, %y: memref<4x8x28x28x16xf32>) {
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d8)>} : (memref<4x8x30x30x16xf32>) -> f32
    %b = "tp.read"(%w) {map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>} : (memref<8x8x3x3x16x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "conv", axes = ["n", "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"], kinds = "SSSSSRRRR", extents = array<i64: 4, 8, 28, 28, 16, 8, 3, 3, 16>,
      out_map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<4x8x28x28x16xf32>) -> ()
  return
}

// -----

// A matmul's rows are not images: X (361 x 728, 1 MiB) outgrows L2 but one row (2.9 KiB) is
// far below an image, so the column blocks stay outermost. Taking the rows for images put them
// first, and every 6-row tile streamed all of B (2 MiB): 2 threads ran slower than one.
// AVX512-LABEL: func.func @rows_are_not_images
// AVX512: schedule = {order = ["s1.0", "s0.0", "k", "s0.1", "s1.1"]
func.func @rows_are_not_images(%A: memref<361x728xf32>, %B: memref<728x728xf32>, %C: memref<361x728xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(s0, s1, k) -> (s0, k)>} : (memref<361x728xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(s0, s1, k) -> (k, s1)>} : (memref<728x728xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["s0", "s1", "k"], kinds = "SSR", extents = array<i64: 361, 728, 728>,
      out_map = affine_map<(s0, s1, k) -> (s0, s1)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<361x728xf32>) -> ()
  return
}

// -----

// A 1x1 conv 1024 -> 256 at 64x64 (SegFormer's decode head): its input (16 MiB) outgrows what
// the caches keep between column blocks, its weights (1 MiB) do not. Rows outside the columns:
// each pixel tile is read once and every column block re-reads the weights from cache (45.7 ->
// 17.0 ms; columns outermost streamed the input from memory 8 times, 0.34x onnxruntime).
// AVX512-LABEL: func.func @rows_first
// AVX512: schedule = {order = ["n", "oh", "ow.0", "ocb.0", "icb", "kh", "kw", "ic", "ow.1", "ocb.1", "oc"]
func.func @rows_first(%x: memref<1x64x64x64x16xf32>, %w: memref<16x64x1x1x16x16xf32>, %y: memref<1x16x64x64x16xf32>) {
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d8)>} : (memref<1x64x64x64x16xf32>) -> f32
    %b = "tp.read"(%w) {map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>} : (memref<16x64x1x1x16x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "conv", axes = ["n", "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"], kinds = "SSSSSRRRR", extents = array<i64: 1, 16, 64, 64, 16, 64, 1, 1, 16>,
      out_map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x16x64x64x16xf32>) -> ()
  return
}

// -----

// 3x3 conv 256 -> 256 at 64x64: each column block's weights (295 KiB) would have the reduction
// blocked (as @conv_blocked_reduction), but the input (4.3 MiB) is larger still: rows first and
// no slices, since every slice would re-stream the input and the output (76.6 -> 25.1 ms).
// AVX512-LABEL: func.func @rows_first_not_sliced
// AVX512: schedule = {order = ["n", "oh", "ow.0", "ocb.0", "icb", "kh", "kw", "ic", "ow.1", "ocb.1", "oc"]
func.func @rows_first_not_sliced(%x: memref<1x16x66x66x16xf32>, %w: memref<16x16x3x3x16x16xf32>, %y: memref<1x16x64x64x16xf32>) {
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d8)>} : (memref<1x16x66x66x16xf32>) -> f32
    %b = "tp.read"(%w) {map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>} : (memref<16x16x3x3x16x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "conv", axes = ["n", "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"], kinds = "SSSSSRRRR", extents = array<i64: 1, 16, 64, 64, 16, 16, 3, 3, 16>,
      out_map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x16x64x64x16xf32>) -> ()
  return
}

// -----

// P·V over 1024 keys with 8 columns (attention with heads of 8): one vector per row, so the
// register tile would take 27 rows, whose broadcasts of P lie 4 KiB apart, in one set of the
// 12-way L1. The rows stop at 8.
// AVX512-LABEL: func.func @aliased_rows
// AVX512: tile = {i = array<i64: 8>}, unroll = {i.1 = 8 : i64}, vectorize = "j"
func.func @aliased_rows(%P: memref<64x1024xf32>, %V: memref<1024x8xf32>, %O: memref<64x8xf32>) {
  "tp.block"(%O) ({
    %p = "tp.read"(%P) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<64x1024xf32>) -> f32
    %v = "tp.read"(%V) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<1024x8xf32>) -> f32
    %m = arith.mulf %p, %v : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 64, 8, 1024>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<64x8xf32>) -> ()
  return
}

// -----

// The same product with 4 columns: a 16-lane vector along the rows would gather P's elements
// 4 KiB apart, all in one L1 set, so the columns take 4-lane vectors (and the rows a register
// tile of at most 8). Heads of 4 over 1024 tokens: 0.78 -> 1.13x onnxruntime.
// AVX512-LABEL: func.func @no_aliased_gather
// AVX512: tile = {i = array<i64: 8>}, unroll = {i.1 = 8 : i64}, vectorize = "j"
func.func @no_aliased_gather(%P: memref<64x1024xf32>, %V: memref<1024x4xf32>, %O: memref<64x4xf32>) {
  "tp.block"(%O) ({
    %p = "tp.read"(%P) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<64x1024xf32>) -> f32
    %v = "tp.read"(%V) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<1024x4xf32>) -> f32
    %m = arith.mulf %p, %v : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 64, 4, 1024>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<64x4xf32>) -> ()
  return
}

// -----

// A grouped 1x1 conv in NCHW (68 channels per group: no channel blocks): the pixels go on two
// vectors and the group's output channels (`oc`, which the input's vector read does not use)
// are the register tile's rows: five rows share each input vector.
// CHECK-LABEL: func.func @grouped_conv
// CHECK: schedule = {order = ["n", "oh", "ow.0", "g", "oc.0", "ic", "kh", "kw", "oc.1", "ow.1"], parallel = {{.*}}, tile = {oc = array<i64: 5>, ow = array<i64: 16>}, unroll = {kw = 1 : i64, oc.1 = 5 : i64}, vectorize = "ow.1"}
func.func @grouped_conv(%X: memref<1x272x1x196xf32>, %W: memref<272x68x1x1xf32>, %Y: memref<1x272x1x196xf32>) {
  "tp.block"(%Y) ({
    %x = "tp.read"(%X) {map = affine_map<(n, g, oc, oh, ow, ic, kh, kw) -> (n, g * 68 + ic, oh + kh, ow + kw)>} : (memref<1x272x1x196xf32>) -> f32
    %w = "tp.read"(%W) {map = affine_map<(n, g, oc, oh, ow, ic, kh, kw) -> (g * 68 + oc, ic, kh, kw)>} : (memref<272x68x1x1xf32>) -> f32
    %m = arith.mulf %x, %w : f32
    gpu.yield %m : f32
  }) {name = "conv2d", axes = ["n", "g", "oc", "oh", "ow", "ic", "kh", "kw"], kinds = "SSSSSRRR", extents = array<i64: 1, 4, 68, 1, 196, 68, 1, 1>,
      out_map = affine_map<(n, g, oc, oh, ow, ic, kh, kw) -> (n, g * 68 + oc, oh, ow)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x272x1x196xf32>) -> ()
  return
}

// -----

// A product of packed weight panels (16 columns each) written back to rows: the output's unit
// stride is `j` of `p * 16 + j`, so `j` is the vector axis, and the whole panel (two registers,
// one 64-byte line per k step) is the register tile's width rather than two panels' halves.
// CHECK-LABEL: func.func @packed_panels
// CHECK: schedule = {order = ["p", "i.0", "k", "i.1", "j"], parallel = {{.*}}, tile = {i = array<i64: 6>}, unroll = {i.1 = 6 : i64}, vectorize = "j"}
func.func @packed_panels(%A: memref<96x64xf32>, %B: memref<8x64x16xf32>, %C: memref<96x128xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(p, i, j, k) -> (i, k)>} : (memref<96x64xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(p, i, j, k) -> (p, k, j)>} : (memref<8x64x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["p", "i", "j", "k"], kinds = "SSSR", extents = array<i64: 8, 96, 16, 64>,
      out_map = affine_map<(p, i, j, k) -> (i, p * 16 + j)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<96x128xf32>) -> ()
  return
}

// -----

// Maps with 4 or more reads are parallel by their reads, not only their iterations: two blocks
// of 8192 iterations, one summing 16 inputs (131072 reads: parallel), one copying 1
// (sequential); by iterations alone (ITERS) both are sequential.
// THREADS2-LABEL: func.func @work_by_reads
// THREADS2: name = "sum16", out_map = #{{[a-z0-9]+}}, schedule = {order = ["i", "j.0", "j.1"], parallel = ["i"], tile
// THREADS2: name = "copy", out_map = #{{[a-z0-9]+}}, schedule = {order = ["i", "j.0", "j.1"], tile
// ITERS-LABEL: func.func @work_by_reads
// ITERS: name = "sum16", out_map = #{{[a-z0-9]+}}, schedule = {order = ["i", "j.0", "j.1"], tile
func.func @work_by_reads(%X: memref<64x8x128xf32>, %Y: memref<64x128xf32>) {
  "tp.block"(%Y) ({
    %0 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 0, j)>} : (memref<64x8x128xf32>) -> f32
    %1 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 1, j)>} : (memref<64x8x128xf32>) -> f32
    %2 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 2, j)>} : (memref<64x8x128xf32>) -> f32
    %3 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 3, j)>} : (memref<64x8x128xf32>) -> f32
    %4 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 4, j)>} : (memref<64x8x128xf32>) -> f32
    %5 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 5, j)>} : (memref<64x8x128xf32>) -> f32
    %6 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 6, j)>} : (memref<64x8x128xf32>) -> f32
    %7 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 7, j)>} : (memref<64x8x128xf32>) -> f32
    %8 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 0, j)>} : (memref<64x8x128xf32>) -> f32
    %9 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 1, j)>} : (memref<64x8x128xf32>) -> f32
    %10 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 2, j)>} : (memref<64x8x128xf32>) -> f32
    %11 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 3, j)>} : (memref<64x8x128xf32>) -> f32
    %12 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 4, j)>} : (memref<64x8x128xf32>) -> f32
    %13 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 5, j)>} : (memref<64x8x128xf32>) -> f32
    %14 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 6, j)>} : (memref<64x8x128xf32>) -> f32
    %15 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 7, j)>} : (memref<64x8x128xf32>) -> f32
    %a0 = arith.addf %0, %1 : f32
    %a1 = arith.addf %a0, %2 : f32
    %a2 = arith.addf %a1, %3 : f32
    %a3 = arith.addf %a2, %4 : f32
    %a4 = arith.addf %a3, %5 : f32
    %a5 = arith.addf %a4, %6 : f32
    %a6 = arith.addf %a5, %7 : f32
    %a7 = arith.addf %a6, %8 : f32
    %a8 = arith.addf %a7, %9 : f32
    %a9 = arith.addf %a8, %10 : f32
    %a10 = arith.addf %a9, %11 : f32
    %a11 = arith.addf %a10, %12 : f32
    %a12 = arith.addf %a11, %13 : f32
    %a13 = arith.addf %a12, %14 : f32
    %a14 = arith.addf %a13, %15 : f32
    gpu.yield %a14 : f32
  }) {name = "sum16", axes = ["i", "j"], kinds = "SS", extents = array<i64: 64, 128>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {}} : (memref<64x128xf32>) -> ()
  "tp.block"(%Y) ({
    %0 = "tp.read"(%X) {map = affine_map<(i, j) -> (i, 0, j)>} : (memref<64x8x128xf32>) -> f32
    gpu.yield %0 : f32
  }) {name = "copy", axes = ["i", "j"], kinds = "SS", extents = array<i64: 64, 128>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {}} : (memref<64x128xf32>) -> ()
  return
}

// -----

// An SE block's global pool (12 channel blocks of 8 over 56 x 56 pixels): its register tile
// would hold every output and leave no loop to split; with threads it holds a thread's share
// (6 channel blocks) and the threads split the two tiles.
// CHECK-LABEL: func.func @se_pool
// CHECK: schedule = {order = ["s0", "r2.0", "r2.1", "r3", "s1", "s4"], tile = {r2 = array<i64: 4>}, unroll = {s1 = 12 : i64}, vectorize = "s4"}
// THREADS2-LABEL: func.func @se_pool
// THREADS2: schedule = {order = ["s0", "s1.0", "r2.0", "r2.1", "r3", "s1.1", "s4"], parallel = ["s0", "s1.0"], tile = {r2 = array<i64: 8>, s1 = array<i64: 6>}, unroll = {s1.1 = 6 : i64}, vectorize = "s4"}
func.func @se_pool(%X: memref<1x12x56x56x8xf32>, %O: memref<1x12x1x1x8xf32>) {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(s0, s1, s4, r2, r3) -> (s0, s1, r2, r3, s4)>} : (memref<1x12x56x56x8xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "reduce_mean", axes = ["s0", "s1", "s4", "r2", "r3"], kinds = "SSSRR", extents = array<i64: 1, 12, 8, 56, 56>,
      out_map = affine_map<(s0, s1, s4, r2, r3) -> (s0, s1, 0, 0, s4)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<1x12x1x1x8xf32>) -> ()
  return
}

// -----

// Too little work to split: 64 x 64 x 48 multiply-adds (196K iterations, about 4 us on one
// core) count half as much as a map's elements (reduce-cost): under min-parallel-work, the
// block stays serial; counted one for one, it would go parallel.
// THREADS2-LABEL: func.func @small_matmul
// THREADS2: schedule = {order = ["j.0", "i.0", "k", "i.1", "j.1"], tile = {i = array<i64: 6>, j = array<i64: 16>}, unroll = {i.1 = 6 : i64}, vectorize = "j.1"}
// COST1-LABEL: func.func @small_matmul
// COST1: schedule = {order = ["j.0", "i.0", "k", "i.1", "j.1"], parallel = ["j.0", "i.0"],
func.func @small_matmul(%A: memref<64x48xf32>, %B: memref<48x64xf32>, %C: memref<64x64xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<64x48xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<48x64xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 64, 64, 48>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<64x64xf32>) -> ()
  return
}

// -----

// A batched matmul whose batch and rows are run-time sizes (`extent_exprs`), scheduled at the
// sample sizes: the batch loop may run once (a batch of 1), so the parallel nest does not stop
// at it but takes the row tiles too (after the column blocks, which go first).
// THREADS2-LABEL: func.func @symbolic_batch_matmul
// THREADS2: extent_exprs = ["batch", "seq", "", ""]
// THREADS2-SAME: parallel = ["j.0", "b", "i.0"]
func.func @symbolic_batch_matmul(%A: memref<?x?x64xf32>, %B: memref<64x128xf32>, %C: memref<?x?x128xf32>, %batch: index, %seq: index) attributes {tp.kernel, tp.symbols = ["batch", "seq"]} {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(b, i, j, k) -> (b, i, k)>} : (memref<?x?x64xf32>) -> f32
    %w = "tp.read"(%B) {map = affine_map<(b, i, j, k) -> (k, j)>} : (memref<64x128xf32>) -> f32
    %m = arith.mulf %a, %w : f32
    gpu.yield %m : f32
  }) {name = "bmm", axes = ["b", "i", "j", "k"], kinds = "SSSR", extents = array<i64: -1, -1, 128, 64>,
      extent_exprs = ["batch", "seq", "", ""],
      out_map = affine_map<(b, i, j, k) -> (b, i, j)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<?x?x128xf32>) -> ()
  return
}

// -----

// Extents known only at run time (`extent_exprs`, -1 in extents): the schedule is chosen on
// the sizes `symbol-hint` gives the symbols (64 by default). The static axis j is vectorized;
// the run-time rows n stay one loop. The product tiles its run-time rows s1 by 8 with a
// register tile (the loops run a remainder tile at run time); at seq = 64 it has too little
// work for two threads, so with two its outer loops run in parallel only from the iteration
// count that has enough (parallel_from, decided per call); at the hint 512 always.
// CHECK-LABEL: func.func @symbolic_extents
// CHECK: extent_exprs = ["n", ""]{{.*}}name = "relu_0"{{.*}}schedule = {order = ["i", "j.0", "j.1"], tile = {j = array<i64: 8>}, vectorize = "j.1"}
// CHECK: extent_exprs = ["", "seq", "", "seq"]{{.*}}name = "matmul_0"{{.*}}schedule = {order = ["s0", "s1.0", "k", "s1.1", "s2"], tile = {s1 = array<i64: 13>}, unroll = {s1.1 = 13 : i64}, vectorize = "s2"}
// THREADS2-LABEL: func.func @symbolic_extents
// THREADS2: name = "relu_0"{{.*}}schedule = {order = ["i", "j.0", "j.1"], parallel = ["i", "j.0"], parallel_from = 131072 : i64
// THREADS2: name = "matmul_0"{{.*}}schedule = {order = ["s0", "s1.0", "k", "s1.1", "s2"], parallel = ["s0", "s1.0"], parallel_from = 262144 : i64, tile = {s1 = array<i64: 13>}
// HINT-LABEL: func.func @symbolic_extents
// HINT: name = "matmul_0"{{.*}}schedule = {order = ["s0", "s1.0", "k", "s1.1", "s2"], parallel = ["s0", "s1.0"], tile = {s1 = array<i64: 14>}, unroll = {s1.1 = 14 : i64}, vectorize = "s2"}
func.func @symbolic_extents(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %p: memref<2x?x?xf32>, %v: memref<2x?x8xf32>, %o: memref<2x?x8xf32>, %n: index, %seq: index) attributes {tp.kernel, tp.symbols = ["n", "seq"]} {
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(d0, d1) -> (d0, d1)>} : (memref<?x16xf32>) -> f32
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %c0 : f32
    gpu.yield %r : f32
  }) {axes = ["i", "j"], combiner = "none", extent_exprs = ["n", ""], extents = array<i64: -1, 16>, init, kinds = "SS", name = "relu_0", out_map = affine_map<(d0, d1) -> (d0, d1)>, schedule = {}} : (memref<?x16xf32>) -> ()
  "tp.block"(%o) ({
    %0 = "tp.read"(%p) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>} : (memref<2x?x?xf32>) -> f32
    %1 = "tp.read"(%v) {map = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>} : (memref<2x?x8xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["s0", "s1", "s2", "k"], combiner = "add", extent_exprs = ["", "seq", "", "seq"], extents = array<i64: 2, -1, 8, -1>, init = 0.000000e+00 : f32, kinds = "SSSR", name = "matmul_0", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, schedule = {}} : (memref<2x?x8xf32>) -> ()
  return
}

// -----

// A grouped 3x3 conv in NCHW at batch 2 (4 channels per group): the pixels go on vectors, the
// group's output channels are the rows, and of the two companion candidates the input's vector
// read moves along, images (`n`, an image apart) and output rows (`oh`, whose windows overlap),
// the register tile pairs output rows.
// AVX512-LABEL: func.func @grouped_conv_batch
// AVX512: schedule = {order = ["n", "oh.0", "ow.0", "g", "ic", "kh", "kw", "oc", "oh.1", "ow.1"], parallel = ["n", "oh.0"], tile = {oh = array<i64: 2>, ow = array<i64: 16>}, unroll = {kw = 3 : i64, oc = 4 : i64, oh.1 = 2 : i64}, vectorize = "ow.1"}
func.func @grouped_conv_batch(%X: memref<2x64x30x30xf32>, %W: memref<64x4x3x3xf32>, %Y: memref<2x64x28x28xf32>) {
  "tp.block"(%Y) ({
    %x = "tp.read"(%X) {map = affine_map<(n, g, oc, oh, ow, ic, kh, kw) -> (n, g * 4 + ic, oh + kh, ow + kw)>} : (memref<2x64x30x30xf32>) -> f32
    %w = "tp.read"(%W) {map = affine_map<(n, g, oc, oh, ow, ic, kh, kw) -> (g * 4 + oc, ic, kh, kw)>} : (memref<64x4x3x3xf32>) -> f32
    %m = arith.mulf %x, %w : f32
    gpu.yield %m : f32
  }) {name = "conv2d", axes = ["n", "g", "oc", "oh", "ow", "ic", "kh", "kw"], kinds = "SSSSSRRR", extents = array<i64: 2, 16, 4, 28, 28, 4, 3, 3>,
      out_map = affine_map<(n, g, oc, oh, ow, ic, kh, kw) -> (n, g * 4 + oc, oh, ow)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<2x64x28x28xf32>) -> ()
  return
}
