// RUN: mlc-opt %s --pass-pipeline='builtin.module(omp-threads{threads=4})' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(omp-threads,omp-threads)' | FileCheck %s --check-prefix=TWICE
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(omp-threads{threads=0})' 2>&1 | FileCheck %s --check-prefix=BAD
// Every omp.parallel reads its thread count from one global, initialized to the compiled
// count, which the C API sets at run time (num_threads of <entry>_create...).

// CHECK: llvm.mlir.global external @mlc_main_num_threads(4 : i32) {addr_space = 0 : i32} : i32
// CHECK-LABEL: func.func @two_regions
// CHECK: %[[A:.*]] = llvm.mlir.addressof @mlc_main_num_threads : !llvm.ptr
// CHECK-NEXT: %[[N:.*]] = llvm.load %[[A]] : !llvm.ptr -> i32
// CHECK-NEXT: omp.parallel num_threads(%[[N]] : i32)
// CHECK: %[[A2:.*]] = llvm.mlir.addressof @mlc_main_num_threads : !llvm.ptr
// CHECK-NEXT: %[[N2:.*]] = llvm.load %[[A2]] : !llvm.ptr -> i32
// CHECK-NEXT: omp.parallel num_threads(%[[N2]] : i32)

// One global and one load per region however often it runs:
// TWICE-COUNT-1: llvm.mlir.global
// TWICE-COUNT-2: llvm.load

// BAD: threads must be >= 1, got 0

func.func @two_regions(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  %n = llvm.mlir.constant(2 : i32) : i32
  omp.parallel num_threads(%n : i32) {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.store %f, %a[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel num_threads(%n : i32) {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.store %f, %a[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
