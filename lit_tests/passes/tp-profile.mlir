// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp,tp-profile)' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp,tp-profile,tp-profile)' | FileCheck %s --check-prefix=TWICE
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(tp-profile)' 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: mlc-opt %inputs/symbolic_relu.mlir --pass-pipeline='builtin.module(graph-fuse,graph-to-tp,tp-profile)' | FileCheck %s --check-prefix=SYMBOLIC

// A kernel over sizes known only at run time: its operation count is an expression over the
// symbols (16*n), which GraphModule.profile evaluates with the sizes of the run.
// SYMBOLIC: \22profile\22: [{\22anchor\22: \22relu\22, \22flops\22: \2216*n\22, \22kernel\22: \22fused_relu_0\22
// SYMBOLIC-LABEL: func.func @mlc_main(
// SYMBOLIC: call @__mlc_profile_clock()
// SYMBOLIC-NEXT: call @fused_relu_0(
// SYMBOLIC-NEXT: call @__mlc_profile_clock()

// Before graph-to-tp there is no entry to instrument.
// BEFORE: error: tp-profile: the module has no mlc.manifest (run it after graph-to-tp)

// A second run leaves an instrumented module alone.
// TWICE: llvm.func @clock_gettime
// TWICE-NOT: llvm.func @clock_gettime
// TWICE-COUNT-4: call @__mlc_profile_clock()
// TWICE-NOT: call @__mlc_profile_clock()

// Every kernel call of mlc_main is bracketed by two clock reads whose difference is added to
// the call's counter; the last counter counts runs. mlc_main_profile copies the counters out
// and zeroes them. The manifest lists each call with the node names of its (fused) location,
// the graph ops of its kernel, its anchor op and its arithmetic operations.
// CHECK-LABEL: module attributes {mlc.manifest =
// CHECK-SAME: \22profile\22: [{\22anchor\22: \22conv2d\22, \22flops\22: 1332, \22kernel\22: \22fused_conv2d_relu_0\22, \22nodes\22: [\22conv_a\22, \22relu_a\22], \22ops\22: [\22conv2d\22, \22relu\22]}, {\22anchor\22: \22reduce_mean\22, {{.*}}\22kernel\22: \22fused_reduce_mean_1\22, \22nodes\22: [\22mean\22], \22ops\22: [\22reduce_mean\22]}]
// CHECK: llvm.func @clock_gettime(i32, !llvm.ptr) -> i32
// CHECK: func.func private @__mlc_profile_clock() -> i64
// CHECK: llvm.call @clock_gettime
// CHECK: memref.global "private" @__mlc_profile_ns : memref<3xi64> = dense<0>
// CHECK: func.func @mlc_main_profile(%[[OUT:.*]]: memref<3xi64>) attributes {llvm.emit_c_interface}
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK-LABEL: func.func @mlc_main(
// CHECK: %[[T0:.*]] = call @__mlc_profile_clock()
// CHECK-NEXT: call @fused_conv2d_relu_0(
// CHECK-NEXT: %[[T1:.*]] = call @__mlc_profile_clock()
// CHECK-NEXT: %[[D:.*]] = arith.subi %[[T1]], %[[T0]]
// CHECK-NEXT: %[[G:.*]] = memref.get_global @__mlc_profile_ns
// CHECK-NEXT: %[[I:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[OLD:.*]] = memref.load %[[G]][%[[I]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addi %[[OLD]], %[[D]]
// CHECK-NEXT: memref.store %[[NEW]], %[[G]][%[[I]]]
// CHECK: call @__mlc_profile_clock()
// CHECK-NEXT: call @fused_reduce_mean_1(
// CHECK-NEXT: call @__mlc_profile_clock()
// CHECK: arith.constant 2 : index
// CHECK: return
func.func @main(%x: tensor<1x2x6x6xf32>) -> tensor<1x1x3x3xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x2x3x3xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32> loc("conv_a")
  %r = "graph.relu"(%c) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32> loc("relu_a")
  %t = "graph.reduce_mean"(%r) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<1x4x3x3xf32>) -> tensor<1x1x3x3xf32> loc("mean")
  return %t : tensor<1x1x3x3xf32>
}
