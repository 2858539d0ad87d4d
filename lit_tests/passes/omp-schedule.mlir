// RUN: mlc-opt %s --pass-pipeline='builtin.module(convert-scf-to-openmp{num-threads=2},canonicalize,omp-schedule)' --split-input-file | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(convert-scf-to-openmp{num-threads=2},canonicalize,omp-schedule{kind=guided chunks-per-thread=2})' --split-input-file | FileCheck %s --check-prefix=GUIDED
// RUN: mlc-opt %s --pass-pipeline='builtin.module(convert-scf-to-openmp{num-threads=2},canonicalize,omp-schedule{kind=static})' --split-input-file | FileCheck %s --check-prefix=STATIC
// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm{threads=2})' --split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm{threads=2 schedule=dynamic})' --split-input-file | FileCheck %s --check-prefix=LLVMDYN
// RUN: mlc-opt %s --pass-pipeline='builtin.module(convert-scf-to-openmp{num-threads=2},canonicalize,omp-schedule{kind=steal})' --split-input-file | FileCheck %s --check-prefix=STEAL
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(omp-schedule{kind=auto})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(omp-schedule{chunks-per-thread=0})' 2>&1 | FileCheck %s --check-prefix=BADCHUNKS

// A static schedule gives each thread a fixed half of the iterations: a thread slowed by
// the host makes the other wait at the closing barrier. Dynamic chunks go to whichever thread
// is free; each is an eighth of a thread's share (64 x 100 iterations on 2 threads: 400), so
// thousands of short rows cost 16 atomic increments, not 6400.
// CHECK-LABEL: func.func @collapsed
// CHECK: omp.parallel num_threads(
// CHECK: %[[CHUNK:.*]] = arith.constant 400 : i32
// CHECK: omp.wsloop schedule(dynamic = %[[CHUNK]] : i32) {
// CHECK-NEXT: omp.loop_nest ({{.*}}) : index = ({{.*}}) to ({{.*}}) step ({{.*}}) collapse(2) {
// CHECK: memref.store
// GUIDED-LABEL: func.func @collapsed
// GUIDED: %[[CHUNK:.*]] = arith.constant 1600 : i32
// GUIDED: omp.wsloop schedule(guided = %[[CHUNK]] : i32) {
// `steal` is nonmonotonic dynamic: the OpenMP runtime starts each thread on its static share
// and lets a thread that finishes early take the other's remaining chunks.
// STEAL-LABEL: func.func @collapsed
// STEAL: %[[CHUNK:.*]] = arith.constant 400 : i32
// STEAL: omp.wsloop schedule(dynamic = %[[CHUNK]] : i32, nonmonotonic) {
// STATIC-LABEL: func.func @collapsed
// STATIC: omp.wsloop schedule(static) {
// lower-to-llvm keeps the static schedule unless told otherwise (dynamic chunks ran 4 of 5
// models 0.93-0.98x as fast on 2 cores).
// LLVM-LABEL: llvm.func @collapsed
// LLVM: omp.wsloop {
// LLVMDYN-LABEL: llvm.func @collapsed
// LLVMDYN: omp.wsloop schedule(dynamic = %{{.*}} : i32) {
// BAD: omp-schedule: invalid value 'auto' for option 'kind' (expected static|dynamic|guided|steal)
// BADCHUNKS: omp-schedule: chunks-per-thread must be >= 1, got 0
func.func @collapsed(%a: memref<64x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c100) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<64x100xf32>
    memref.store %v, %a[%i, %j] : memref<64x100xf32>
    scf.reduce
  }
  return
}

// -----

// Fewer iterations than threads x chunks: one iteration per chunk. Bounds that are not
// constants leave the chunk to the runtime (one iteration).
// CHECK-LABEL: func.func @short_and_dynamic
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: omp.wsloop schedule(dynamic = %[[ONE]] : i32) {
// CHECK: omp.wsloop schedule(dynamic) {
func.func @short_and_dynamic(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.parallel (%i) = (%c0) to (%c6) step (%c1) {
    %v = memref.load %a[%i] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %a[%i] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
