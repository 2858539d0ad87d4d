// Ops of unknown dialects need --allow-unregistered-dialect, as in mlir-opt.
// RUN: not mlc-opt %s 2>&1 | FileCheck %s --check-prefix=REJECT
// RUN: mlc-opt %s --allow-unregistered-dialect | FileCheck %s --check-prefix=ALLOW
// REJECT: unregistered.mlir:[[# @LINE + 4]]:17: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect
// ALLOW: %[[V:.*]] = "test.op"() : () -> f32

func.func @f() -> f32 {
  %0 = "test.op"() : () -> f32
  return %0 : f32
}
