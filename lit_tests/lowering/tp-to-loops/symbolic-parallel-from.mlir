// RUN: mlc-opt %s --pass-pipeline='builtin.module(tp-to-loops{threads=2})' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(tp-to-loops{threads=1})' | FileCheck %s --check-prefix=SERIAL

// Parallel loops over run-time extents with `parallel_from`: the block's iteration count
// (n x 16) is compared with it per call; from there the rows run as an scf.parallel on the
// threads, below it (and without threads) in order.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %{{.*}}: memref<?x16xf32>, %{{.*}}: memref<?x16xf32>, %[[N:[a-z0-9]*]]: index)
// CHECK: %[[ITERS:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK: %[[ENOUGH:.*]] = arith.cmpi sge, %[[ITERS]], %{{.*}} : index
// CHECK: scf.if %[[ENOUGH]] {
// CHECK: scf.parallel
// CHECK: } else {
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: vector.store
// SERIAL-LABEL: func.func @rows(
// SERIAL-NOT: scf.if
// SERIAL-NOT: scf.parallel
func.func @rows(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %n: index) attributes {tp.kernel, tp.symbols = ["n"]} {
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(i, j) -> (i, j)>} : (memref<?x16xf32>) -> f32
    %e = math.exp %a : f32
    gpu.yield %e : f32
  }) {name = "exp", axes = ["i", "j"], kinds = "SS", extents = array<i64: -1, 16>,
      extent_exprs = ["n", ""], out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init,
      schedule = {order = ["i", "j"], parallel = ["i"], parallel_from = 4096 : i64, vectorize = "j"}} : (memref<?x16xf32>) -> ()
  return
}
