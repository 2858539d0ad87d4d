// RUN: mlc-opt %s --pass-pipeline='builtin.module(llvm-verify)' --split-input-file --verify-diagnostics
// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm)' --split-input-file --verify-diagnostics

// llvm-verify (the last step of lower-to-llvm) names every kind of op that is not in the LLVM
// dialect, with what lowers it: graph- and tp-dialect input used to "lower" without a word.
// Left-over graph or tp ops are reported alone (the rest follows from them).

func.func @graph_input(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.exp' was not lowered to the LLVM dialect (2 op(s)); the module is still in the graph dialect: compile it with mlc-default}}
  %0 = "graph.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "graph.exp"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' was not lowered to the LLVM dialect (1 op(s)); lower-to-llvm takes loops over memrefs, not tensors}}
func.func @tensor_input(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'func.return' was not lowered to the LLVM dialect (1 op(s)); lower-to-llvm takes loops over memrefs, not tensors}}
  return %a : tensor<2xf32>
}

// -----

func.func @tp_input(%A: memref<8xf32>, %O: memref<8xf32>) {
  // expected-error @+1 {{'tp.block' was not lowered to the LLVM dialect (1 op(s)); the module still holds tensor programs: run tp-to-loops first}}
  "tp.block"(%O) ({
    // expected-error @+1 {{'tp.read' was not lowered to the LLVM dialect (1 op(s)); the module still holds tensor programs: run tp-to-loops first}}
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<8xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "copy", axes = ["i"], kinds = "S", extents = array<i64: 8>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<8xf32>) -> ()
  return
}

// -----

// The LLVM dialect passes.
llvm.func @lowered(%a: f32) -> f32 {
  %0 = llvm.fadd %a, %a : f32
  llvm.return %0 : f32
}
