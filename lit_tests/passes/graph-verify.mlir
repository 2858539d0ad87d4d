// RUN: mlc-opt %s --verify-each=false --pass-pipeline='builtin.module(graph-verify)' --split-input-file --verify-diagnostics
// RUN: not mlc-opt %s --verify-each=false --pass-pipeline='builtin.module(graph-verify)' --split-input-file 2>&1 | FileCheck %s --check-prefix=OK

// graph-verify reports every violation, each at its own op.
func.func @two_errors(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'graph.relu' op result #0 has type tensor<3xf32> but the operands and attributes give tensor<2xf32>}}
  %0 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  // expected-error @+1 {{'graph.add' op shapes [2], [3] are not broadcast-compatible}}
  %1 = "graph.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// A valid module passes through unchanged.
// OK-LABEL: func.func @valid
// OK-NEXT: %[[R:.*]] = "graph.relu"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// OK-NEXT: return %[[R]]
func.func @valid(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A slice of a 512-row table to `seq` is `seq` rows under the bounds the import recorded
// (--input-shapes "x:[1..512]"): the verifier assumes them.
// OK-LABEL: func.func @bounded
func.func @bounded(%x: tensor<?xf32, ["seq"]>) -> tensor<?xf32, ["seq"]>
    attributes {mlc.symbol_bounds = {seq = array<i64: 1, 512>}} {
  %t = "graph.constant"() {value = dense<0.5> : tensor<512xf32>} : () -> tensor<512xf32>
  %0 = "graph.slice"(%t) {axes = array<i64: 0>, ends = ["seq"], starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<512xf32>) -> tensor<?xf32, ["seq"]>
  %1 = "graph.add"(%x, %0) : (tensor<?xf32, ["seq"]>, tensor<?xf32, ["seq"]>) -> tensor<?xf32, ["seq"]>
  return %1 : tensor<?xf32, ["seq"]>
}

// -----

// Without the bounds, the slice has min(512, seq) rows.
func.func @unbounded(%x: tensor<?xf32, ["seq"]>) -> tensor<?xf32, ["seq"]> {
  %t = "graph.constant"() {value = dense<0.5> : tensor<512xf32>} : () -> tensor<512xf32>
  // expected-error @+1 {{'graph.slice' op result #0 has type tensor<?xf32, ["seq"]> but the operands and attributes give tensor<?xf32, ["min(512, seq)"]>}}
  %0 = "graph.slice"(%t) {axes = array<i64: 0>, ends = ["seq"], starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<512xf32>) -> tensor<?xf32, ["seq"]>
  return %0 : tensor<?xf32, ["seq"]>
}
