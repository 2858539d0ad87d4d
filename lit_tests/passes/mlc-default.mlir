// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-default{weight-panel=0})' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-default{weight-panel=16})' | FileCheck %s --check-prefix=PANELS
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-default{threads=2})' | FileCheck %s --check-prefix=THREADS
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-default{threads=2 omp-schedule=dynamic})' | FileCheck %s --check-prefix=DYNAMIC
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-default{max-group-size=1 weight-panel=0})' | FileCheck %s --check-prefix=NOFUSE
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-default)' --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=APPROX
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-default{approx-math=false})' --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=LIBM
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-default{vector-ldexp=true})' --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=LDEXP
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-default{vector-ldexp=false})' --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=NOLDEXP
// RUN: mlc-opt %inputs/symbolic_relu.mlir --pass-pipeline='builtin.module(mlc-default)' | FileCheck %s --check-prefix=SYMBOLIC

// A model with a symbolic dim n (Inputs/symbolic_relu.mlir), the whole way: the manifest keeps
// "n"; the kernel takes n as an i64 after its two memref descriptors and its row loop compares
// against it; mlc_main passes the input descriptor's size 0 (memref.dim) as n.
// SYMBOLIC: module attributes {mlc.manifest = "{{.*}}\22shape\22: [\22n\22, 16]
// SYMBOLIC: llvm.func internal @fused_relu_0({{.*}}: i64, %[[N:arg14]]: i64)
// SYMBOLIC: llvm.icmp "slt" %{{.*}}, %[[N]] : i64
// SYMBOLIC-LABEL: llvm.func @mlc_main(
// SYMBOLIC: %[[DIM:.*]] = llvm.extractvalue %{{.*}}[3, 0]
// SYMBOLIC: llvm.call @fused_relu_0({{.*}}, %[[DIM]]) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64) -> ()

// The whole compilation: graph ops to an LLVM-dialect module with the C entry point and manifest.
// CHECK: module attributes {mlc.manifest = "{\22entry\22: \22mlc_main\22
// CHECK-DAG: llvm.func @mlc_main(
// CHECK-DAG: llvm.func @_mlir_ciface_mlc_main(
// CHECK-DAG: llvm.func internal @fused_matmul_relu_0(
// CHECK-NOT: graph.
// CHECK-NOT: tp.block

// threads=2: the kernel's parallel loop is split in 2 static chunks and runs as an OpenMP loop
// (nowait: the region's end is the barrier).
// THREADS: omp.parallel num_threads(
// THREADS-NEXT: omp.wsloop nowait {
// omp-schedule=dynamic: chunks to whichever thread is free (omp-schedule).
// DYNAMIC: omp.parallel num_threads(
// DYNAMIC: omp.wsloop nowait schedule(dynamic = %{{.*}} : i32) {

// The math approximations run right before the math conversions, unless approx-math=false.
// APPROX: tp-to-loops
// APPROX: mlc-math-approx
// APPROX-NEXT: convert-math-to-funcs
// LIBM: tp-to-loops
// LIBM-NOT: mlc-math-approx
// LIBM: convert-math-to-funcs
// vector-ldexp (default: the host has AVX-512) reaches mlc-math-approx through lower-to-llvm.
// LDEXP: mlc-math-approx{vector-ldexp=true}
// NOLDEXP-NOT: vector-ldexp
// NOLDEXP: mlc-math-approx
// NOLDEXP-NOT: vector-ldexp

// weight-panel=16: the weights are packed by a kernel of their own here (mlc-opt has no
// parameter values to fold it with); the product runs panel by panel and writes its rows
// through the transpose back, with the relu, in one kernel.
// PANELS-DAG: llvm.func internal @fused_reshape_transpose_0(
// PANELS-DAG: llvm.func internal @fused_matmul_transpose_reshape_relu_1(
// PANELS-NOT: llvm.func internal @fused_transpose

// NOFUSE-DAG: llvm.func internal @fused_matmul_0(
// NOFUSE-DAG: llvm.func internal @fused_relu_1(
func.func @main(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<64x64xf32>
  %m = "graph.matmul"(%a, %w) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = "graph.relu"(%m) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
