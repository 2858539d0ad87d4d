// RUN: mlc-opt %s --verify-each=false --pass-pipeline='builtin.module(tp-verify)' --split-input-file --verify-diagnostics
// RUN: not mlc-opt %s --verify-each=false --pass-pipeline='builtin.module(tp-verify)' --split-input-file 2>&1 | FileCheck %s --check-prefix=OK

// tp-verify reports the schedule and map problems of every block.
func.func @bad_blocks(%A: memref<8xf32>, %O: memref<8xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: vectorized loop 'i.0' must be the innermost loop}}
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<8xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "copy", axes = ["i"], kinds = "S", extents = array<i64: 8>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {tile = {i = array<i64: 4>}, vectorize = "i.0"}} : (memref<8xf32>) -> ()
  "tp.block"(%O) ({
    // expected-error @+1 {{'tp.read' op reads out of bounds}}
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i + 4)>} : (memref<8xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "shift", axes = ["i"], kinds = "S", extents = array<i64: 8>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<8xf32>) -> ()
  return
}

// -----

// OK-LABEL: func.func @valid_schedule
// OK: schedule = {parallel = ["i.0"], tile = {i = array<i64: 4>}, vectorize = "i.1"}
func.func @valid_schedule(%A: memref<8xf32>, %O: memref<8xf32>) {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<8xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "copy", axes = ["i"], kinds = "S", extents = array<i64: 8>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {tile = {i = array<i64: 4>}, vectorize = "i.1", parallel = ["i.0"]}} : (memref<8xf32>) -> ()
  return
}
