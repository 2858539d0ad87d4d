// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-defer-row-scale)' | FileCheck %s

// An attention kernel as graph-to-tp emits it: Q·Kᵀ, the softmax (max, exp, sum, 1 / sum, the
// quotient written over the exponentials) and ·V. The quotient block goes; ·V reads the
// exponentials and a block right after it multiplies each of its output rows by 1 / sum, read
// at the row ·V read (the batch dim of size 1 at 0).
// CHECK-DAG: #[[$ROW:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, 0)>
// CHECK-LABEL: func.func @attention
// CHECK-NOT: name = "materialize_5"
// CHECK: "tp.block"(%arg3)
// CHECK-NEXT: "tp.read"(%view_0) {map = #[[P:map[0-9]*]]}
// CHECK: name = "matmul_6"
// CHECK-NEXT: "tp.block"(%arg3)
// CHECK-NEXT: %[[O:.*]] = "tp.read"(%arg3) {map = #[[ID:map[0-9]*]]}
// CHECK-NEXT: %[[F:.*]] = "tp.read"(%view_2) {map = #[[$ROW]]}
// CHECK-NEXT: arith.mulf %[[O]], %[[F]]
// CHECK: axes = ["s0", "s1", "s2", "s3"], combiner = "none", extents = array<i64: 1, 2, 64, 8>
// CHECK-SAME: kinds = "SSSS", name = "matmul_6_row_scale", out_map = #[[ID]]
func.func @attention(%arg0: memref<1x2x64x8xf32>, %arg1: memref<1x2x8x64xf32>, %arg2: memref<1x2x64x8xf32>, %arg3: memref<1x2x64x8xf32>, %arg4: memref<?xi8>) attributes {tp.kernel} {
  %c0 = arith.constant 0 : index
  %view = memref.view %arg4[%c0][] : memref<?xi8> to memref<1x2x64x64xf32>
  "tp.block"(%view) ({
    %0 = "tp.read"(%arg0) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d2, d4)>} : (memref<1x2x64x8xf32>) -> f32
    %1 = "tp.read"(%arg1) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>} : (memref<1x2x8x64xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["s0", "s1", "s2", "s3", "k"], combiner = "add", extents = array<i64: 1, 2, 64, 64, 8>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "matmul_0", out_map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, schedule = {}} : (memref<1x2x64x64xf32>) -> ()
  %c32768 = arith.constant 32768 : index
  %view_0 = memref.view %arg4[%c32768][] : memref<?xi8> to memref<1x2x64x64xf32>
  %c65536 = arith.constant 65536 : index
  %view_1 = memref.view %arg4[%c65536][] : memref<?xi8> to memref<1x2x64x1xf32>
  %c66048 = arith.constant 66048 : index
  %view_2 = memref.view %arg4[%c66048][] : memref<?xi8> to memref<1x2x64x1xf32>
  "tp.block"(%view_1) ({
    %0 = "tp.read"(%view) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>} : (memref<1x2x64x64xf32>) -> f32
    gpu.yield %0 : f32
  }) {axes = ["s0", "s1", "s2", "r3"], combiner = "max", extents = array<i64: 1, 2, 64, 64>, init = 0xFF800000 : f32, kinds = "SSSR", name = "softmax_max_1", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, schedule = {}} : (memref<1x2x64x1xf32>) -> ()
  "tp.block"(%view_0) ({
    %0 = "tp.read"(%view) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>} : (memref<1x2x64x64xf32>) -> f32
    %1 = "tp.read"(%view_1) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>} : (memref<1x2x64x1xf32>) -> f32
    %2 = arith.subf %0, %1 : f32
    %3 = math.exp %2 : f32
    gpu.yield %3 : f32
  }) {axes = ["i0", "i1", "i2", "i3"], combiner = "none", extents = array<i64: 1, 2, 64, 64>, init, kinds = "SSSS", name = "softmax_exp_2", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, schedule = {}} : (memref<1x2x64x64xf32>) -> ()
  "tp.block"(%view_2) ({
    %0 = "tp.read"(%view_0) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>} : (memref<1x2x64x64xf32>) -> f32
    gpu.yield %0 : f32
  }) {axes = ["s0", "s1", "s2", "r3"], combiner = "add", extents = array<i64: 1, 2, 64, 64>, init = 0.000000e+00 : f32, kinds = "SSSR", name = "softmax_sum_3", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, schedule = {}} : (memref<1x2x64x1xf32>) -> ()
  "tp.block"(%view_2) ({
    %0 = "tp.read"(%view_2) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>} : (memref<1x2x64x1xf32>) -> f32
    %cst = arith.constant 1.000000e+00 : f32
    %1 = arith.divf %cst, %0 : f32
    gpu.yield %1 : f32
  }) {axes = ["i0", "i1", "i2", "i3"], combiner = "none", extents = array<i64: 1, 2, 64, 1>, init, kinds = "SSSS", name = "softmax_reciprocal_4", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, schedule = {}} : (memref<1x2x64x1xf32>) -> ()
  "tp.block"(%view_0) ({
    %0 = "tp.read"(%view_0) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>} : (memref<1x2x64x64xf32>) -> f32
    %1 = "tp.read"(%view_2) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>} : (memref<1x2x64x1xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["i0", "i1", "i2", "i3"], combiner = "none", extents = array<i64: 1, 2, 64, 64>, init, kinds = "SSSS", name = "materialize_5", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, schedule = {}} : (memref<1x2x64x64xf32>) -> ()
  "tp.block"(%arg3) ({
    %0 = "tp.read"(%view_0) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d2, d4)>} : (memref<1x2x64x64xf32>) -> f32
    %1 = "tp.read"(%arg2) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>} : (memref<1x2x64x8xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["s0", "s1", "s2", "s3", "k"], combiner = "add", extents = array<i64: 1, 2, 64, 8, 64>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "matmul_6", out_map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, schedule = {}} : (memref<1x2x64x8xf32>) -> ()
  return
}

