// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp,tp-default-schedule{vector-bits=256},tp-to-loops)' | FileCheck %s

// A vectorized axis whose extent `n` is known at run time only: full vectors of 8 lanes to
// n floordiv 8 (a loop bound computed from the kernel's symbol argument), then the remaining
// n mod 8 elements as one vector per set bit of their count, widest first, each at the offset
// the wider pieces leave (the rest's higher bits).

// CHECK-LABEL: func.func private @fused_relu_0(
// CHECK-SAME: %[[X:.*]]: memref<4x?xf32>, %[[Y:.*]]: memref<4x?xf32>, %[[N:.*]]: index)
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[FULL:.*]] = arith.floordivsi %[[N]], %[[C8:.*]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[FULL]] step
// CHECK: vector.load %[[X]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[Y]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<8xf32>
// CHECK: %[[REST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[BIT4:.*]] = arith.andi %[[REST]], %[[C4]] : index
// CHECK: %[[HAS4:.*]] = arith.cmpi ne, %[[BIT4]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[HAS4]] {
// CHECK-NEXT: %[[CM8:.*]] = arith.constant -8 : index
// CHECK-NEXT: %[[AT4:.*]] = arith.andi %[[REST]], %[[CM8]] : index
// CHECK-NEXT: %[[I4:.*]] = affine.apply #{{.*}}(%[[FULL]], %[[AT4]])
// CHECK-NEXT: vector.load %[[X]][%[[ROW]], %[[I4]]] : memref<4x?xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[Y]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<4xf32>
// CHECK: arith.andi %[[REST]], %{{.*}} : index
// CHECK: scf.if
// CHECK: vector.load %[[X]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<2xf32>
// CHECK: vector.store %{{.*}}, %[[Y]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<2xf32>
// CHECK: arith.andi %[[REST]], %{{.*}} : index
// CHECK: scf.if
// CHECK: vector.load %[[X]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<1xf32>
// CHECK: vector.store %{{.*}}, %[[Y]][%[[ROW]], %{{.*}}] : memref<4x?xf32>, vector<1xf32>
// CHECK-NOT: scf.for
// CHECK: return
module {
  func.func @main(%x: tensor<4x?xf32, [4, "n"]>) -> tensor<4x?xf32, [4, "n"]> {
    %0 = "graph.relu"(%x) : (tensor<4x?xf32, [4, "n"]>) -> tensor<4x?xf32, [4, "n"]>
    return %0 : tensor<4x?xf32, [4, "n"]>
  }
}
