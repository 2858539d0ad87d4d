// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp,tp-default-schedule{vector-bits=512},tp-to-loops)' | FileCheck %s --check-prefix=LOOPS

// A dense layer on `rows` known at run time only, its weights packed in panels of 16 columns:
// the product [2, rows, 16] goes back to rows [rows, 32] through a transpose and a reshape. As
// with static rows, the product writes the kernel's output through the inverse of that remap
// and the bias is added in place: no scratch argument, no per-call buffer in @mlc_main.
// CHECK: #[[$ROWS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0 * 16 + d2)>
// CHECK-LABEL: func.func private @fused_matmul_transpose_reshape_add_0(
// CHECK-SAME: %[[X:.*]]: memref<?x8xf32>, %[[W:.*]]: memref<2x8x16xf32>, %[[B:.*]]: memref<32xf32>, %[[Y:.*]]: memref<?x32xf32>, %[[ROWS:.*]]: index)
// CHECK-NOT: memref.view
// CHECK: "tp.block"(%[[Y]])
// CHECK: name = "matmul_0", out_map = #[[$ROWS]]
// CHECK: "tp.block"(%[[Y]])
// CHECK-NEXT: "tp.read"(%[[Y]])
// CHECK-LABEL: func.func @mlc_main(
// CHECK-NOT: memref.alloc
// CHECK: call @fused_matmul_transpose_reshape_add_0(
// CHECK-NOT: memref.alloc
// CHECK: return

// The bias runs on the register tile (a fused epilogue): the accumulators leave the reduce loop
// straight into bias adds and stores into the output; the output is never read back.
// LOOPS-LABEL: func.func private @fused_matmul_transpose_reshape_add_0(
// LOOPS-SAME: %[[B:[^:]*]]: memref<32xf32>, %[[Y:[^:]*]]: memref<?x32xf32>
// LOOPS: %[[ACC:.*]]:26 = scf.for {{.*}} iter_args
// LOOPS: %[[BIAS:.*]] = vector.load %[[B]][%{{.*}}] : memref<32xf32>, vector<16xf32>
// LOOPS-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]]#0, %[[BIAS]] fastmath<contract> : vector<16xf32>
// LOOPS-NEXT: %[[ROW:.*]] = affine.apply
// LOOPS-NEXT: %[[C0:.*]] = arith.constant 0 : index
// LOOPS-NEXT: vector.store %[[SUM]], %[[Y]][%[[ROW]], %[[C0]]] : memref<?x32xf32>, vector<16xf32>
// LOOPS-NOT: vector.load %[[Y]]
// LOOPS: return

module {
  func.func @main(%x: tensor<?x8xf32, ["rows", 8]>) -> tensor<?x32xf32, ["rows", 32]> attributes {mlc.input_names = ["x"], mlc.output_names = ["y"]} {
    %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<2x8x16xf32>
    %p = "graph.matmul"(%x, %w) : (tensor<?x8xf32, ["rows", 8]>, tensor<2x8x16xf32>) -> tensor<2x?x16xf32, [2, "rows", 16]>
    %t = "graph.transpose"(%p) {perm = array<i64: 1, 0, 2>} : (tensor<2x?x16xf32, [2, "rows", 16]>) -> tensor<?x2x16xf32, ["rows", 2, 16]>
    %r = "graph.reshape"(%t) {shape = ["rows", 32]} : (tensor<?x2x16xf32, ["rows", 2, 16]>) -> tensor<?x32xf32, ["rows", 32]>
    %b = "graph.constant"() {value = #graph.param<"b">} : () -> tensor<32xf32>
    %y = "graph.add"(%r, %b) : (tensor<?x32xf32, ["rows", 32]>, tensor<32xf32>) -> tensor<?x32xf32, ["rows", 32]>
    return %y : tensor<?x32xf32, ["rows", 32]>
  }
}
