// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fold-constants)' | FileCheck %s --check-prefixes=CHECK,NOPARAMS
// RUN: %python %inputs/graph_params.py write fold %t.npz
// RUN: mlc-opt %s --params %t.npz --params-out %t.out.npz --pass-pipeline='builtin.module(graph-fold-constants)' | FileCheck %s --check-prefixes=CHECK,PARAMS
// RUN: %python %inputs/graph_params.py print %t.out.npz | FileCheck %s --check-prefix=VALUES
// RUN: mlc-opt %s --params %t.npz --pass-pipeline='builtin.module(graph-fold-constants{max-literal-elements=0 allow-growth=true})' | FileCheck %s --check-prefix=OPTS
// RUN: mlc-opt %s --params %t.npz --params-out %t.keep.npz --pass-pipeline='builtin.module(graph-fold-constants{prune-params=false})' -o /dev/null
// RUN: %python %inputs/graph_params.py print %t.keep.npz | FileCheck %s --check-prefix=KEEP

// Literal-only sub-graphs fold with or without a params table; the folded value keeps the op's
// location, and the constants it read are erased.
// CHECK-LABEL: func.func @literal_chain
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() {value = dense<[2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00]> : tensor<4xf32>}
// CHECK-NEXT: %[[R:.*]] = "graph.add"(%arg0, %[[C]])
// CHECK-NEXT: return %[[R]]
// OPTS-LABEL: func.func @literal_chain
// OPTS-NEXT: "graph.constant"() {value = #graph.param<"scaled">} : () -> tensor<4xf32>
func.func @literal_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = "graph.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %b = "graph.constant"() {value = dense<2.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %c = "graph.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("scaled")
  %d = "graph.add"(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// A large result becomes a new parameter named after the op's NameLoc; the parameters it
// came from are dropped from the table (VALUES) unless prune-params=false (KEEP).
// CHECK-LABEL: func.func @param_chain
// NOPARAMS-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"w">}
// NOPARAMS-NEXT: %[[E:.*]] = "graph.exp"(%[[W]])
// NOPARAMS-NEXT: %[[R:.*]] = "graph.reshape"(%[[E]])
// NOPARAMS-NEXT: return %[[R]]
// PARAMS-NEXT: %[[P:.*]] = "graph.constant"() {value = #graph.param<"w_exp_4x8">} : () -> tensor<4x8xf32>
// PARAMS-NEXT: return %[[P]]
func.func @param_chain() -> tensor<4x8xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<32xf32>
  %e = "graph.exp"(%w) : (tensor<32xf32>) -> tensor<32xf32> loc("w_exp")
  %f = "graph.reshape"(%e) {shape = array<i64: 4, 8>} : (tensor<32xf32>) -> tensor<4x8xf32> loc("w_exp_4x8")
  return %f : tensor<4x8xf32>
}

