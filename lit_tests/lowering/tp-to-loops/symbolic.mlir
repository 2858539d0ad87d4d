// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp,tp-default-schedule{vector-bits=256},tp-to-loops)' | FileCheck %s

// A vectorized axis whose extent `n` is known at run time only: full vectors of 8 lanes to
// n floordiv 8 (a loop bound computed from the kernel's symbol argument), then the remaining
// n mod 8 elements one lane at a time.

// CHECK-LABEL: func.func private @fused_relu_0(
// CHECK-SAME: %[[X:.*]]: memref<4x?xf32>, %[[Y:.*]]: memref<4x?xf32>, %[[N:.*]]: index)
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[FULL:.*]] = arith.floordivsi %[[N]], %[[C8:.*]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[FULL]] step
// CHECK: vector.load %[[X]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[Y]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<8xf32>
// CHECK: %[[REST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[REST]] step
// CHECK: vector.load %[[X]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<1xf32>
// CHECK: vector.store %{{.*}}, %[[Y]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<1xf32>
module {
  func.func @main(%x: tensor<4x?xf32, [4, "n"]>) -> tensor<4x?xf32, [4, "n"]> {
    %0 = "graph.relu"(%x) : (tensor<4x?xf32, [4, "n"]>) -> tensor<4x?xf32, [4, "n"]>
    return %0 : tensor<4x?xf32, [4, "n"]>
  }
}
