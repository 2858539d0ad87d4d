// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(convert-scf-to-openmp{num-threads=2},canonicalize,omp-merge-regions)' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(convert-scf-to-openmp{num-threads=2},canonicalize,omp-merge-regions{serial-between=false})' | FileCheck %s --check-prefix=NOSERIAL
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(lower-to-llvm{threads=2})' | FileCheck %s --check-prefix=LLVM
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(lower-to-llvm{threads=2 merge-regions=false})' | FileCheck %s --check-prefix=UNMERGED

// A kernel of two parallel blocks (a pad, then the loop that reads it) forks once: the second
// work-sharing loop moves into the first region, after the first loop's closing barrier.
// The scratch view between them is hoisted above the region.
// CHECK-LABEL: func.func @two_blocks
// CHECK: memref.view
// CHECK: omp.parallel
// CHECK-NOT: omp.parallel
// CHECK: omp.wsloop {
// CHECK: memref.store %{{.*}}, %[[T:.*]][
// CHECK: omp.wsloop nowait {
// CHECK: memref.load
// CHECK: omp.terminator
// CHECK-NOT: omp.parallel
// CHECK: return
// LLVM-LABEL: llvm.func @two_blocks
// LLVM: omp.parallel
// LLVM-NOT: omp.parallel
// LLVM: llvm.return
// UNMERGED-LABEL: llvm.func @two_blocks
// UNMERGED-COUNT-2: omp.parallel
func.func @two_blocks(%a: memref<64xf32>, %b: memref<64xf32>, %scratch: memref<?xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %b[%i] : memref<64xf32>
    scf.reduce
  }
  %t = memref.view %scratch[%c0][] : memref<?xi8> to memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %b[%i] : memref<64xf32>
    memref.store %v, %t[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %j = arith.subi %c64, %c1 : index
    %k = arith.subi %j, %i : index
    %v = memref.load %t[%k] : memref<64xf32>
    memref.store %v, %a[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// A serial loop between two parallel blocks runs on one thread in an omp.single (its own
// closing barrier keeps the next loop from reading too early). Without serial-between the
// regions stay apart. What follows the last region stays outside.
// CHECK-LABEL: func.func @serial_between
// CHECK: omp.parallel
// CHECK: omp.wsloop {
// CHECK: omp.single {
// CHECK-NEXT: memref.store
// CHECK-NEXT: scf.for
// CHECK: omp.terminator
// CHECK: omp.wsloop nowait {
// CHECK: omp.terminator
// CHECK-NOT: omp.parallel
// CHECK: scf.for
// CHECK: return
// NOSERIAL-LABEL: func.func @serial_between
// NOSERIAL-COUNT-2: omp.parallel
// NOSERIAL-NOT: omp.single
func.func @serial_between(%a: memref<64xf32>, %s: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %a[%i] : memref<64xf32>
    scf.reduce
  }
  memref.store %zero, %s[%c0] : memref<1xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf32>
    %acc = memref.load %s[%c0] : memref<1xf32>
    %n = arith.addf %acc, %v : f32
    memref.store %n, %s[%c0] : memref<1xf32>
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    %d = memref.load %s[%c0] : memref<1xf32>
    %q = arith.divf %v, %d : f32
    memref.store %q, %a[%i] : memref<64xf32>
    scf.reduce
  }
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %zero, %a[%i] : memref<64xf32>
  }
  return
}

// -----

// A single parallel block stays as it is, but for its loop's barrier: the threads meet at the
// region's end anyway.
// CHECK-LABEL: func.func @one_block
// CHECK-COUNT-1: omp.parallel
// CHECK-NEXT: omp.wsloop nowait {
// CHECK-NOT: omp.single
func.func @one_block(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %f, %a[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