// A small result of a parameter becomes a literal: the folded values are in the IR.
// CHECK-LABEL: func.func @param_to_literal
// NOPARAMS-NEXT: "graph.constant"() {value = #graph.param<"v">}
// NOPARAMS-NEXT: "graph.reduce_sum"
// PARAMS-NEXT: %[[S:.*]] = "graph.constant"() {value = dense<[6.000000e+00, 1.500000e+01]> : tensor<2xf32>}
// PARAMS-NEXT: return %[[S]]
func.func @param_to_literal() -> tensor<2xf32> {
  %v = "graph.constant"() {value = #graph.param<"v">} : () -> tensor<2x3xf32>
  %s = "graph.reduce_sum"(%v) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// Only the constant operand folds; an op reading an argument stays.
// CHECK-LABEL: func.func @partial
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() {value = dense<[1, 4]> : tensor<2xi64>}
// CHECK-NEXT: %[[R:.*]] = "graph.mul"(%arg0, %[[C]])
// CHECK-NEXT: return %[[R]]
func.func @partial(%x: tensor<2xi64>) -> tensor<2xi64> {
  %a = "graph.constant"() {value = dense<[-1, -2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %b = "graph.mul"(%a, %a) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %c = "graph.mul"(%x, %b) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %c : tensor<2xi64>
}

// tensor.concat and comparisons (i1 results) fold too; an unrelated dead constant is not this
// pass's business and stays.
// CHECK-LABEL: func.func @concat_compare
// CHECK-NEXT: "graph.constant"() {value = dense<0.000000e+00> : tensor<2xf32>}
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() {value = dense<[false, true, true]> : tensor<3xi1>}
// CHECK-NEXT: return %[[C]]
func.func @concat_compare() -> tensor<3xi1> {
  %dead = "graph.constant"() {value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %a = "graph.constant"() {value = dense<[1.0, 5.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = "graph.constant"() {value = dense<[7.0]> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = tensor.concat dim(0) %a, %b : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
  %t = "graph.constant"() {value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %g = "graph.greater"(%c, %t) : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xi1>
  return %g : tensor<3xi1>
}

// Growing ops (a broadcast scalar) are left alone unless allow-growth=true.
// CHECK-LABEL: func.func @growth
// CHECK-NEXT: "graph.constant"
// CHECK-NEXT: "graph.expand"
// OPTS-LABEL: func.func @growth
// OPTS-NEXT: %[[P:.*]] = "graph.constant"() {value = #graph.param<"filled">} : () -> tensor<4x8xf32>
// OPTS-NEXT: return %[[P]]
func.func @growth() -> tensor<4x8xf32> {
  %s = "graph.constant"() {value = dense<3.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %e = "graph.expand"(%s) {shape = array<i64: 4, 8>} : (tensor<1xf32>) -> tensor<4x8xf32> loc("filled")
  return %e : tensor<4x8xf32>
}

// A product of constants folds although its result outgrows its operands (graph-winograd's
// filter transform [36, 9] x [9, 4]): compute saved at every run, not a broadcast. Without a
// params table it could only become a parameter, so it stays.
// CHECK-LABEL: func.func @growing_product
// PARAMS-NEXT: %[[P:.*]] = "graph.constant"() {value = #graph.param<"transformed">} : () -> tensor<36x4xf32>
// PARAMS-NEXT: return %[[P]]
// NOPARAMS: "graph.matmul"
func.func @growing_product() -> tensor<36x4xf32> {
  %g = "graph.constant"() {value = dense<0.5> : tensor<36x9xf32>} : () -> tensor<36x9xf32>
  %w = "graph.constant"() {value = dense<2.0> : tensor<9x4xf32>} : () -> tensor<9x4xf32>
  %u = "graph.matmul"(%g, %w) : (tensor<36x9xf32>, tensor<9x4xf32>) -> tensor<36x4xf32> loc("transformed")
  return %u : tensor<36x4xf32>
}

// A pad of constant weights (channels padded to a vector block: 6 -> 8) folds although its
// result outgrows its input: a copy with zeros, not a broadcast (at most 8x its input).
// CHECK-LABEL: func.func @padded_weights
// PARAMS-NEXT: %[[P:.*]] = "graph.constant"() {value = #graph.param<"padded">} : () -> tensor<4x8xf32>
// PARAMS-NEXT: return %[[P]]
// NOPARAMS: "graph.pad"
func.func @padded_weights() -> tensor<4x8xf32> {
  %k = "graph.constant"() {value = #graph.param<"k">} : () -> tensor<4x6xf32>
  %p = "graph.pad"(%k) {mode = "constant", pads = array<i64: 0, 0, 0, 2>, value = 0.0 : f32} : (tensor<4x6xf32>) -> tensor<4x8xf32> loc("padded")
  return %p : tensor<4x8xf32>
}

// Two folded parameters from ops with the same name get distinct names; ops inside outlined
// kernels fold too.
// CHECK-LABEL: func.func private @kernel
// PARAMS-NEXT: %[[A:.*]] = "graph.constant"() {value = #graph.param<"k_t">} : () -> tensor<6x4xf32>
// PARAMS-NEXT: %[[B:.*]] = "graph.constant"() {value = #graph.param<"k_t.1">} : () -> tensor<6x4xf32>
// PARAMS-NEXT: %[[S:.*]] = "graph.add"(%arg0, %[[A]])
// PARAMS-NEXT: %[[T:.*]] = "graph.add"(%[[S]], %[[B]])
// PARAMS-NEXT: return %[[T]]
func.func private @kernel(%x: tensor<6x4xf32>) -> tensor<6x4xf32> attributes {graph.kernel} {
  %k = "graph.constant"() {value = #graph.param<"k">} : () -> tensor<4x6xf32>
  %t = "graph.transpose"(%k) {perm = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32> loc("k_t")
  %n = "graph.neg"(%t) : (tensor<6x4xf32>) -> tensor<6x4xf32> loc("k_t")
  %s = "graph.add"(%x, %t) : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  %r = "graph.add"(%s, %n) : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

// VALUES: k_t float32 [6, 4] [ 0.  6. 12. 18.  1.  7.
// VALUES-NEXT: k_t.1 float32 [6, 4] [ -0.  -6. -12. -18.  -1.  -7.
// VALUES-NEXT: padded float32 [4, 8] [ 0.  1.  2.  3.  4.  5.  0.  0.  6.
// VALUES-NEXT: transformed float32 [36, 4] [9. 9. 9.
// VALUES-NEXT: unused float32 [2] [0. 0.]
// VALUES-NEXT: w_exp_4x8 float32 [4, 8] [ 1.      1.1331  1.284   1.455   1.6487
// KEEP: k float32
// KEEP: v float32
// KEEP: w float32

// Sizes known only at run time: the constant sub-expression folds, the op on the run-time
// sized input stays.
// CHECK-LABEL: func.func @symbolic_operand
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() {value = dense<6.000000e+00> : tensor<8xf32>}
// CHECK-NEXT: %[[Y:.*]] = "graph.add"(%arg0, %[[C]]) : (tensor<?x8xf32, ["seq", 8]>, tensor<8xf32>) -> tensor<?x8xf32, ["seq", 8]>
// CHECK-NEXT: return %[[Y]]
func.func @symbolic_operand(%x: tensor<?x8xf32, ["seq", 8]>) -> tensor<?x8xf32, ["seq", 8]> {
  %a = "graph.constant"() {value = dense<2.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %b = "graph.constant"() {value = dense<3.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %c = "graph.mul"(%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y = "graph.add"(%x, %c) : (tensor<?x8xf32, ["seq", 8]>, tensor<8xf32>) -> tensor<?x8xf32, ["seq", 8]>
  return %y : tensor<?x8xf32, ["seq", 8]>
}
