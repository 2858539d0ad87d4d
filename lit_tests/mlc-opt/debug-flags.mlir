// IR printing, timing and generic printing, as in mlir-opt.
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-dce,func.func(cse))' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// PRINT: // -----// IR Dump After mlc-dce (mlc-dce) //----- //
// PRINT-NEXT: module {
// PRINT: // -----// IR Dump After CSE (cse) //----- //
// PRINT-NEXT: func.func @f

// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-dce,func.func(cse))' --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// TIMING: ... Execution time report ...
// TIMING: ----Wall Time----  ----Name----
// TIMING-NEXT: mlc-dce
// TIMING-NEXT: func.func(cse)
// TIMING: (100.0%)  Total

// RUN: mlc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// GENERIC: "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "f"}>
// GENERIC: "graph.relu"

// RUN: mlc-opt %s -o %t.mlir && FileCheck %s --check-prefix=OUTFILE < %t.mlir
// RUN: cat %s | mlc-opt - | FileCheck %s --check-prefix=OUTFILE
// OUTFILE: "graph.relu"

func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
