// RUN: rm -f %t.jsonl
// RUN: %python %inputs/tp_records.py %s %t.jsonl '{tile = {i = array<i64: 4>}, vectorize = "i.1"}' 2.0 --default
// RUN: %python %inputs/tp_records.py %s %t.jsonl '{unroll = {"i" = 2}}' 1.0
// RUN: %python %inputs/tp_records.py %s %t.jsonl '{unroll = {"i" = 4}}' 0.5 --threads 2
// RUN: %python %inputs/tp_records.py %s %t.jsonl '{unroll = {"i" = 8}}' 0.25 --cpu other-cpu
// RUN: mlc-opt %s --pass-pipeline="builtin.module(tp-apply-records{file=%t.jsonl})" 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=COVER < %t.err
// RUN: mlc-opt %s --pass-pipeline="builtin.module(tp-apply-records{file=%t.jsonl threads=2})" | FileCheck %s --check-prefix=THREADS2

// Records of another target or thread count never apply, whatever their cost.
// RUN: rm -f %t.other.jsonl && %python %inputs/tp_records.py %s %t.other.jsonl '{unroll = {"i" = 8}}' 0.1 --cpu other-cpu
// RUN: mlc-opt %s --pass-pipeline="builtin.module(tp-apply-records{file=%t.other.jsonl})" 2>&1 | FileCheck %s --check-prefix=OTHER

// A record that does not fit its block, and a line that is not a record: warnings, never errors;
// the block keeps its (here empty) default schedule and the next kernel still gets its record.
// RUN: rm -f %t.unfit.jsonl && %python %inputs/tp_records.py %s %t.unfit.jsonl '{tile = {z = array<i64: 2>}}'
// RUN: echo '{"schema": 2, "workload": "x", "block": "b", "schedule": "{}"}' >> %t.unfit.jsonl
// RUN: mlc-opt %s --pass-pipeline="builtin.module(tp-apply-records{file=%t.unfit.jsonl})" 2>%t.unfit.err | FileCheck %s --check-prefix=KEPT
// RUN: FileCheck %s --check-prefix=UNFIT < %t.unfit.err
// RUN: echo 'garbage' > %t.bad.jsonl
// RUN: not mlc-opt %s --pass-pipeline="builtin.module(tp-apply-records{file=%t.bad.jsonl})" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not mlc-opt %s --pass-pipeline="builtin.module(tp-apply-records{file=%t.missing.jsonl})" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: rm -f %t.sym.jsonl %t.symbad.jsonl
// RUN: %python %inputs/tp_records.py %inputs/symbolic_exp_kernel.mlir %t.sym.jsonl '{tile = {i = array<i64: 8>}, vectorize = "i.1"}'
// RUN: mlc-opt %inputs/symbolic_exp_kernel.mlir --pass-pipeline="builtin.module(tp-apply-records{file=%t.sym.jsonl})" 2>&1 | FileCheck %s --check-prefix=SYMBOLIC
// RUN: %python %inputs/tp_records.py %inputs/symbolic_exp_kernel.mlir %t.symbad.jsonl '{unroll = {"i" = 2}, vectorize = "i"}'
// RUN: mlc-opt %inputs/symbolic_exp_kernel.mlir --pass-pipeline="builtin.module(tp-apply-records{file=%t.symbad.jsonl})" 2>&1 | FileCheck %s --check-prefix=SYMBOLIC-FIT


// The fastest record of the kernel's workload, block, target and thread count wins (cost 1.0
// over the default's 2.0; not 0.5 of 2 threads, not 0.25 of another CPU); kernels with the same
// computation share records whatever their names and current schedules.
// CHECK-LABEL: func.func @k1
// CHECK: name = "exp", {{.*}}schedule = {unroll = {i = 2 : i64}}
// CHECK-LABEL: func.func @k2
// CHECK: name = "exp", {{.*}}schedule = {unroll = {i = 2 : i64}}
// COVER: remark: tp-apply-records: 4 record(s) of {{.*}}.jsonl were measured for another target or thread count (other-cpu (x86_64-{{.*}}), 1 thread(s); {{.*}}, 2 thread(s)) and are ignored; this compile is for {{.*}}, 1 thread(s)
// COVER-NEXT: remark: tp-apply-records: applied tuned schedules to 2 of 2 kernels (at 50 % of their default latency)
// THREADS2-LABEL: func.func @k1
// THREADS2: name = "exp", {{.*}}schedule = {unroll = {i = 4 : i64}}
// OTHER: warning: tp-apply-records: 2 record(s) of {{.*}}.other.jsonl were measured for another target or thread count (other-cpu (x86_64-{{.*}}), 1 thread(s)) and are ignored
// OTHER-NEXT: remark: tp-apply-records: applied tuned schedules to 0 of 2 kernels
// OTHER-LABEL: func.func @k1
// OTHER: name = "exp", {{.*}}schedule = {}
// KEPT-LABEL: func.func @k1
// KEPT: name = "exp", {{.*}}schedule = {}
// KEPT-LABEL: func.func @k2
// KEPT: name = "exp", {{.*}}schedule = {vectorize = "i"}
// UNFIT: warning: tp-apply-records: {{.*}}.unfit.jsonl:3: missing field(s) ['cost_ms']; the line is ignored
// UNFIT-NEXT: tp-apply-records.mlir:[[# @LINE + 6]]:3: warning: tp-apply-records: the best record for block 'exp' of kernel k1 (workload {{[0-9a-f]+}}, {{.*}}.unfit.jsonl:1) does not fit the block: tile names unknown axis 'z' (axes: i); the block keeps its default schedule
// UNFIT-NEXT: tp-apply-records.mlir:[[# @LINE + 14]]:3: warning: tp-apply-records: the best record for block 'exp' of kernel k2 {{.*}} does not fit the block
// UNFIT-NEXT: remark: tp-apply-records: applied tuned schedules to 0 of 2 kernels
// BAD: error: tp-apply-records: '{{.*}}.bad.jsonl' holds no tuning records: {{.*}}.bad.jsonl:1: not a JSON object
// MISSING: error: tp-apply-records: cannot read tuning records '{{.*}}.missing.jsonl'
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

// A kernel over a run-time extent n (Inputs/symbolic_exp_kernel.mlir) takes a record measured
// on it whose vector loop runs to a static bound (the axis tiled by the vector width); a
// record tuned at some size that unrolls or vectorizes the run-time loop itself applies less
// those (Schedule.fit_runtime_extents, as default schedules do; the tuner measures it so).
// SYMBOLIC: remark: tp-apply-records: applied tuned schedules to 1 of 1 kernels
// SYMBOLIC: extent_exprs = ["n"], extents = array<i64: -1>{{.*}}name = "exp"{{.*}}schedule = {tile = {i = array<i64: 8>}, vectorize = "i.1"}
// SYMBOLIC-FIT-NOT: warning
// SYMBOLIC-FIT: remark: tp-apply-records: applied tuned schedules to 1 of 1 kernels
// SYMBOLIC-FIT: name = "exp"{{.*}}schedule = {}
