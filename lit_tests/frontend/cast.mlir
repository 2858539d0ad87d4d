// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py cast %t.onnx
// RUN: mlc import %t.onnx -o - | FileCheck %s

// Identity and inference Dropout leave nothing; CastLike takes the second input's type.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %{{.*}}: tensor<1xf64>)
// CHECK-NEXT: %[[I:.*]] = "graph.cast"(%[[X]]) {to = "i32"} : (tensor<3xf32>) -> tensor<3xi32>
// CHECK-NEXT: %[[D:.*]] = "graph.cast"(%[[I]]) {to = "f64"} : (tensor<3xi32>) -> tensor<3xf64>
// CHECK-NEXT: %[[F:.*]] = "graph.cast"(%[[D]]) {to = "f32"}
// CHECK-NEXT: return %[[F]]
