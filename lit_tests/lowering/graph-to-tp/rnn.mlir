// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' | FileCheck %s

// LSTM, reverse, with sequence lengths: the states live in the result's rows T (Y_h) and T+1
// (Y_c), initialised once; one scf.for over the 5 steps reads xw and writes Y at time 4 - s
// through subviews. Per step: H R^T (panels of R^T), the cell state (masked by s < lens[b]),
// the hidden state into Y (zero after the end), and the state copy.
// CHECK: #[[$BJ:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[$BK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK: #[[$PANEL:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>
// CHECK: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 4 + d2)>
// CHECK-LABEL: func.func private @fused_lstm_recurrence_0(
// CHECK-SAME: %[[XW:.*]]: memref<5x2x16xf32>, %[[RT:.*]]: memref<4x4x4xf32>, %[[H0:.*]]: memref<2x4xf32>, %[[C0:.*]]: memref<2x4xf32>, %[[P:.*]]: memref<12xf32>, %[[LENS:.*]]: memref<2xi32>, %[[Y:.*]]: memref<7x2x4xf32>, %[[SCRATCH:.*]]: memref<?xi8>)
// CHECK-NEXT: %[[H:.*]] = memref.subview %[[Y]][5, 0, 0] [1, 2, 4] [1, 1, 1] : memref<7x2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 40>>
// CHECK-NEXT: %[[C:.*]] = memref.subview %[[Y]][6, 0, 0] [1, 2, 4] [1, 1, 1] : memref<7x2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 48>>
// CHECK-NEXT: "tp.block"(%[[H]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[H0]]) {map = #[[$BJ]]}
// CHECK-NEXT: gpu.yield %[[V]]
// CHECK: name = "initial_state_0"
// CHECK-NEXT: "tp.block"(%[[C]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[C0]]) {map = #[[$BJ]]}
// CHECK: name = "initial_state_1"
// CHECK: %[[G:.*]] = memref.view %[[SCRATCH]][%{{.*}}][] : memref<?xi8> to memref<2x16xf32>
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %c5 step %c1 {
// CHECK: %[[T:.*]] = arith.subi %c4, %[[S]] : index
// CHECK-NEXT: %[[SI:.*]] = arith.index_cast %[[S]] : index to i32
// CHECK-NEXT: %[[XWT:.*]] = memref.subview %[[XW]][%[[T]], 0, 0] [1, 2, 16] [1, 1, 1] : memref<5x2x16xf32> to memref<2x16xf32, strided<[16, 1], offset: ?>>
// CHECK-NEXT: %[[YT:.*]] = memref.subview %[[Y]][%[[T]], 0, 0] [1, 2, 4] [1, 1, 1] : memref<7x2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
// CHECK-NEXT: "tp.block"(%[[G]]) ({
// CHECK-NEXT: %[[A:.*]] = "tp.read"(%[[H]]) {map = #[[$BK]]}
// CHECK-NEXT: %[[R:.*]] = "tp.read"(%[[RT]]) {map = #[[$PANEL]]}
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[R]] : f32
// CHECK-NEXT: gpu.yield %[[M]]
// CHECK-NEXT: }) {axes = ["b", "p", "n", "k"], combiner = "add", extents = array<i64: 2, 4, 4, 4>, {{.*}} kinds = "SSSR", name = "recurrence_2", out_map = #[[$OUT]]
// CHECK-NEXT: "tp.block"(%[[C]]) ({
// CHECK-NEXT: %[[OLD:.*]] = "tp.read"(%[[C]]) {map = #[[$BJ]]}
// CHECK: math.exp
// CHECK: math.tanh
// CHECK: %[[LEN:.*]] = "tp.read"(%[[LENS]])
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi slt, %[[SI]], %[[LEN]] : i32
// CHECK-NEXT: %[[KEEP:.*]] = arith.select %[[OK]], %{{.*}}, %[[OLD]] : f32
// CHECK-NEXT: gpu.yield %[[KEEP]]
// CHECK: name = "lstm_cell_3"
// CHECK-NEXT: "tp.block"(%[[YT]]) ({
// CHECK: math.tanh
// CHECK: arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK: name = "lstm_hidden_4"
// CHECK-NEXT: "tp.block"(%[[H]]) ({
// CHECK-NEXT: %[[NEW:.*]] = "tp.read"(%[[YT]]) {map = #[[$BJ]]}
// CHECK-NEXT: %[[PREV:.*]] = "tp.read"(%[[H]]) {map = #[[$BJ]]}
// CHECK: arith.select %{{.*}}, %[[NEW]], %[[PREV]] : f32
// CHECK: name = "state_5"
// CHECK-NEXT: {{^ +[}]$}}
// CHECK-NEXT: return
func.func @main(%xw: tensor<5x2x16xf32>, %rt: tensor<4x4x4xf32>, %h0: tensor<2x4xf32>, %c0: tensor<2x4xf32>, %p: tensor<12xf32>, %lens: tensor<2xi32>) -> tensor<7x2x4xf32> {
  %y = "graph.lstm_recurrence"(%xw, %rt, %h0, %c0, %p, %lens) {activations = ["Sigmoid", "Tanh", "Tanh"], activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>, clip = 0.0 : f32, reverse = 1 : i64, input_forget = 0 : i64} : (tensor<5x2x16xf32>, tensor<4x4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<12xf32>, tensor<2xi32>) -> tensor<7x2x4xf32>
  return %y : tensor<7x2x4xf32>
}

// -----

// GRU without linear_before_reset: H R^T for z and r (the first two panels of 8 columns),
// r * H, then (r * H) Rh^T from the third panel. Panels of whole vectors get the step's
// register tile (panel by panel, the panel's 8 columns as accumulators) here; without
// sequence lengths nothing is masked.
// CHECK-LABEL: func.func private @fused_gru_recurrence_0(
// CHECK: scf.for
// CHECK: "tp.block"(%[[G:.*]]) ({
// CHECK: extents = array<i64: 1, 2, 8, 8>, {{.*}} name = "recurrence_1", {{.*}} schedule = {order = ["p", "b", "k", "n"], vectorize = "n"}}
// CHECK-NEXT: "tp.block"(%[[RH:.*]]) ({
// CHECK: name = "gru_reset_2"
// CHECK-NEXT: "tp.block"(%[[HH:.*]]) ({
// CHECK-NEXT: "tp.read"(%[[RH]])
// CHECK-NEXT: "tp.read"(%arg1) {map = #[[$THIRD:.*]]}
// CHECK: extents = array<i64: 1, 1, 8, 8>, {{.*}} name = "recurrence_3"
// CHECK-NEXT: "tp.block"(%[[YT:.*]]) ({
// CHECK-NOT: arith.select
// CHECK: name = "gru_cell_4"
// CHECK-NEXT: "tp.block"(%[[H:.*]]) ({
// CHECK-NEXT: %[[V:.*]] = "tp.read"(%[[YT]])
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK: name = "state_5"
func.func @main(%xw: tensor<3x1x24xf32>, %rt: tensor<3x8x8xf32>, %h0: tensor<1x8xf32>, %rbh: tensor<8xf32>) -> tensor<4x1x8xf32> {
  %y = "graph.gru_recurrence"(%xw, %rt, %h0, %rbh) {activations = ["Sigmoid", "Tanh"], activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>, clip = 0.0 : f32, reverse = 0 : i64, linear_before_reset = 0 : i64} : (tensor<3x1x24xf32>, tensor<3x8x8xf32>, tensor<1x8xf32>, tensor<8xf32>) -> tensor<4x1x8xf32>
  return %y : tensor<4x1x8xf32>
}
