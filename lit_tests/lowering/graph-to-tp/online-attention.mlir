// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse{attention-min-bytes=0},graph-to-tp)' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse{attention-min-bytes=0},graph-to-tp)' | FileCheck %s --check-prefix=NOSCORES
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse{attention-min-bytes=0},graph-to-tp{online-softmax=false})' | FileCheck %s --check-prefix=ANCHORS

// Attention (Q·Kᵀ, its scale and mask, the softmax, ·V; 100 queries, 300 keys) as one pass over
// tiles of keys: a parallel loop over 4 workers, each with its slot of scratch (a 64 x 128 tile
// of scores, the running row maxima and sums as 64 x 1 columns), a serial loop over its
// (head, chunk of 64 query rows) pairs with the last chunk's 36 rows apart, and in each chunk
// a loop over 2 full tiles of 128 keys, then the tile of the last 44. No buffer holds the
// 100 x 300 scores of a head; the output is written once per chunk, normalized.
// NOSCORES-LABEL: func.func private @fused_matmul_mul_add_etc_0
// NOSCORES-NOT: 100x300xf32
// NOSCORES-LABEL: func.func @mlc_main(
// CHECK-LABEL: func.func private @fused_matmul_mul_add_etc_0
// CHECK: memref.view {{.*}} to memref<4x64x128xf32>
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: scf.if
// CHECK: name = "attention_max_init_0"
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2
// CHECK: memref.subview %arg1[0, %{{.*}}, 0, %{{.*}}] [1, 1, 8, 128]
// CHECK: extents = array<i64: 36, 128, 8>, init = 0.000000e+00 : f32, kinds = "SSR", name = "attention_scores_3"
// CHECK: memref.subview %arg3[0, 0, 0, %{{.*}}] [1, 1, 1, 128]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: name = "attention_scale_mask_4"
// CHECK: combiner = "fastmax", extents = array<i64: 36, 128>, {{.*}} name = "attention_tile_max_5"
// CHECK: name = "attention_max_6"
// CHECK: name = "attention_rescale_7"
// CHECK: name = "attention_max_next_8"
// CHECK: math.exp {{.*}} {mlc.nonpositive}
// CHECK: name = "attention_exp_9"
// CHECK: combiner = "add", extents = array<i64: 36, 128>, {{.*}} name = "attention_tile_sum_10"
// CHECK: name = "attention_sum_11"
// CHECK: extents = array<i64: 36, 8, 128>, {{.*}} name = "attention_values_12"
// CHECK: name = "attention_accumulate_13"
// CHECK: memref.subview %arg1[0, %{{.*}}, 0, 256] [1, 1, 8, 44]
// CHECK: extents = array<i64: 36, 44, 8>, {{.*}} name = "attention_scores_14"
// CHECK: name = "attention_accumulate_24"
// CHECK: name = "attention_reciprocal_25"
// CHECK: memref.subview %arg5[0, %{{.*}}, %{{.*}}, 0] [1, 1, 36, 8]
// CHECK: name = "attention_normalize_26"
// CHECK: extents = array<i64: 64, 128, 8>, {{.*}} name = "attention_scores_
// CHECK-LABEL: func.func @mlc_main(

// Anchor by anchor: Q·Kᵀ writes a head's scores, the softmax's blocks sweep them.
// ANCHORS-LABEL: func.func private @fused_matmul_mul_add_etc_0
// ANCHORS: memref.view {{.*}} to memref<1x2x100x300xf32>
// ANCHORS: name = "softmax_max
// ANCHORS: name = "softmax_exp
func.func @main(%q: tensor<1x2x100x8xf32>, %kt: tensor<1x2x8x300xf32>, %v: tensor<1x2x300x8xf32>, %mask: tensor<1x1x1x300xf32>) -> tensor<1x2x100x8xf32> {
  %scale = "graph.constant"() {value = dense<0.35> : tensor<f32>} : () -> tensor<f32>
  %s = "graph.matmul"(%q, %kt) : (tensor<1x2x100x8xf32>, tensor<1x2x8x300xf32>) -> tensor<1x2x100x300xf32>
  %ss = "graph.mul"(%s, %scale) : (tensor<1x2x100x300xf32>, tensor<f32>) -> tensor<1x2x100x300xf32>
  %sm = "graph.add"(%ss, %mask) : (tensor<1x2x100x300xf32>, tensor<1x1x1x300xf32>) -> tensor<1x2x100x300xf32>
  %p = "graph.softmax"(%sm) {axis = -1 : i64} : (tensor<1x2x100x300xf32>) -> tensor<1x2x100x300xf32>
  %o = "graph.matmul"(%p, %v) : (tensor<1x2x100x300xf32>, tensor<1x2x300x8xf32>) -> tensor<1x2x100x8xf32>
  return %o : tensor<1x2x100x8xf32>
}
