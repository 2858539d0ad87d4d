// RUN: mlc-opt %s --split-input-file --verify-diagnostics
// RUN: mlc-opt %S/symbolic.mlir --split-input-file --pass-pipeline='builtin.module(graph-verify,graph-fuse)' | FileCheck %s --check-prefix=FUSED
// FUSED: attributes {graph.kernel}
// Symbolic dims that the shape rules reject (the graph passes take the valid ones: fused).

func.func @inner_dims_differ(%a: tensor<?x?xf32, ["seq", "seq"]>, %b: tensor<?x8xf32, ["past", 8]>) {
  // expected-error @+1 {{'graph.matmul' op contracting dims differ: tensor<?x?xf32, ["seq", "seq"]> x tensor<?x8xf32, ["past", 8]>}}
  %0 = "graph.matmul"(%a, %b) : (tensor<?x?xf32, ["seq", "seq"]>, tensor<?x8xf32, ["past", 8]>) -> tensor<?x8xf32, ["seq", 8]>
  return
}

// -----

func.func @result_names_the_wrong_dim(%a: tensor<?x4xf32, ["batch", 4]>) {
  // expected-error @+1 {{'graph.relu' op result #0 has type tensor<?x4xf32, ["seq", 4]> but the operands and attributes give tensor<?x4xf32, ["batch", 4]>}}
  %0 = "graph.relu"(%a) : (tensor<?x4xf32, ["batch", 4]>) -> tensor<?x4xf32, ["seq", 4]>
  return
}

// -----

func.func @reshape_loses_elements(%x: tensor<?x4xf32, ["seq", 4]>) {
  // expected-error @+1 {{'graph.reshape' op cannot reshape tensor<?x4xf32, ["seq", 4]> (4*seq elements) to [seq, 2]}}
  %0 = "graph.reshape"(%x) {shape = ["seq", 2]} : (tensor<?x4xf32, ["seq", 4]>) -> tensor<?x2xf32, ["seq", 2]>
  return
}

// -----

func.func @bad_size_text(%s: tensor<i64>) {
  // expected-error @+1 {{'graph.range' op attribute 'size' must be array<i64: ...> or an array of integers and size expressions (["batch*seq", 64]), got ["seq +"]}}
  %0 = "graph.range"(%s, %s) {size = ["seq +"]} : (tensor<i64>, tensor<i64>) -> tensor<?xi64, ["seq"]>
  return
}
