// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-simplify)' | FileCheck %s
// RUN: %python %inputs/graph_params.py write simplify %t.npz
// RUN: mlc-opt %s --params %t.npz --params-out %t.out.npz --pass-pipeline='builtin.module(graph-simplify,graph-fold-constants)' | FileCheck %s --check-prefix=FOLD
// RUN: %python %inputs/graph_params.py print %t.out.npz | FileCheck %s --check-prefix=VALUES
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-simplify{fold-batch-norm=false decompose-batch-norm=false})' | FileCheck %s --check-prefix=NOBN
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-simplify{fold-batch-norm=false fold-conv-affine=false})' | FileCheck %s --check-prefix=DECOMPOSE
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-simplify{remove-identities=false})' | FileCheck %s --check-prefix=KEEPID
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-simplify{merge-data-movement=false merge-affine-chains=false})' | FileCheck %s --check-prefix=NOMERGE
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-simplify{expand-small-powers=false})' | FileCheck %s --check-prefix=KEEPPOW
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-simplify{cancel-reshapes=false})' | FileCheck %s --check-prefix=KEEPVIEWS
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-simplify{multiply-by-reciprocal=false})' | FileCheck %s --check-prefix=KEEPDIV
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-simplify{pool-before-pointwise-conv=false})' | FileCheck %s --check-prefix=KEEPPOOL

