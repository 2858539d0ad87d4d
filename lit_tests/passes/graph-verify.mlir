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
