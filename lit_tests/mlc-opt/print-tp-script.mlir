// --print-tp-script prints the tp kernels as tp script (mlc.tp's Python DSL); the output is a
// Python module that parses back (python -c checks it with ast). A module without tp kernels
// is an error that says how to get some.
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' --print-tp-script | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(graph-fuse,graph-to-tp)' --print-tp-script | %python -c "import ast, sys; ast.parse(sys.stdin.read())"
// RUN: not mlc-opt %s --print-tp-script 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: from mlc import tp as T
// CHECK: @T.script
// CHECK-NEXT: def fused_matmul_relu_0(A: T.Buffer((1, 8), 'float32'), B: T.Buffer((8, 4), 'float32'), C: T.Buffer((1, 4), 'float32')):
// CHECK-NEXT:     for s0, s1, k in T.grid(1, 4, 8):
// CHECK-NEXT:         with T.block('matmul_0'):
// CHECK-NEXT:             vs0, vs1, vk = T.axis.remap('SSR', [s0, s1, k])
// CHECK:                  with T.init():
// CHECK-NEXT:                 C[vs0, vs1] = T.float32(0.0)
// CHECK-NEXT:             C[vs0, vs1] = C[vs0, vs1] + A[vs0, vk] * B[vk, vs1]
// CHECK:          with T.block('epilogue_1'):
// CHECK:              C[vi0, vi1] = T.max(C[vi0, vi1], T.float32(0.0))

// NONE: error: --print-tp-script: the module has no tp kernels (func.func with tp.kernel); lower a graph module first

func.func @main(%x: tensor<1x8xf32>, %w: tensor<8x4xf32>) -> tensor<1x4xf32> {
  %y = "graph.matmul"(%x, %w) : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %r = "graph.relu"(%y) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}
