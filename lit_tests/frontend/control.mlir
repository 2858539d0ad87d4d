// REQUIRES: onnx
// RUN: %python %inputs/onnx_rnn_models.py if_constant %t.ifc.onnx if_runtime %t.ifr.onnx loop_unrolled %t.loop.onnx
// RUN: mlc import %t.ifc.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=IF-CONST
// RUN: mlc import %t.ifr.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=IF-RUN
// RUN: mlc import %t.loop.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=LOOP

// A condition known at import (false) keeps the else branch only; it reads `k` of the model.
// IF-CONST-LABEL: func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32>
// IF-CONST-NEXT: %[[K:.*]] = "graph.constant"() {value = #graph.param<"k">}
// IF-CONST-NEXT: %[[Y:.*]] = "graph.mul"(%arg0, %[[K]])
// IF-CONST-NEXT: return %[[Y]]

// A run-time condition: both branches, then a select on the condition as a scalar.
// IF-RUN-LABEL: func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<i1>) -> tensor<2xf32>
// IF-RUN-NEXT: %[[K:.*]] = "graph.constant"() {value = #graph.param<"k">}
// IF-RUN-NEXT: %[[T:.*]] = "graph.add"(%arg0, %[[K]])
// IF-RUN-NEXT: %[[E:.*]] = "graph.mul"(%arg0, %[[K]])
// IF-RUN-NEXT: %[[C:.*]] = "graph.reshape"(%arg1) {shape = array<i64>} : (tensor<i1>) -> tensor<i1>
// IF-RUN-NEXT: %[[Y:.*]] = "graph.where"(%[[C]], %[[T]], %[[E]])
// IF-RUN-NEXT: return %[[Y]]

// Three iterations of acc = acc + x, unrolled (the carried value starts as x).
// LOOP-LABEL: func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32>
// LOOP-NEXT: %[[A1:.*]] = "graph.add"(%arg0, %arg0)
// LOOP-NEXT: %[[A2:.*]] = "graph.add"(%[[A1]], %arg0)
// LOOP-NEXT: %[[A3:.*]] = "graph.add"(%[[A2]], %arg0)
// LOOP-NEXT: return %[[A3]]
