// Malformed IR: file:line:col diagnostics, exit 1, no traceback.
// RUN: not mlc-opt %s 2>&1 | FileCheck %s
// CHECK: malformed.mlir:[[# @LINE + 4]]:22: error: expected SSA operand
// CHECK-NOT: Traceback

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, : i32
  return %0 : i32
}
