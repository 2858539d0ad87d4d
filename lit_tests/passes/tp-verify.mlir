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

// -----

// Extents known only at run time: a -1 extent needs its expression (extent_exprs), and a
// vectorized loop must run to a static bound (its axis tiled by the vector width).
func.func @symbolic_bad_blocks(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %n: index) attributes {tp.kernel, tp.symbols = ["n"]} {
  // expected-error @+1 {{'tp.block' op extents [-1, 16] must give one positive extent per axis}}
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(d0, d1) -> (d0, d1)>} : (memref<?x16xf32>) -> f32
    gpu.yield %a : f32
  }) {axes = ["i", "j"], combiner = "none", extents = array<i64: -1, 16>, init, kinds = "SS", name = "copy", out_map = affine_map<(d0, d1) -> (d0, d1)>, schedule = {}} : (memref<?x16xf32>) -> ()
  // expected-error @+1 {{'tp.block' op schedule: vectorized loop 'i' runs to a bound known at run time: tile its axis by the vector width}}
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(d0, d1) -> (d0, d1)>} : (memref<?x16xf32>) -> f32
    gpu.yield %a : f32
  }) {axes = ["i", "j"], combiner = "none", extent_exprs = ["n", ""], extents = array<i64: -1, 16>, init, kinds = "SS", name = "copy_1", out_map = affine_map<(d0, d1) -> (d0, d1)>, schedule = {order = ["j", "i"], vectorize = "i"}} : (memref<?x16xf32>) -> ()
  return
}

// -----

// OK-LABEL: func.func @symbolic_valid
// OK: extent_exprs = ["n", ""], extents = array<i64: -1, 16>
// OK-SAME: schedule = {order = ["i", "j.0", "j.1"], tile = {j = array<i64: 8>}, vectorize = "j.1"}
func.func @symbolic_valid(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %n: index) attributes {tp.kernel, tp.symbols = ["n"]} {
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(d0, d1) -> (d0, d1)>} : (memref<?x16xf32>) -> f32
    gpu.yield %a : f32
  }) {axes = ["i", "j"], combiner = "none", extent_exprs = ["n", ""], extents = array<i64: -1, 16>, init, kinds = "SS", name = "copy", out_map = affine_map<(d0, d1) -> (d0, d1)>, schedule = {order = ["i", "j.0", "j.1"], tile = {j = array<i64: 8>}, vectorize = "j.1"}} : (memref<?x16xf32>) -> ()
  return
}
