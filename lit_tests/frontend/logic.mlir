// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py logic %t.onnx
// RUN: mlc import %t.onnx -o - | FileCheck %s

// Comparisons give i1; boolean ops and Where broadcast; a constant used twice is emitted once.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x4xi64>, %[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[ZERO:.*]] = "graph.constant"() {value = dense<0> : tensor<i64>}
// CHECK-NEXT: %[[PAD:.*]] = "graph.equal"(%[[IDS]], %[[ZERO]]) : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
// CHECK-NEXT: %[[KEEP:.*]] = "graph.not"(%[[PAD]])
// CHECK-NEXT: %[[HALF:.*]] = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>}
// CHECK-NEXT: %[[BIG:.*]] = "graph.greater"(%[[X]], %[[HALF]])
// CHECK-NEXT: %[[BOTH:.*]] = "graph.and"(%[[KEEP]], %[[BIG]])
// CHECK-NEXT: %[[Y:.*]] = "graph.where"(%[[BOTH]], %[[X]], %[[HALF]])
// CHECK-NEXT: return %[[Y]]
