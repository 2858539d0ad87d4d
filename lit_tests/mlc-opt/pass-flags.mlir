// mlir-opt habits: passes as flags (run in the order given, with options after '='), -p and
// one-dash long flags. They make the same pipeline as --pass-pipeline.
// RUN: mlc-opt %s --graph-verify --mlc-dce --canonicalize=max-iterations=2 --mlir-timing 2>&1 | FileCheck %s
// RUN: mlc-opt %s -p 'builtin.module(mlc-dce)' | FileCheck %s --check-prefix=DCE
// RUN: mlc-opt %s -pass-pipeline='builtin.module(mlc-dce)' -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: not mlc-opt %s --cse --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not mlc-opt %s --canonicalize=no-such-option=1 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not mlc-opt %s --graph-verifyy 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mlc-opt %s --lower-to-llvm 2>&1 | FileCheck %s --check-prefix=LOWER

// CHECK: ----Wall Time----  ----Name----
// CHECK-NEXT: graph-verify
// CHECK-NEXT: mlc-dce
// CHECK-NEXT: canonicalize{max-iterations=2}
// CHECK-LABEL: func.func @dead_op(
// CHECK-NEXT: return %arg0
// DCE-LABEL: func.func @dead_op(
// DCE-NEXT: return %arg0
// GENERIC: "func.return"(%arg0)
// BOTH: mlc-opt: error: --pass-pipeline cannot be combined with pass flags
// BADOPT: upstream pass 'canonicalize': <Pass-Options-Parser>: no such option no-such-option
// UNKNOWN: mlc-opt: error: unrecognized arguments: --graph-verifyy
// LOWER: error: 'graph.exp' was not lowered to the LLVM dialect (1 op(s)); the module is still in the graph dialect
func.func @dead_op(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %a : tensor<2xf32>
}