// -----

// The quotient is a kernel argument (the caller sees it): nothing changes.
// CHECK-LABEL: func.func @scaled_rows_are_an_output
// CHECK: name = "scale"
// CHECK-NOT: row_scale
func.func @scaled_rows_are_an_output(%e: memref<4x16xf32>, %r: memref<4x1xf32>, %v: memref<16x8xf32>, %x: memref<4x16xf32>, %out: memref<4x8xf32>) attributes {tp.kernel} {
  "tp.block"(%x) ({
    %0 = "tp.read"(%e) {map = affine_map<(i, j) -> (i, j)>} : (memref<4x16xf32>) -> f32
    %1 = "tp.read"(%r) {map = affine_map<(i, j) -> (i, 0)>} : (memref<4x1xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["i", "j"], combiner = "none", extents = array<i64: 4, 16>, init, kinds = "SS", name = "scale", out_map = affine_map<(i, j) -> (i, j)>, schedule = {}} : (memref<4x16xf32>) -> ()
  "tp.block"(%out) ({
    %0 = "tp.read"(%x) {map = affine_map<(i, n, k) -> (i, k)>} : (memref<4x16xf32>) -> f32
    %1 = "tp.read"(%v) {map = affine_map<(i, n, k) -> (k, n)>} : (memref<16x8xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["i", "n", "k"], combiner = "add", extents = array<i64: 4, 8, 16>, init = 0.0 : f32, kinds = "SSR", name = "product", out_map = affine_map<(i, n, k) -> (i, n)>, schedule = {}} : (memref<4x8xf32>) -> ()
  return
}

// -----

// A second block reads the quotient: it must stay.
// CHECK-LABEL: func.func @quotient_read_twice
// CHECK: name = "scale"
// CHECK-NOT: row_scale
func.func @quotient_read_twice(%e: memref<4x16xf32>, %r: memref<4x1xf32>, %v: memref<16x8xf32>, %ws: memref<?xi8>, %out: memref<4x8xf32>, %copy: memref<4x16xf32>) attributes {tp.kernel} {
  %c0 = arith.constant 0 : index
  %x = memref.view %ws[%c0][] : memref<?xi8> to memref<4x16xf32>
  "tp.block"(%x) ({
    %0 = "tp.read"(%e) {map = affine_map<(i, j) -> (i, j)>} : (memref<4x16xf32>) -> f32
    %1 = "tp.read"(%r) {map = affine_map<(i, j) -> (i, 0)>} : (memref<4x1xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["i", "j"], combiner = "none", extents = array<i64: 4, 16>, init, kinds = "SS", name = "scale", out_map = affine_map<(i, j) -> (i, j)>, schedule = {}} : (memref<4x16xf32>) -> ()
  "tp.block"(%out) ({
    %0 = "tp.read"(%x) {map = affine_map<(i, n, k) -> (i, k)>} : (memref<4x16xf32>) -> f32
    %1 = "tp.read"(%v) {map = affine_map<(i, n, k) -> (k, n)>} : (memref<16x8xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["i", "n", "k"], combiner = "add", extents = array<i64: 4, 8, 16>, init = 0.0 : f32, kinds = "SSR", name = "product", out_map = affine_map<(i, n, k) -> (i, n)>, schedule = {}} : (memref<4x8xf32>) -> ()
  "tp.block"(%copy) ({
    %0 = "tp.read"(%x) {map = affine_map<(i, j) -> (i, j)>} : (memref<4x16xf32>) -> f32
    gpu.yield %0 : f32
  }) {axes = ["i", "j"], combiner = "none", extents = array<i64: 4, 16>, init, kinds = "SS", name = "copy", out_map = affine_map<(i, j) -> (i, j)>, schedule = {}} : (memref<4x16xf32>) -> ()
  return
}

// -----

// Rows known only at run time (n): the quotient block goes as with static rows; the product
// reads the exponentials, and the row scale block after it keeps the run-time extent.
// CHECK-LABEL: func.func @symbolic_rows
// CHECK-NOT: name = "scale"
// CHECK: "tp.block"(%arg3)
// CHECK-NEXT: "tp.read"(%arg0)
// CHECK: extent_exprs = ["n", "", ""], extents = array<i64: -1, 8, 16>{{.*}}name = "product"
// CHECK-NEXT: "tp.block"(%arg3)
// CHECK-NEXT: %[[O:.*]] = "tp.read"(%arg3)
// CHECK-NEXT: %[[F:.*]] = "tp.read"(%arg1)
// CHECK-NEXT: arith.mulf %[[O]], %[[F]]
// CHECK: extent_exprs = ["n", ""], extents = array<i64: -1, 8>{{.*}}name = "product_row_scale"
func.func @symbolic_rows(%e: memref<?x16xf32>, %r: memref<?x1xf32>, %v: memref<16x8xf32>, %out: memref<?x8xf32>, %n: index, %ws: memref<?xi8>) attributes {tp.kernel, tp.symbols = ["n"]} {
  %c0 = arith.constant 0 : index
  %x = memref.view %ws[%c0][%n] : memref<?xi8> to memref<?x16xf32>
  "tp.block"(%x) ({
    %0 = "tp.read"(%e) {map = affine_map<(i, j) -> (i, j)>} : (memref<?x16xf32>) -> f32
    %1 = "tp.read"(%r) {map = affine_map<(i, j) -> (i, 0)>} : (memref<?x1xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["i", "j"], combiner = "none", extent_exprs = ["n", ""], extents = array<i64: -1, 16>, init, kinds = "SS", name = "scale", out_map = affine_map<(i, j) -> (i, j)>, schedule = {}} : (memref<?x16xf32>) -> ()
  "tp.block"(%out) ({
    %0 = "tp.read"(%x) {map = affine_map<(i, n, k) -> (i, k)>} : (memref<?x16xf32>) -> f32
    %1 = "tp.read"(%v) {map = affine_map<(i, n, k) -> (k, n)>} : (memref<16x8xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["i", "n", "k"], combiner = "add", extent_exprs = ["n", "", ""], extents = array<i64: -1, 8, 16>, init = 0.0 : f32, kinds = "SSR", name = "product", out_map = affine_map<(i, n, k) -> (i, n)>, schedule = {}} : (memref<?x8xf32>) -> ()
  return
}
