// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse{attention-min-bytes=0},graph-to-tp{online-softmax=false},tp-default-schedule{vector-bits=512},tp-to-loops{threads=1},func.func(canonicalize,cse))' | FileCheck %s --strict-whitespace
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse{attention-min-bytes=0},graph-to-tp{online-softmax=false},tp-default-schedule{vector-bits=512 reduce-cost=1.0},tp-to-loops{threads=2},func.func(canonicalize,cse))' | FileCheck %s --strict-whitespace --check-prefix=THREADS

// (The three-kernel lowering, online-softmax=false: graph-to-tp-online-attention covers the other.)
// An attention kernel runs head by head: one loop over the 4 heads holds the scores' product
// (Q·Kᵀ, its scale fused as the epilogue), the softmax blocks, themselves row-fused in tiles of
// query rows (max, exp, sum, reciprocal, product: a tile stays in L1), and the product by V.
// The row maximum is a `fastmax` (compare and select: one maxps), the exp one of x <= 0.
// A head's 48x48 scores stay in cache from their product to the one by V. There is no other
// loop at the kernel's top level.
// CHECK-LABEL: func.func private @fused_matmul_mul_softmax_matmul_0(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<1x4x48x16xf32>, %[[KT:[a-z0-9]+]]: memref<1x4x16x48xf32>, %{{.*}}: memref<f32>, %[[V:[a-z0-9]+]]: memref<1x4x48x16xf32>, %[[O:[a-z0-9]+]]: memref<1x4x48x16xf32>
// CHECK: {{^    }}scf.for %[[H:.*]] = %c0 to %c4 step %c1 {
// CHECK: vector.load %[[KT]][%c0, %[[H]],
// CHECK: vector.store %{{.*}}, %[[S:.*]][%c0, %[[H]], %{{.*}}, %c0] : memref<1x4x48x48xf32>, vector<32xf32>
// CHECK: {{^      }}scf.for %[[T:.*]] = %c0 to %c2 step %c1 {
// CHECK: {{^        }}scf.for
// CHECK: arith.cmpf ogt
// CHECK-NEXT: arith.select
// CHECK: {{^        }}scf.for
// CHECK: vector.load %[[S]][%c0, %[[H]],
// CHECK: math.exp %{{.*}} {mlc.nonpositive}
// CHECK: {{^        }}scf.for
// CHECK: {{^        }}scf.for
// CHECK: arith.divf
// CHECK: {{^        }}scf.for
// CHECK: arith.mulf
// CHECK: {{^      }}scf.for
// CHECK: vector.load %[[V]][%c0, %[[H]],
// CHECK: vector.store %{{.*}}, %[[O]][%c0, %[[H]],
// CHECK-NOT: {{^    }}scf.for
// CHECK: return

// Two threads share out the heads (two each). (At the default reduce-cost the 4 x 48 x 48 x 16
// products are too little work to split: the kernel runs serially.)
// THREADS-LABEL: func.func private @fused_matmul_mul_softmax_matmul_0(
// THREADS: {{^    }}scf.parallel (%{{.*}}) = (%c0) to (%c2)
// THREADS-NOT: {{^    }}scf.{{for|parallel}}
// THREADS: return
func.func @main(%q: tensor<1x4x48x16xf32>, %kt: tensor<1x4x16x48xf32>, %v: tensor<1x4x48x16xf32>) -> tensor<1x4x48x16xf32> {
  %scale = "graph.constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %s = "graph.matmul"(%q, %kt) : (tensor<1x4x48x16xf32>, tensor<1x4x16x48xf32>) -> tensor<1x4x48x48xf32>
  %ss = "graph.mul"(%s, %scale) : (tensor<1x4x48x48xf32>, tensor<f32>) -> tensor<1x4x48x48xf32>
  %p = "graph.softmax"(%ss) {axis = -1 : i64} : (tensor<1x4x48x48xf32>) -> tensor<1x4x48x48xf32>
  %o = "graph.matmul"(%p, %v) : (tensor<1x4x48x48xf32>, tensor<1x4x48x16xf32>) -> tensor<1x4x48x16xf32>
  return %o : tensor<1x4x48x16xf32>
}

// -----

// Three heads do not split evenly over two threads: the blocks keep their own loops (each
// splits evenly), still in one kernel. One thread shares the head loop.
// CHECK-LABEL: func.func private @fused_matmul_softmax_matmul_0(
// CHECK: {{^    }}scf.for %{{.*}} = %c0 to %c3 step %c1 {
// CHECK-NOT: {{^    }}scf.for
// THREADS-LABEL: func.func private @fused_matmul_softmax_matmul_0(
// THREADS: {{^    }}scf.{{for|parallel}}
// THREADS: {{^    }}scf.{{for|parallel}}
// THREADS: {{^    }}scf.{{for|parallel}}
func.func @main(%q: tensor<1x3x48x16xf32>, %kt: tensor<1x3x16x48xf32>, %v: tensor<1x3x48x16xf32>) -> tensor<1x3x48x16xf32> {
  %s = "graph.matmul"(%q, %kt) : (tensor<1x3x48x16xf32>, tensor<1x3x16x48xf32>) -> tensor<1x3x48x48xf32>
  %p = "graph.softmax"(%s) {axis = -1 : i64} : (tensor<1x3x48x48xf32>) -> tensor<1x3x48x48xf32>
  %o = "graph.matmul"(%p, %v) : (tensor<1x3x48x48xf32>, tensor<1x3x48x16xf32>) -> tensor<1x3x48x16xf32>
  return %o : tensor<1x3x48x16xf32>
}
