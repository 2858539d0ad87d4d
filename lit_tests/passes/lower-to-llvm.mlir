// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm)' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm{threads=2})' | FileCheck %s --check-prefix=THREADS
// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm{threads=2 runtime=async})' | FileCheck %s --check-prefix=ASYNC

// Loops, vectors and math over memrefs end up entirely in the LLVM dialect; erf has no LLVM
// intrinsic and becomes a libm call, exp becomes the LLVM intrinsic.
// CHECK-LABEL: llvm.func @erf_exp(
// CHECK: llvm.call @erff(
// CHECK: llvm.intr.exp(
// CHECK-NOT: scf.
// CHECK-NOT: memref.
// CHECK-LABEL: llvm.func @_mlir_ciface_erf_exp(

// With threads, scf.parallel becomes an OpenMP parallel loop (the omp ops are translated to
// libiomp5 calls with the module); runtime=async uses MLIR's async runtime instead.
// THREADS-LABEL: llvm.func @erf_exp(
// THREADS: omp.parallel num_threads(
// THREADS-NEXT: omp.wsloop
// THREADS: llvm.call @erff(
// THREADS-NOT: mlirAsyncRuntime
// ASYNC-LABEL: llvm.func @erf_exp(
// ASYNC: llvm.call @mlirAsyncRuntime
// ASYNC-NOT: omp.
func.func @erf_exp(%a: memref<16xf32>, %b: memref<16xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %x = memref.load %a[%i] : memref<16xf32>
    %e = math.erf %x : f32
    %y = math.exp %e : f32
    memref.store %y, %b[%i] : memref<16xf32>
    scf.reduce
  }
  return
}

// Integer powers have no LLVM intrinsic or libm function: they become an outlined loop.
// CHECK-LABEL: llvm.func @int_pow(
// CHECK: llvm.call @__mlir_math_ipowi_i32(
func.func @int_pow(%a: i32, %b: i32) -> i32 {
  %0 = math.ipowi %a, %b : i32
  return %0 : i32
}
