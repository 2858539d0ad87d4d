// RUN: mlc-opt %s --pass-pipeline='builtin.module(llvm-merge-kernels)' --split-input-file | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(llvm-merge-kernels{max-arguments=1})' --split-input-file | FileCheck %s --check-prefix=ONE

// Kernels equal up to i64 constants (DenseNet's layers: one channel count apart) become one
// kernel taking the differing constants as trailing arguments; constants that differ alike
// (here 24/26 and 48/52 do not, 3136 does not differ) share one argument.

// CHECK-LABEL: llvm.func internal @k_1(%arg0: !llvm.ptr, %arg1: i64, %arg2: i64)
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(3136 : index) : i64
// CHECK-NEXT: %[[M:.*]] = llvm.mul %arg1, %[[S]] : i64
// CHECK-NEXT: %[[E:.*]] = llvm.add %[[M]], %arg2 : i64
// CHECK-NOT: llvm.func internal @k_2
// CHECK-LABEL: llvm.func @main
// CHECK-NEXT: %[[A:.*]] = llvm.mlir.constant(24 : i64) : i64
// CHECK-NEXT: %[[B:.*]] = llvm.mlir.constant(48 : i64) : i64
// CHECK-NEXT: llvm.call @k_1(%arg0, %[[A]], %[[B]]) : (!llvm.ptr, i64, i64) -> ()
// CHECK-NEXT: %[[C:.*]] = llvm.mlir.constant(26 : i64) : i64
// CHECK-NEXT: %[[D:.*]] = llvm.mlir.constant(52 : i64) : i64
// CHECK-NEXT: llvm.call @k_1(%arg0, %[[C]], %[[D]]) : (!llvm.ptr, i64, i64) -> ()

// More differing values than max-arguments: both kernels stay.
// ONE-LABEL: llvm.func internal @k_1(%arg0: !llvm.ptr)
// ONE-LABEL: llvm.func internal @k_2(%arg0: !llvm.ptr)
// ONE: llvm.call @k_1(%arg0) : (!llvm.ptr) -> ()
// ONE-NEXT: llvm.call @k_2(%arg0) : (!llvm.ptr) -> ()
module {
  llvm.func internal @k_1(%arg0: !llvm.ptr) attributes {passthrough = ["noinline"], sym_visibility = "private", tp.kernel} {
    %0 = llvm.mlir.constant(24 : index) : i64
    %1 = llvm.mlir.constant(3136 : index) : i64
    %2 = llvm.mul %0, %1 : i64
    %3 = llvm.mlir.constant(48 : index) : i64
    %4 = llvm.add %2, %3 : i64
    %5 = llvm.getelementptr %arg0[%4] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %6 = llvm.mlir.constant(1.0 : f32) : f32
    llvm.store %6, %5 : f32, !llvm.ptr
    llvm.return
  }
  llvm.func internal @k_2(%arg0: !llvm.ptr) attributes {passthrough = ["noinline"], sym_visibility = "private", tp.kernel} {
    %0 = llvm.mlir.constant(26 : index) : i64
    %1 = llvm.mlir.constant(3136 : index) : i64
    %2 = llvm.mul %0, %1 : i64
    %3 = llvm.mlir.constant(52 : index) : i64
    %4 = llvm.add %2, %3 : i64
    %5 = llvm.getelementptr %arg0[%4] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %6 = llvm.mlir.constant(1.0 : f32) : f32
    llvm.store %6, %5 : f32, !llvm.ptr
    llvm.return
  }
  llvm.func @main(%arg0: !llvm.ptr) {
    llvm.call @k_1(%arg0) : (!llvm.ptr) -> ()
    llvm.call @k_2(%arg0) : (!llvm.ptr) -> ()
    llvm.return
  }
}

// -----

// Left alone: kernels that differ in anything but i64 constants (an f32 value), a kernel whose
// address is taken, and constants that size a stack buffer.

// CHECK-LABEL: llvm.func internal @f_1
// CHECK-LABEL: llvm.func internal @f_2
// CHECK-LABEL: llvm.func internal @a_1(%arg0: !llvm.ptr)
// CHECK-LABEL: llvm.func internal @a_2(%arg0: !llvm.ptr)
// CHECK-LABEL: llvm.func internal @s_1(%arg0: !llvm.ptr)
// CHECK-LABEL: llvm.func internal @s_2(%arg0: !llvm.ptr)
// CHECK-LABEL: llvm.func @main
// CHECK-NEXT: llvm.call @f_1(%arg0) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.call @f_2(%arg0) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.call @a_1(%arg0) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.call @a_2(%arg0) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.mlir.addressof @a_2
// CHECK-NEXT: llvm.call @s_1(%arg0) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.call @s_2(%arg0) : (!llvm.ptr) -> ()
module {
  llvm.func internal @f_1(%arg0: !llvm.ptr) attributes {tp.kernel} {
    %0 = llvm.mlir.constant(1.0 : f32) : f32
    llvm.store %0, %arg0 : f32, !llvm.ptr
    llvm.return
  }
  llvm.func internal @f_2(%arg0: !llvm.ptr) attributes {tp.kernel} {
    %0 = llvm.mlir.constant(2.0 : f32) : f32
    llvm.store %0, %arg0 : f32, !llvm.ptr
    llvm.return
  }
  llvm.func internal @a_1(%arg0: !llvm.ptr) attributes {tp.kernel} {
    %0 = llvm.mlir.constant(1 : index) : i64
    llvm.store %0, %arg0 : i64, !llvm.ptr
    llvm.return
  }
  llvm.func internal @a_2(%arg0: !llvm.ptr) attributes {tp.kernel} {
    %0 = llvm.mlir.constant(2 : index) : i64
    llvm.store %0, %arg0 : i64, !llvm.ptr
    llvm.return
  }
  llvm.func internal @s_1(%arg0: !llvm.ptr) attributes {tp.kernel} {
    %0 = llvm.mlir.constant(16 : index) : i64
    %1 = llvm.alloca %0 x f32 : (i64) -> !llvm.ptr
    llvm.store %1, %arg0 : !llvm.ptr, !llvm.ptr
    llvm.return
  }
  llvm.func internal @s_2(%arg0: !llvm.ptr) attributes {tp.kernel} {
    %0 = llvm.mlir.constant(32 : index) : i64
    %1 = llvm.alloca %0 x f32 : (i64) -> !llvm.ptr
    llvm.store %1, %arg0 : !llvm.ptr, !llvm.ptr
    llvm.return
  }
  llvm.func @main(%arg0: !llvm.ptr) {
    llvm.call @f_1(%arg0) : (!llvm.ptr) -> ()
    llvm.call @f_2(%arg0) : (!llvm.ptr) -> ()
    llvm.call @a_1(%arg0) : (!llvm.ptr) -> ()
    llvm.call @a_2(%arg0) : (!llvm.ptr) -> ()
    %0 = llvm.mlir.addressof @a_2 : !llvm.ptr
    llvm.call @s_1(%arg0) : (!llvm.ptr) -> ()
    llvm.call @s_2(%arg0) : (!llvm.ptr) -> ()
    llvm.return
  }
}
