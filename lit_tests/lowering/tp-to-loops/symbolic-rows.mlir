// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp,tp-default-schedule{vector-bits=256})' | FileCheck %s --check-prefix=SCHED
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp,tp-default-schedule{vector-bits=256},tp-to-loops)' | FileCheck %s

// A softmax over `r` rows of `n` elements, both known at run time only.
//
// Schedules: each row reduction's whole vectorized axis (32 lanes at the sample size 64 of its
// symbols) is tiled by that width, so its vectors survive the run-time extent (without the tile
// the reductions ran on scalars).
// SCHED: name = "softmax_max_0"
// SCHED-SAME: schedule = {order = ["s0", "r1.0", "r1.1"], tile = {r1 = array<i64: 32>}, vectorize = "r1.1"}
// SCHED: name = "softmax_sum_2"
// SCHED-SAME: schedule = {order = ["s0", "r1.0", "r1.1"], tile = {r1 = array<i64: 32>}, vectorize = "r1.1"}
//
// Loops: the five blocks run row tile by row tile (row fusion): one loop over ceil(r / 31)
// tiles, inside it one loop of 31 guarded rows per block; the max's vectors go to n floordiv 32,
// then its tail takes pieces of 16, 8, 4, 2 and 1 lanes.
// CHECK-LABEL: func.func private @fused_softmax_0(
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32>, %[[Y:.*]]: memref<?x?xf32>, %[[N:.*]]: index, %[[R:.*]]: index,
// CHECK: %[[C30:.*]] = arith.constant 30 : index
// CHECK-NEXT: %[[UP:.*]] = arith.addi %[[R]], %[[C30]] : index
// CHECK: %[[TILES:.*]] = arith.floordivsi %[[UP]], %{{.*}} : index
// CHECK: scf.for %[[TILE:.*]] = %{{.*}} to %[[TILES]] step
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %c31{{(_[0-9]+)?}} step
// CHECK-NEXT: %[[AT:.*]] = affine.apply #{{.*}}(%[[TILE]], %[[ROW]])
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[AT]], %[[R]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: %[[FULL:.*]] = arith.floordivsi %[[N]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[FULL]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<32xf32>)
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}] : memref<?x?xf32>, vector<32xf32>
// CHECK: scf.if %{{.*}} -> (vector<32xf32>)
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}] : memref<?x?xf32>, vector<16xf32>
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}] : memref<?x?xf32>, vector<8xf32>
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}] : memref<?x?xf32>, vector<4xf32>
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}] : memref<?x?xf32>, vector<2xf32>
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}] : memref<?x?xf32>, vector<1xf32>
// The exp, sum, reciprocal and product blocks: in the same tile, over the same 31 rows.
// CHECK-COUNT-4: scf.for %{{.*}} = %{{.*}} to %c31{{(_[0-9]+)?}} step
// CHECK-NOT: scf.for %{{.*}} = %{{.*}} to %[[TILES]]
// CHECK: return
module {
  func.func @main(%x: tensor<?x?xf32, ["r", "n"]>) -> tensor<?x?xf32, ["r", "n"]> {
    %0 = "graph.softmax"(%x) {axis = -1 : i64} : (tensor<?x?xf32, ["r", "n"]>) -> tensor<?x?xf32, ["r", "n"]>
    return %0 : tensor<?x?xf32, ["r", "n"]>
  }
}
