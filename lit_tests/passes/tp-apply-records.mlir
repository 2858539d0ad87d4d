// RUN: rm -f %t.jsonl
// RUN: %python %inputs/tp_records.py %s %t.jsonl '{tile = {i = array<i64: 4>}, vectorize = "i.1"}' 2.0
// RUN: %python %inputs/tp_records.py %s %t.jsonl '{unroll = {"i" = 2}}' 1.0
// RUN: mlc-opt %s --pass-pipeline="builtin.module(tp-apply-records{file=%t.jsonl})" | FileCheck %s
// RUN: echo '{"schema": 1, "workload": "x", "block": "b", "schedule": "{}"}' > %t.bad.jsonl
// RUN: not mlc-opt %s --pass-pipeline="builtin.module(tp-apply-records{file=%t.bad.jsonl})" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: rm -f %t.unfit.jsonl && %python %inputs/tp_records.py %s %t.unfit.jsonl '{tile = {z = array<i64: 2>}}'
// RUN: not mlc-opt %s --pass-pipeline="builtin.module(tp-apply-records{file=%t.unfit.jsonl})" 2>&1 | FileCheck %s --check-prefix=UNFIT

// The fastest record of the kernel's workload and block wins (cost 1.0 over 2.0); kernels with
// the same computation share records whatever their names and current schedules.
// CHECK-LABEL: func.func @k1
// CHECK: name = "exp", {{.*}}schedule = {unroll = {i = 2 : i64}}
// CHECK-LABEL: func.func @k2
// CHECK: name = "exp", {{.*}}schedule = {unroll = {i = 2 : i64}}
// BAD: error: tp-apply-records: {{.*}}.bad.jsonl:1: missing field(s) ['cost_ms']
// UNFIT: error: tp-apply-records: the record for block 'exp' of workload {{[0-9a-f]+}} does not fit the block: tile names unknown axis 'z' (axes: i)
func.func @k1(%A: memref<8xf32>, %O: memref<8xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<8xf32>) -> f32
    %e = math.exp %a : f32
    gpu.yield %e : f32
  }) {name = "exp", axes = ["i"], kinds = "S", extents = array<i64: 8>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<8xf32>) -> ()
  return
}
func.func @k2(%A: memref<8xf32>, %O: memref<8xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<8xf32>) -> f32
    %e = math.exp %a : f32
    gpu.yield %e : f32
  }) {name = "exp", axes = ["i"], kinds = "S", extents = array<i64: 8>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {vectorize = "i"}} : (memref<8xf32>) -> ()
  return
}