// batch_norm after a single-use conv2d: the conv gets weight * s[o] and (b - mean) * s + beta,
// computed by graph ops on the constants; graph-fold-constants turns them into parameters.
// CHECK-LABEL: func.func @bn_into_conv
// CHECK: %[[W:.*]] = "graph.constant"() {value = #graph.param<"conv.w">}
// CHECK: %[[B:.*]] = "graph.constant"() {value = #graph.param<"conv.b">}
// CHECK: %[[EPS:.*]] = "graph.constant"() {value = dense<1.000000e-03> : tensor<1xf32>}
// CHECK-NEXT: %[[VE:.*]] = "graph.add"(%[[VAR:.*]], %[[EPS]])
// CHECK-NEXT: %[[SQ:.*]] = "graph.sqrt"(%[[VE]])
// CHECK-NEXT: %[[S:.*]] = "graph.div"(%[[SCALE:.*]], %[[SQ]])
// CHECK-NEXT: %[[S4:.*]] = "graph.reshape"(%[[S]]) {shape = array<i64: 4, 1, 1, 1>}
// CHECK-NEXT: %[[NW:.*]] = "graph.mul"(%[[W]], %[[S4]])
// CHECK-NEXT: %[[MS:.*]] = "graph.mul"(%[[MEAN:.*]], %[[S]])
// CHECK-NEXT: %[[T:.*]] = "graph.sub"(%[[BETA:.*]], %[[MS]])
// CHECK-NEXT: %[[BS:.*]] = "graph.mul"(%[[B]], %[[S]])
// CHECK-NEXT: %[[NB:.*]] = "graph.add"(%[[BS]], %[[T]])
// CHECK-NEXT: %[[C:.*]] = "graph.conv2d"(%arg0, %[[NW]], %[[NB]])
// CHECK-NEXT: return %[[C]]
// FOLD-LABEL: func.func @bn_into_conv
// FOLD-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"conv1.weight_folded">} : () -> tensor<4x3x3x3xf32>
// FOLD-NEXT: %[[B:.*]] = "graph.constant"() {value = dense<[0.399800152, 0.300087452, -0.301395714, 0.300011098]> : tensor<4xf32>}
// FOLD-NEXT: %[[C:.*]] = "graph.conv2d"(%arg0, %[[W]], %[[B]])
// FOLD-NEXT: return %[[C]]
// NOBN-LABEL: func.func @bn_into_conv
// NOBN: "graph.conv2d"
// NOBN: "graph.batch_norm"
// DECOMPOSE-LABEL: func.func @bn_into_conv
// DECOMPOSE: %[[C:.*]] = "graph.conv2d"
// DECOMPOSE: %[[M:.*]] = "graph.mul"(%[[C]],
// DECOMPOSE-NEXT: %[[A:.*]] = "graph.add"(%[[M]],
// DECOMPOSE-NEXT: return %[[A]]
func.func @bn_into_conv(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"conv.w">} : () -> tensor<4x3x3x3xf32>
  %b = "graph.constant"() {value = #graph.param<"conv.b">} : () -> tensor<4xf32>
  %c = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc("conv1")
  %s = "graph.constant"() {value = #graph.param<"bn.scale">} : () -> tensor<4xf32>
  %bb = "graph.constant"() {value = #graph.param<"bn.bias">} : () -> tensor<4xf32>
  %m = "graph.constant"() {value = #graph.param<"bn.mean">} : () -> tensor<4xf32>
  %v = "graph.constant"() {value = #graph.param<"bn.var">} : () -> tensor<4xf32>
  %bn = "graph.batch_norm"(%c, %s, %bb, %m, %v) {epsilon = 1.0e-3 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32> loc("bn1")
  return %bn : tensor<1x4x8x8xf32>
}

// Conv -> BatchNormalization -> Mul -> Add with Unsqueeze'd [C] constants (the light zoo
// models): everything folds into one conv, also when the conv had no bias.
// CHECK-LABEL: func.func @conv_bn_mul_add
// CHECK-NOT: "graph.batch_norm"
// CHECK: %[[C:.*]] = "graph.conv2d"(%arg0, %[[W:.*]], %[[B:.*]])
// CHECK-NEXT: return %[[C]]
// FOLD-LABEL: func.func @conv_bn_mul_add
// FOLD-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"conv2.weight_folded">} : () -> tensor<4x3x3x3xf32>
// FOLD-NEXT: %[[B:.*]] = "graph.constant"() {value = dense<{{.*}}> : tensor<4xf32>}
// FOLD-NEXT: %[[C:.*]] = "graph.conv2d"(%arg0, %[[W]], %[[B]])
// FOLD-NEXT: return %[[C]]
// DECOMPOSE-LABEL: func.func @conv_bn_mul_add
// DECOMPOSE: "graph.conv2d"
// DECOMPOSE: "graph.unsqueeze"
// DECOMPOSE: "graph.mul"
// DECOMPOSE: "graph.add"
func.func @conv_bn_mul_add(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"conv.w">} : () -> tensor<4x3x3x3xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> loc("conv2")
  %s = "graph.constant"() {value = #graph.param<"bn.scale">} : () -> tensor<4xf32>
  %bb = "graph.constant"() {value = #graph.param<"bn.bias">} : () -> tensor<4xf32>
  %m = "graph.constant"() {value = #graph.param<"bn.mean">} : () -> tensor<4xf32>
  %v = "graph.constant"() {value = #graph.param<"bn.var">} : () -> tensor<4xf32>
  %bn = "graph.batch_norm"(%c, %s, %bb, %m, %v) {epsilon = 1.0e-5 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %us = "graph.unsqueeze"(%s) {axes = array<i64: 1, 2>} : (tensor<4xf32>) -> tensor<4x1x1xf32>
  %mul = "graph.mul"(%bn, %us) : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %ub = "graph.unsqueeze"(%bb) {axes = array<i64: 1, 2>} : (tensor<4xf32>) -> tensor<4x1x1xf32>
  %add = "graph.add"(%ub, %mul) : (tensor<4x1x1xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %add : tensor<1x4x8x8xf32>
}

// A conv whose result has a second user keeps its weights: the batch_norm becomes
// x * s + t with [C, 1, 1] constants instead.
// CHECK-LABEL: func.func @conv_used_twice
// CHECK: %[[C:.*]] = "graph.conv2d"(%arg0, %[[W:.*]])
// CHECK: %[[S:.*]] = "graph.reshape"({{.*}}) {shape = array<i64: 4, 1, 1>}
// CHECK: %[[T:.*]] = "graph.reshape"({{.*}}) {shape = array<i64: 4, 1, 1>}
// CHECK-NEXT: %[[M:.*]] = "graph.mul"(%[[C]], %[[S]])
// CHECK-NEXT: %[[A:.*]] = "graph.add"(%[[M]], %[[T]])
// CHECK-NEXT: return %[[A]], %[[C]]
// FOLD-LABEL: func.func @conv_used_twice
// FOLD-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"conv.w">}
// FOLD-NEXT: %[[C:.*]] = "graph.conv2d"(%arg0, %[[W]])
// FOLD-NEXT: %[[S:.*]] = "graph.constant"() {value = dense<[{{.*}}]> : tensor<4x1x1xf32>}
// FOLD-NEXT: %[[T:.*]] = "graph.constant"() {value = dense<[{{.*}}]> : tensor<4x1x1xf32>}
// FOLD-NEXT: %[[M:.*]] = "graph.mul"(%[[C]], %[[S]])
// FOLD-NEXT: %[[A:.*]] = "graph.add"(%[[M]], %[[T]])
// NOBN-LABEL: func.func @conv_used_twice
// NOBN: "graph.batch_norm"
func.func @conv_used_twice(%x: tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %w = "graph.constant"() {value = #graph.param<"conv.w">} : () -> tensor<4x3x3x3xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> loc("conv3")
  %s = "graph.constant"() {value = #graph.param<"bn.scale">} : () -> tensor<4xf32>
  %bb = "graph.constant"() {value = #graph.param<"bn.bias">} : () -> tensor<4xf32>
  %m = "graph.constant"() {value = #graph.param<"bn.mean">} : () -> tensor<4xf32>
  %v = "graph.constant"() {value = #graph.param<"bn.var">} : () -> tensor<4xf32>
  %bn = "graph.batch_norm"(%c, %s, %bb, %m, %v) {epsilon = 1.0e-5 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %bn, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// Not per-channel (varies along W), or not constant: the mul stays.
// CHECK-LABEL: func.func @mul_not_foldable
// CHECK: %[[C:.*]] = "graph.conv2d"
// CHECK-NEXT: %[[M:.*]] = "graph.mul"(%[[C]], %[[K:.*]])
// CHECK-NEXT: %[[C2:.*]] = "graph.conv2d"
// CHECK-NEXT: %[[M2:.*]] = "graph.mul"(%[[C2]], %arg1)
// CHECK-NEXT: return %[[M]], %[[M2]]
func.func @mul_not_foldable(%x: tensor<1x3x8x8xf32>, %y: tensor<1x4x1x1xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %w = "graph.constant"() {value = #graph.param<"conv.w">} : () -> tensor<4x3x3x3xf32>
  %k = "graph.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>} : () -> tensor<8xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %m = "graph.mul"(%c, %k) : (tensor<1x4x8x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
  %c2 = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %m2 = "graph.mul"(%c2, %y) : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %m, %m2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// A per-channel add after a conv without bias becomes its bias (a scalar is expanded);
// fold-conv-affine=false leaves it.
// CHECK-LABEL: func.func @add_scalar_to_conv
// CHECK: %[[K:.*]] = "graph.constant"() {value = dense<5.000000e-01> : tensor<1xf32>}
// CHECK-NEXT: %[[E:.*]] = "graph.expand"(%[[K]]) {shape = array<i64: 4>}
// CHECK-NEXT: %[[C:.*]] = "graph.conv2d"(%arg0, %{{.*}}, %[[E]])
// CHECK-NEXT: return %[[C]]
// DECOMPOSE-LABEL: func.func @add_scalar_to_conv
// DECOMPOSE: "graph.conv2d"
// DECOMPOSE-NEXT: "graph.add"
func.func @add_scalar_to_conv(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"conv.w">} : () -> tensor<4x3x3x3xf32>
  %k = "graph.constant"() {value = dense<0.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %a = "graph.add"(%c, %k) : (tensor<1x4x8x8xf32>, tensor<1xf32>) -> tensor<1x4x8x8xf32>
  return %a : tensor<1x4x8x8xf32>
}

// A batch_norm not after a conv (pre-activation, DenseNet) becomes x * s + t, and the
// model's own per-channel Mul/Add after it merge into that pair; merge-affine-chains=false
// keeps the chain.
// CHECK-LABEL: func.func @bn_mul_add_chain
// CHECK: %[[R:.*]] = "graph.relu"(%arg0)
// CHECK-NOT: "graph.batch_norm"
// CHECK: %[[M:.*]] = "graph.mul"(%[[R]], %[[S:.*]]) : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>)
// CHECK-NOT: "graph.mul"(%[[M]]
// CHECK: %[[A:.*]] = "graph.add"(%[[M]], %[[T:.*]]) : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>)
// CHECK-NEXT: return %[[A]]
// FOLD-LABEL: func.func @bn_mul_add_chain
// FOLD-NEXT: %[[R:.*]] = "graph.relu"(%arg0)
// FOLD-NEXT: %[[S:.*]] = "graph.constant"() {value = dense<{{\[\[\[}}0.999994993]], {{\[\[}}1.99999762]], {{\[\[}}4.999900e-01]], {{\[\[}}0.749999582]]]> : tensor<4x1x1xf32>}
// FOLD-NEXT: %[[M:.*]] = "graph.mul"(%[[R]], %[[S]])
// FOLD-NEXT: %[[T:.*]] = "graph.constant"() {value = dense<{{\[\[\[}}-9.999950e-02]], {{\[\[}}2.60000038]], {{\[\[}}-1.649997]], {{\[\[}}0.950000166]]]> : tensor<4x1x1xf32>}
// FOLD-NEXT: %[[A:.*]] = "graph.add"(%[[M]], %[[T]])
// FOLD-NEXT: return %[[A]]
// NOMERGE-LABEL: func.func @bn_mul_add_chain
// NOMERGE: "graph.mul"
// NOMERGE: "graph.add"
// NOMERGE: "graph.mul"
// NOMERGE: "graph.add"
func.func @bn_mul_add_chain(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %r = "graph.relu"(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %s = "graph.constant"() {value = #graph.param<"bn.scale">} : () -> tensor<4xf32>
  %bb = "graph.constant"() {value = #graph.param<"bn.bias">} : () -> tensor<4xf32>
  %m = "graph.constant"() {value = #graph.param<"bn.mean">} : () -> tensor<4xf32>
  %v = "graph.constant"() {value = #graph.param<"bn.var">} : () -> tensor<4xf32>
  %bn = "graph.batch_norm"(%r, %s, %bb, %m, %v) {epsilon = 1.0e-5 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %us = "graph.unsqueeze"(%s) {axes = array<i64: 1, 2>} : (tensor<4xf32>) -> tensor<4x1x1xf32>
  %mul = "graph.mul"(%bn, %us) : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %ub = "graph.unsqueeze"(%bb) {axes = array<i64: 1, 2>} : (tensor<4xf32>) -> tensor<4x1x1xf32>
  %add = "graph.add"(%mul, %ub) : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %add : tensor<1x4x8x8xf32>
}

// Data movement that does nothing goes; what moves data stays (a reversing slice, a
// broadcasting add of zeros, 0 - x).
// CHECK-LABEL: func.func @identities
// CHECK-NEXT: %[[Z:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<2x3x4xf32>}
// CHECK-NEXT: %[[REV:.*]] = "graph.slice"(%arg0) {axes = array<i64: 2>, ends = array<i64: -5>, starts = array<i64: 3>, steps = array<i64: -1>}
// CHECK-NEXT: %[[ZX:.*]] = "graph.sub"(%[[Z]], %[[REV]])
// CHECK-NEXT: %[[ONE:.*]] = "graph.constant"() {value = dense<0.000000e+00> : tensor<1x1x1x4xf32>}
// CHECK-NEXT: %[[BIG:.*]] = "graph.add"(%[[ZX]], %[[ONE]])
// CHECK-NEXT: return %[[BIG]]
// KEEPID-LABEL: func.func @identities
// KEEPID: "graph.reshape"
// KEEPID: "graph.transpose"
// KEEPID: "graph.cast"
func.func @identities(%x: tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = "graph.reshape"(%x) {shape = array<i64: 2, 3, 4>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = "graph.transpose"(%0) {perm = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = "graph.cast"(%1) {to = "f32"} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = "graph.slice"(%2) {starts = array<i64: 0>, ends = array<i64: 100>, axes = array<i64: 1>, steps = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = "graph.pad"(%3) {pads = array<i64: 0, 0, 0, 0, 0, 0>, mode = "constant", value = 0.0 : f32} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %5 = "graph.tile"(%4) {repeats = array<i64: 1, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %6 = "graph.expand"(%5) {shape = array<i64: 3, 4>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %zero = "graph.constant"() {value = dense<0.0> : tensor<2x3x4xf32>} : () -> tensor<2x3x4xf32>
  %7 = "graph.add"(%zero, %6) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %one = "graph.constant"() {value = dense<1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %8 = "graph.mul"(%7, %one) : (tensor<2x3x4xf32>, tensor<1xf32>) -> tensor<2x3x4xf32>
  %9 = "graph.div"(%8, %one) : (tensor<2x3x4xf32>, tensor<1xf32>) -> tensor<2x3x4xf32>
  %10 = "graph.sub"(%9, %zero) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %rev = "graph.slice"(%10) {starts = array<i64: 3>, ends = array<i64: -5>, axes = array<i64: 2>, steps = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %11 = "graph.sub"(%zero, %rev) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %zero4 = "graph.constant"() {value = dense<0.0> : tensor<1x1x1x4xf32>} : () -> tensor<1x1x1x4xf32>
  %12 = "graph.add"(%11, %zero4) : (tensor<2x3x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x2x3x4xf32>
  return %12 : tensor<1x2x3x4xf32>
}

// Chains merge: squeeze then unsqueeze back is nothing, reshape chains become one reshape,
// transposes compose, layout transforms there and back cancel.
// CHECK-LABEL: func.func @merges
// CHECK-NEXT: %[[R:.*]] = "graph.reshape"(%arg0) {shape = array<i64: 4, 6>}
// CHECK-NEXT: %[[T:.*]] = "graph.transpose"(%arg1) {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT: return %[[R]], %[[T]], %arg1
// NOMERGE-LABEL: func.func @merges
// NOMERGE: "graph.squeeze"
// NOMERGE: "graph.unsqueeze"
// NOMERGE: "graph.transpose"
// NOMERGE: "graph.transpose"
// NOMERGE: "graph.layout_transform"
// NOMERGE: "graph.layout_transform"
func.func @merges(%x: tensor<1x2x3x4xf32>, %y: tensor<1x8x2x2xf32>) -> (tensor<4x6xf32>, tensor<1x2x2x8xf32>, tensor<1x8x2x2xf32>) {
  %0 = "graph.squeeze"(%x) {axes = array<i64: 0>} : (tensor<1x2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = "graph.unsqueeze"(%0) {axes = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %2 = "graph.flatten"(%1) {axis = 2 : i64} : (tensor<1x2x3x4xf32>) -> tensor<2x12xf32>
  %3 = "graph.reshape"(%2) {shape = array<i64: 4, 6>} : (tensor<2x12xf32>) -> tensor<4x6xf32>
  %4 = "graph.transpose"(%y) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x8x2xf32>
  %5 = "graph.transpose"(%4) {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x2xf32>) -> tensor<1x2x2x8xf32>
  %6 = "graph.layout_transform"(%y) {src_layout = "NCHW", dst_layout = "NCHW4c"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x2x2x4xf32>
  %7 = "graph.layout_transform"(%6) {src_layout = "NCHW4c", dst_layout = "NCHW"} : (tensor<1x2x2x2x4xf32>) -> tensor<1x8x2x2xf32>
  return %3, %5, %7 : tensor<4x6xf32>, tensor<1x2x2x8xf32>, tensor<1x8x2x2xf32>
}

// Gemm-shaped dense (alpha = beta = 1, 1-D bias) is left as it is.
// CHECK-LABEL: func.func @dense_stays
// CHECK-NEXT: "graph.constant"
// CHECK-NEXT: "graph.constant"
// CHECK-NEXT: %[[D:.*]] = "graph.dense"(%arg0, %{{.*}}, %{{.*}}) {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64}
// CHECK-NEXT: return %[[D]]
func.func @dense_stays(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = "graph.constant"() {value = dense<1.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %b = "graph.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %d = "graph.dense"(%x, %w, %b) {alpha = 1.0 : f32, beta = 1.0 : f32, transA = 0 : i64, transB = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// Powers by small literal exponents become multiplications (x ** 4 by squaring), of 1 / x
// for negative ones, +-0.5 a square root; another exponent, or one that broadcasts x, stays.
// CHECK-LABEL: func.func @small_powers
// CHECK-NEXT: %[[C25:.*]] = "graph.constant"() {value = dense<2.500000e+00> : tensor<f32>}
// CHECK-NEXT: %[[C3V:.*]] = "graph.constant"() {value = dense<3.000000e+00> : tensor<4x2x3xf32>}
// CHECK-NEXT: %[[X2:.*]] = "graph.mul"(%arg0, %arg0)
// CHECK-NEXT: %[[X3:.*]] = "graph.mul"(%[[X2]], %arg0)
// CHECK-NEXT: %[[Y2:.*]] = "graph.mul"(%arg0, %arg0)
// CHECK-NEXT: %[[X4:.*]] = "graph.mul"(%[[Y2]], %[[Y2]])
// CHECK-NEXT: %[[SQ:.*]] = "graph.sqrt"(%arg0)
// CHECK-NEXT: %[[RS:.*]] = "graph.reciprocal"(%[[SQ]])
// CHECK-NEXT: %[[R:.*]] = "graph.reciprocal"(%arg0)
// CHECK-NEXT: %[[RZ:.*]] = "graph.mul"(%[[R]], %[[R]])
// CHECK-NEXT: %[[P:.*]] = "graph.pow"(%arg0, %[[C25]])
// CHECK-NEXT: %[[B:.*]] = "graph.pow"(%arg0, %[[C3V]])
// CHECK-NEXT: return %[[X3]], %[[X4]], %[[RS]], %[[RZ]], %[[P]], %[[B]]
// KEEPPOW-LABEL: func.func @small_powers
// KEEPPOW-COUNT-6: "graph.pow"
func.func @small_powers(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %c3 = "graph.constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %c4 = "graph.constant"() {value = dense<4.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %ch = "graph.constant"() {value = dense<-0.5> : tensor<f32>} : () -> tensor<f32>
  %cm = "graph.constant"() {value = dense<-2.0> : tensor<f32>} : () -> tensor<f32>
  %c25 = "graph.constant"() {value = dense<2.5> : tensor<f32>} : () -> tensor<f32>
  %c3v = "graph.constant"() {value = dense<3.0> : tensor<4x2x3xf32>} : () -> tensor<4x2x3xf32>
  %a = "graph.pow"(%x, %c3) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %b = "graph.pow"(%x, %c4) : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %c = "graph.pow"(%x, %ch) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %d = "graph.pow"(%x, %cm) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %e = "graph.pow"(%x, %c25) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %f = "graph.pow"(%x, %c3v) : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  return %a, %b, %c, %d, %e, %f : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>
}

// Division by a float literal is a multiplication by its reciprocal where a continuous
// function takes the quotient in (the exact GELU's erf(x / sqrt(2)); through an add to a
// softmax). Left alone: a divisor whose reciprocal is not a normal float (0, a denormal), an
// integer division, a divisor that is not a literal, a quotient that is floored or returned.
// CHECK-LABEL: func.func @divide_by_constants
// CHECK-DAG: %[[RS:.*]] = "graph.constant"() {value = dense<0.707106769> : tensor<f32>}
// CHECK-DAG: %[[RV:.*]] = "graph.constant"() {value = dense<[5.000000e-01, -2.500000e-01, 4.000000e+00]> : tensor<3xf32>}
// CHECK-DAG: %[[A:.*]] = "graph.mul"(%arg0, %[[RS]])
// CHECK-DAG: "graph.erf"(%[[A]])
// CHECK-DAG: %[[B:.*]] = "graph.mul"(%arg0, %[[RV]])
// CHECK-DAG: "graph.add"(%[[B]], %arg0)
// CHECK-COUNT-6: "graph.div"
// CHECK-NOT: "graph.div"
// KEEPDIV-LABEL: func.func @divide_by_constants
// KEEPDIV-COUNT-8: "graph.div"
func.func @divide_by_constants(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %s2 = "graph.constant"() {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %v = "graph.constant"() {value = dense<[2.0, -4.0, 0.25]> : tensor<3xf32>} : () -> tensor<3xf32>
  %z = "graph.constant"() {value = dense<[1.0, 0.0, 2.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %d = "graph.constant"() {value = dense<1.0e-39> : tensor<f32>} : () -> tensor<f32>
  %k = "graph.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %a = "graph.div"(%x, %s2) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %ea = "graph.erf"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = "graph.div"(%x, %v) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %b1 = "graph.add"(%b, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sb = "graph.softmax"(%b1) {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = "graph.div"(%x, %z) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %ec = "graph.erf"(%c) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = "graph.div"(%x, %d) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %ee = "graph.erf"(%e) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = "graph.div"(%i, %k) : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  %g = "graph.div"(%x, %ea) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %h = "graph.div"(%x, %s2) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %fl = "graph.floor"(%h) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = "graph.div"(%x, %s2) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %sb, %ec, %ee, %g, %f, %fl, %r, %ea : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// VALUES: conv1.weight_folded float32 [4, 3, 3, 3] [-0.7496 -0.4998 -0.2499  0.      0.2499  0.4998  0.7496 -0.7496
// VALUES-NEXT: conv2.weight_folded float32 [4, 3, 3, 3]

// -----

// An atrous 3x3 conv whose dilation (24) outgrows its 16x16 map: its outer kernel rows and
// columns read padding only, for every output pixel. Only the centre tap is left: a 1x1 conv
// without padding. At dilation 4 every tap reads the map somewhere: unchanged.
// CHECK-LABEL: func.func @trim_padding_taps
// CHECK: %[[W:.*]] = "graph.slice"(%{{.*}}) {axes = array<i64: 2, 3>, ends = array<i64: 2, 2>, starts = array<i64: 1, 1>, steps = array<i64: 1, 1>} : (tensor<8x4x3x3xf32>) -> tensor<8x4x1x1xf32>
// CHECK: "graph.conv2d"(%arg0, %[[W]]) {{.*}}dilations = array<i64: 1, 1>{{.*}}pads = array<i64: 0, 0, 0, 0>{{.*}} -> tensor<1x8x16x16xf32>
// CHECK: "graph.conv2d"(%arg0, %{{.*}}) {{.*}}dilations = array<i64: 4, 4>{{.*}}pads = array<i64: 4, 4, 4, 4>{{.*}} : (tensor<1x4x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x16x16xf32>
func.func @trim_padding_taps(%x: tensor<1x4x16x16xf32>) -> (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<8x4x3x3xf32>
  %y = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 24, 24>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 24, 24, 24, 24>, strides = array<i64: 1, 1>} : (tensor<1x4x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x16x16xf32>
  %z = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 4, 4>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 4, 4, 4, 4>, strides = array<i64: 1, 1>} : (tensor<1x4x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x16x16xf32>
  return %y, %z : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>
}

// -----

// GPT-2's MLP (Conv1D): the product on [64, 3072] is viewed as [1, 64, 3072] for the GELU and
// viewed back for the next product. The GELU (a diamond: x is read four times; scalars and a
// bias broadcast alike on both shapes) runs on [64, 3072] and both views go, so graph-fuse can
// put it in the product's epilogue.
// CHECK-LABEL: func.func @gelu_between_views
// CHECK: %[[A:.*]] = "graph.add"(%{{.*}}, %arg2) : (tensor<64x3072xf32>, tensor<3072xf32>) -> tensor<64x3072xf32>
// CHECK-NOT: graph.reshape
// CHECK: "graph.mul"(%[[A]], %[[A]]) : (tensor<64x3072xf32>, tensor<64x3072xf32>) -> tensor<64x3072xf32>
// CHECK: "graph.tanh"(%{{.*}}) : (tensor<64x3072xf32>) -> tensor<64x3072xf32>
// CHECK: %[[B:.*]] = "graph.add"(%{{.*}}, %arg3) : (tensor<64x3072xf32>, tensor<3072xf32>) -> tensor<64x3072xf32>
// CHECK: %[[G:.*]] = "graph.mul"(%{{.*}}, %[[B]]) : (tensor<64x3072xf32>, tensor<64x3072xf32>) -> tensor<64x3072xf32>
// CHECK-NOT: graph.reshape
// CHECK: "graph.matmul"(%[[G]], %arg4)
// KEEPVIEWS-LABEL: func.func @gelu_between_views
// KEEPVIEWS-COUNT-2: graph.reshape
func.func @gelu_between_views(%x: tensor<64x768xf32>, %w: tensor<768x3072xf32>, %b: tensor<3072xf32>, %b2: tensor<3072xf32>, %w2: tensor<3072x768xf32>) -> tensor<64x768xf32> {
  %half = "graph.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %c = "graph.constant"() {value = dense<0.044715> : tensor<f32>} : () -> tensor<f32>
  %m = "graph.matmul"(%x, %w) : (tensor<64x768xf32>, tensor<768x3072xf32>) -> tensor<64x3072xf32>
  %a = "graph.add"(%m, %b) : (tensor<64x3072xf32>, tensor<3072xf32>) -> tensor<64x3072xf32>
  %v = "graph.reshape"(%a) {shape = array<i64: 1, 64, 3072>} : (tensor<64x3072xf32>) -> tensor<1x64x3072xf32>
  %h = "graph.mul"(%v, %half) : (tensor<1x64x3072xf32>, tensor<f32>) -> tensor<1x64x3072xf32>
  %sq = "graph.mul"(%v, %v) : (tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) -> tensor<1x64x3072xf32>
  %cu = "graph.mul"(%sq, %v) : (tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) -> tensor<1x64x3072xf32>
  %k = "graph.mul"(%cu, %c) : (tensor<1x64x3072xf32>, tensor<f32>) -> tensor<1x64x3072xf32>
  %s = "graph.add"(%v, %k) : (tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) -> tensor<1x64x3072xf32>
  %t = "graph.tanh"(%s) : (tensor<1x64x3072xf32>) -> tensor<1x64x3072xf32>
  %t1 = "graph.add"(%t, %b2) : (tensor<1x64x3072xf32>, tensor<3072xf32>) -> tensor<1x64x3072xf32>
  %g = "graph.mul"(%h, %t1) : (tensor<1x64x3072xf32>, tensor<1x64x3072xf32>) -> tensor<1x64x3072xf32>
  %back = "graph.unsqueeze"(%g) {axes = array<i64: 0>} : (tensor<1x64x3072xf32>) -> tensor<1x1x64x3072xf32>
  %flat = "graph.reshape"(%back) {shape = array<i64: 64, 3072>} : (tensor<1x1x64x3072xf32>) -> tensor<64x3072xf32>
  %o = "graph.matmul"(%flat, %w2) : (tensor<64x3072xf32>, tensor<3072x768xf32>) -> tensor<64x768xf32>
  return %o : tensor<64x768xf32>
}

// -----

// A reshape that regroups dims ([64, 8] -> [64, 2, 4]) cancels alike when its broadcast operand
// spans dims both shapes share (a scalar). Left alone: a bias over [1, 64, 1] (it spans a dim
// that [64, 8] lacks); an inner value also read after the views; no view from [64, 8] to cancel.
// CHECK-LABEL: func.func @views_kept
// CHECK-NEXT: %[[S:.*]] = "graph.constant"
// CHECK-NEXT: %[[M:.*]] = "graph.mul"(%arg0, %[[S]]) : (tensor<64x8xf32>, tensor<f32>) -> tensor<64x8xf32>
// CHECK: "graph.reshape"(%arg0) {shape = array<i64: 1, 64, 8>}
// CHECK: "graph.reshape"(%{{.*}}) {shape = array<i64: 64, 8>}
// CHECK: "graph.reshape"(%arg0) {shape = array<i64: 1, 64, 8>}
// CHECK: "graph.reshape"(%{{.*}}) {shape = array<i64: 64, 8>}
// CHECK: "graph.reshape"(%{{.*}}) {shape = array<i64: 64, 8>}
// CHECK: return %[[M]],
func.func @views_kept(%x: tensor<64x8xf32>, %y: tensor<1x64x8xf32>, %col: tensor<1x64x1xf32>) -> (tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<1x64x8xf32>, tensor<64x8xf32>) {
  %two = "graph.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %g = "graph.reshape"(%x) {shape = array<i64: 64, 2, 4>} : (tensor<64x8xf32>) -> tensor<64x2x4xf32>
  %gm = "graph.mul"(%g, %two) : (tensor<64x2x4xf32>, tensor<f32>) -> tensor<64x2x4xf32>
  %rg = "graph.reshape"(%gm) {shape = array<i64: 64, 8>} : (tensor<64x2x4xf32>) -> tensor<64x8xf32>
  %v = "graph.reshape"(%x) {shape = array<i64: 1, 64, 8>} : (tensor<64x8xf32>) -> tensor<1x64x8xf32>
  %a = "graph.add"(%v, %col) : (tensor<1x64x8xf32>, tensor<1x64x1xf32>) -> tensor<1x64x8xf32>
  %ra = "graph.reshape"(%a) {shape = array<i64: 64, 8>} : (tensor<1x64x8xf32>) -> tensor<64x8xf32>
  %v2 = "graph.reshape"(%x) {shape = array<i64: 1, 64, 8>} : (tensor<64x8xf32>) -> tensor<1x64x8xf32>
  %e = "graph.exp"(%v2) : (tensor<1x64x8xf32>) -> tensor<1x64x8xf32>
  %r = "graph.relu"(%e) : (tensor<1x64x8xf32>) -> tensor<1x64x8xf32>
  %rr = "graph.reshape"(%r) {shape = array<i64: 64, 8>} : (tensor<1x64x8xf32>) -> tensor<64x8xf32>
  %n = "graph.neg"(%y) : (tensor<1x64x8xf32>) -> tensor<1x64x8xf32>
  %rn = "graph.reshape"(%n) {shape = array<i64: 64, 8>} : (tensor<1x64x8xf32>) -> tensor<64x8xf32>
  return %rg, %ra, %rr, %e, %rn : tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<1x64x8xf32>, tensor<64x8xf32>
}

// Sizes known only at run time: an add of zero and a reshape round trip over batch*seq go as
// with static sizes; a dilation-6 3x3 conv on a run-time h x w keeps all its taps (a tap that
// reads only padding at h = 1 reads the input at h = 13).
// CHECK-LABEL: func.func @symbolic_identities
// CHECK-NEXT: return %arg0 : tensor<?x?x8xf32, ["batch", "seq", 8]>
func.func @symbolic_identities(%x: tensor<?x?x8xf32, ["batch", "seq", 8]>) -> tensor<?x?x8xf32, ["batch", "seq", 8]> {
  %z = "graph.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %y = "graph.add"(%x, %z) : (tensor<?x?x8xf32, ["batch", "seq", 8]>, tensor<f32>) -> tensor<?x?x8xf32, ["batch", "seq", 8]>
  %r = "graph.reshape"(%y) {shape = ["batch*seq", 8]} : (tensor<?x?x8xf32, ["batch", "seq", 8]>) -> tensor<?x8xf32, ["batch*seq", 8]>
  %b = "graph.reshape"(%r) {shape = ["batch", "seq", 8]} : (tensor<?x8xf32, ["batch*seq", 8]>) -> tensor<?x?x8xf32, ["batch", "seq", 8]>
  return %b : tensor<?x?x8xf32, ["batch", "seq", 8]>
}

// CHECK-LABEL: func.func @symbolic_atrous_taps_kept
// CHECK-NOT: graph.slice
// CHECK: "graph.conv2d"(%arg0, %{{.*}}) {{{.*}}dilations = array<i64: 6, 6>{{.*}}pads = array<i64: 6, 6, 6, 6>{{.*}}} : (tensor<?x4x?x?xf32, ["batch", 4, "h", "w"]>, tensor<4x4x3x3xf32>)
func.func @symbolic_atrous_taps_kept(%x: tensor<?x4x?x?xf32, ["batch", 4, "h", "w"]>) -> tensor<?x4x?x?xf32, ["batch", 4, "h", "w"]> {
  %w = "graph.constant"() {value = dense<0.5> : tensor<4x4x3x3xf32>} : () -> tensor<4x4x3x3xf32>
  %y = "graph.conv2d"(%x, %w) {data_layout = "NCHW", dilations = array<i64: 6, 6>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 6, 6, 6, 6>, strides = array<i64: 1, 1>} : (tensor<?x4x?x?xf32, ["batch", 4, "h", "w"]>, tensor<4x4x3x3xf32>) -> tensor<?x4x?x?xf32, ["batch", 4, "h", "w"]>
  return %y : tensor<?x4x?x?xf32, ["batch", 4, "h", "w"]>
}

// A 2x2 / stride-2 average pool after a 1x1 conv (DenseNet's transition): the pool moves
// before the conv, which keeps its weight, bias and attributes and runs on 4x4 pixels. A pool
// after a 3x3 conv, and a padded pool, stay where they are.
// CHECK-LABEL: func.func @pool_before_pointwise_conv
// CHECK: %[[P:.*]] = "graph.avg_pool2d"(%arg0) {ceil_mode = 0 : i64, count_include_pad = 0 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.conv2d"(%[[P]], %{{.*}}, %{{.*}}) {{.*}} : (tensor<1x8x4x4xf32>, tensor<4x8x1x1xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[C3:.*]] = "graph.conv2d"(%arg0, {{.*}} -> tensor<1x4x8x8xf32>
// CHECK-NEXT: "graph.avg_pool2d"(%[[C3]])
// CHECK: %[[C1:.*]] = "graph.conv2d"(%arg0, {{.*}} -> tensor<1x4x8x8xf32>
// CHECK-NEXT: "graph.avg_pool2d"(%[[C1]]) {{.*}} pads = array<i64: 1, 1, 1, 1>
// KEEPPOOL-LABEL: func.func @pool_before_pointwise_conv
// KEEPPOOL: %[[C:.*]] = "graph.conv2d"(%arg0
// KEEPPOOL-NEXT: "graph.avg_pool2d"(%[[C]])
func.func @pool_before_pointwise_conv(%x: tensor<1x8x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x5x5xf32>) {
  %w = "graph.constant"() {value = dense<0.5> : tensor<4x8x1x1xf32>} : () -> tensor<4x8x1x1xf32>
  %w3 = "graph.constant"() {value = dense<0.5> : tensor<4x8x3x3xf32>} : () -> tensor<4x8x3x3xf32>
  %b = "graph.constant"() {value = dense<0.25> : tensor<4xf32>} : () -> tensor<4xf32>
  %c = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<4x8x1x1xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %p = "graph.avg_pool2d"(%c) {ceil_mode = 0 : i64, count_include_pad = 0 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %c3 = "graph.conv2d"(%x, %w3, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %p3 = "graph.avg_pool2d"(%c3) {ceil_mode = 0 : i64, count_include_pad = 0 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %c1 = "graph.conv2d"(%x, %w, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64, kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<4x8x1x1xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %pp = "graph.avg_pool2d"(%c1) {ceil_mode = 0 : i64, count_include_pad = 0 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  return %p, %p3, %pp : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x5x5xf32>
}
