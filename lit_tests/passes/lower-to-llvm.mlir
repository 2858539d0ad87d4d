// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm)' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm{threads=2})' | FileCheck %s --check-prefix=THREADS
// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm{threads=2 runtime=async})' | FileCheck %s --check-prefix=ASYNC
// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm{approx-math=false})' | FileCheck %s --check-prefix=LIBM
// RUN: mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm{vector-ldexp=true})' | FileCheck %s --check-prefix=LDEXP

// Loops, vectors and math over memrefs end up entirely in the LLVM dialect; erf and exp become
// inline polynomials (mlc-math-approx: fmas, no call). With approx-math=false, erf has no LLVM
// intrinsic and becomes a libm call, exp becomes the LLVM intrinsic (a libm call per lane).
// CHECK-LABEL: llvm.func @erf_exp(
// CHECK-NOT: llvm.call
// CHECK: llvm.intr.fma(
// CHECK-NOT: llvm.call
// CHECK-NOT: llvm.intr.exp(
// CHECK-NOT: scf.
// CHECK-NOT: memref.
// CHECK-LABEL: llvm.func @_mlir_ciface_erf_exp(
// LIBM-LABEL: llvm.func @erf_exp(
// LIBM: llvm.call @erff(
// LIBM: llvm.intr.exp(
// LIBM-LABEL: llvm.func @_mlir_ciface_erf_exp(
// vector-ldexp: exp's 2^k scale is the LLVM intrinsic (one vscalefps on AVX-512).
// LDEXP-LABEL: llvm.func @erf_exp(
// LDEXP: llvm.call_intrinsic "llvm.ldexp.f32.i32"
// LDEXP-LABEL: llvm.func @_mlir_ciface_erf_exp(

// With threads, scf.parallel becomes an OpenMP parallel loop (the omp ops are translated to
// libiomp5 calls with the module); runtime=async uses MLIR's async runtime instead.
// THREADS-LABEL: llvm.func @erf_exp(
// THREADS: omp.parallel num_threads(
// THREADS-NEXT: omp.wsloop
// THREADS: llvm.intr.fma(
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
// LIBM-LABEL: llvm.func @int_pow(
func.func @int_pow(%a: i32, %b: i32) -> i32 {
  %0 = math.ipowi %a, %b : i32
  return %0 : i32
}

// f16 math is computed in f32 (math-extend-to-supported-types), so it is approximated too; f64
// is left to the LLVM intrinsic (a libm call per lane in the backend).
// CHECK-LABEL: llvm.func @half_and_double(
// CHECK: llvm.fpext %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: llvm.intr.fma(
// CHECK: llvm.fptrunc %{{.*}} : vector<8xf32> to vector<8xf16>
// CHECK-NEXT: llvm.intr.tanh(%{{.*}}) : (f64) -> f64
// LIBM-LABEL: llvm.func @half_and_double(
// LIBM-NEXT: llvm.intr.tanh(%{{.*}}) : (vector<8xf16>) -> vector<8xf16>
// LIBM-NEXT: llvm.intr.tanh(%{{.*}}) : (f64) -> f64
func.func @half_and_double(%h: vector<8xf16>, %d: f64) -> (vector<8xf16>, f64) {
  %0 = math.tanh %h : vector<8xf16>
  %1 = math.tanh %d : f64
  return %0, %1 : vector<8xf16>, f64
}

// A loop to a size known only at run time: the bound is the kernel's index argument (an i64
// after the two memref descriptors); the dynamic row count leaves the row stride static (16).
// CHECK-LABEL: llvm.func @symbolic_rows(
// CHECK-SAME: %[[N:arg14]]: i64)
// CHECK: llvm.icmp "slt" %{{.*}}, %[[N]] : i64
// CHECK: %[[STRIDE:.*]] = llvm.mlir.constant(16 : index) : i64
// CHECK-NEXT: llvm.mul %{{.*}}, %[[STRIDE]]
func.func @symbolic_rows(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %x[%i, %j] : memref<?x16xf32>
      memref.store %v, %y[%i, %j] : memref<?x16xf32>
    }
  }
  return
}
