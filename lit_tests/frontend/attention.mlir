// REQUIRES: onnx
// RUN: %python %inputs/onnx_index_models.py einsum_v12 %te.onnx attention_v23 %ta.onnx rotary_v23 %tr.onnx
// RUN: mlc import %te.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=EINSUM
// RUN: mlc import %ta.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=ATTN
// RUN: mlc import %tr.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=ROPE

// Einsum: a batched product is one batch_matmul; the diagonal 'bii->bi' flattens the pair of
// dims and takes every (n + 1)-th element.
// EINSUM-LABEL: func.func @main
// EINSUM-NEXT: %[[P:.*]] = "graph.batch_matmul"(%arg0, %arg1) : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
// EINSUM-NEXT: %[[F:.*]] = "graph.reshape"(%[[P]]) {shape = array<i64: 2, 9>}
// EINSUM-NEXT: %[[D:.*]] = "graph.slice"(%[[F]]) {axes = array<i64: 1>, ends = array<i64: 9>, starts = array<i64: 0>, steps = array<i64: 4>} : (tensor<2x9xf32>) -> tensor<2x3xf32>
// EINSUM-NEXT: return %[[D]]

// Attention with 4 query heads on 2 KV heads, causal: Q and K scaled by sqrt(1/sqrt(8)); the 2
// query heads of a KV head are the rows of one batch entry of each batch_matmul; the causal
// bias is one constant.
// ATTN-LABEL: func.func @main
// ATTN-NEXT: %[[S:.*]] = "graph.constant"() {value = dense<0.594603539> : tensor<f32>}
// ATTN-NEXT: %[[Q:.*]] = "graph.mul"(%arg0, %[[S]])
// ATTN-NEXT: %[[K:.*]] = "graph.mul"(%arg1, %[[S]])
// ATTN-NEXT: %[[KT:.*]] = "graph.transpose"(%[[K]]) {perm = array<i64: 0, 1, 3, 2>}
// ATTN-NEXT: %[[QR:.*]] = "graph.reshape"(%[[Q]]) {shape = array<i64: 2, 6, 8>}
// ATTN-NEXT: %[[KR:.*]] = "graph.reshape"(%[[KT]]) {shape = array<i64: 2, 8, 3>}
// ATTN-NEXT: %[[QK:.*]] = "graph.batch_matmul"(%[[QR]], %[[KR]]) : (tensor<2x6x8xf32>, tensor<2x8x3xf32>) -> tensor<2x6x3xf32>
// ATTN-NEXT: %[[SC:.*]] = "graph.reshape"(%[[QK]]) {shape = array<i64: 1, 4, 3, 3>}
// ATTN-NEXT: %[[B:.*]] = "graph.constant"() {value = #graph.param<"y.bias">} : () -> tensor<3x3xf32>
// ATTN-NEXT: %[[A:.*]] = "graph.add"(%[[SC]], %[[B]])
// ATTN-NEXT: %[[P:.*]] = "graph.softmax"(%[[A]]) {axis = -1 : i64}
// ATTN-NEXT: %[[PR:.*]] = "graph.reshape"(%[[P]]) {shape = array<i64: 2, 6, 3>}
// ATTN-NEXT: %[[VR:.*]] = "graph.reshape"(%arg2) {shape = array<i64: 2, 3, 8>}
// ATTN-NEXT: %[[PV:.*]] = "graph.batch_matmul"(%[[PR]], %[[VR]]) : (tensor<2x6x3xf32>, tensor<2x3x8xf32>) -> tensor<2x6x8xf32>
// ATTN-NEXT: %[[Y:.*]] = "graph.reshape"(%[[PV]]) {shape = array<i64: 1, 4, 3, 8>}
// ATTN-NEXT: return %[[Y]]

// RotaryEmbedding, interleaved: cos/sin gathered at the positions, even and odd entries
// rotated, then interleaved again (unsqueeze, concat, reshape).
// ROPE-LABEL: func.func @main
// ROPE: %[[COS:.*]] = "graph.gather"(%{{.*}}, %arg1) {axis = 0 : i64} : (tensor<16x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
// ROPE: %[[EVEN:.*]] = "graph.slice"(%arg0) {axes = array<i64: 3>, ends = array<i64: 4>, starts = array<i64: 0>, steps = array<i64: 2>}
// ROPE-NEXT: %[[ODD:.*]] = "graph.slice"(%arg0) {axes = array<i64: 3>, ends = array<i64: 4>, starts = array<i64: 1>, steps = array<i64: 2>}
// ROPE: %[[CAT:.*]] = tensor.concat dim(4)
// ROPE-NEXT: %[[Y:.*]] = "graph.reshape"(%[[CAT]]) {shape = array<i64: 1, 2, 3, 4>}
// ROPE-NEXT: return %[[Y]]
