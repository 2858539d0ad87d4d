// REQUIRES: onnx
// RUN: %python %inputs/onnx_index_models.py gather_scatter_v18 %t18.onnx sequence_v24 %t24.onnx
// RUN: mlc import %t18.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=V18
// RUN: mlc import %t24.onnx -o - 2>/dev/null | FileCheck %s --check-prefix=V24

// Opset 18: each op is one graph op; GatherND keeps batch_dims, the scatters their reduction.
// V18-LABEL: func.func @main
// V18-NEXT: %[[GE:.*]] = "graph.gather_elements"(%arg0, %arg1) {axis = 1 : i64} : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
// V18-NEXT: %[[ROWS:.*]] = "graph.constant"() {value = #graph.param<"rows">} : () -> tensor<2x1xi64>
// V18-NEXT: %[[ND:.*]] = "graph.gather_nd"(%arg0, %[[ROWS]]) {batch_dims = 1 : i64} : (tensor<2x5xf32>, tensor<2x1xi64>) -> tensor<2xf32>
// V18-NEXT: %[[SE:.*]] = "graph.scatter_elements"(%arg0, %arg1, %[[GE]]) {axis = 1 : i64, reduction = "add"}
// V18-NEXT: %[[ROWS2:.*]] = "graph.constant"() {value = #graph.param<"rows2">} : () -> tensor<2x2xi64>
// V18-NEXT: %[[Y:.*]] = "graph.scatter_nd"(%[[SE]], %[[ROWS2]], %[[ND]]) {reduction = "none"} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<2x5xf32>
// V18-NEXT: return %[[GE]], %[[Y]]

// ReverseSequence is a gather_elements along time whose index is len - 1 - t where t < len;
// TensorScatter (circular) a scatter_elements at (write index + step) mod the cache length.
// V24-LABEL: func.func @main
// V24-NEXT: %[[T:.*]] = "graph.constant"() {value = #graph.param<"rev.steps">} : () -> tensor<1x3xi64>
// V24-NEXT: %[[LEN:.*]] = "graph.reshape"(%arg1) {shape = array<i64: 2, 1>}
// V24-NEXT: %[[ONE:.*]] = "graph.constant"() {value = dense<1> : tensor<i64>}
// V24-NEXT: %[[LAST:.*]] = "graph.sub"(%[[LEN]], %[[ONE]])
// V24-NEXT: %[[REV:.*]] = "graph.sub"(%[[LAST]], %[[T]])
// V24-NEXT: %[[IN:.*]] = "graph.less"(%[[T]], %[[LEN]])
// V24-NEXT: %[[IDX:.*]] = "graph.where"(%[[IN]], %[[REV]], %[[T]]) : (tensor<2x3xi1>, tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
// V24-NEXT: %[[R:.*]] = "graph.gather_elements"(%arg0, %[[IDX]]) {axis = 1 : i64}
// V24-NEXT: %[[S:.*]] = "graph.constant"() {value = #graph.param<"y.steps">} : () -> tensor<1x3xi64>
// V24-NEXT: %[[W:.*]] = "graph.reshape"(%arg3) {shape = array<i64: 2, 1>}
// V24-NEXT: %[[P:.*]] = "graph.add"(%[[W]], %[[S]]) : (tensor<2x1xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
// V24-NEXT: %[[N:.*]] = "graph.constant"() {value = dense<4> : tensor<i64>}
// V24-NEXT: %[[M:.*]] = "graph.mod"(%[[P]], %[[N]]) {fmod = 0 : i64}
// V24-NEXT: %[[Y:.*]] = "graph.scatter_elements"(%arg2, %[[M]], %[[R]]) {axis = 1 : i64, reduction = "none"} : (tensor<2x4xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x4xf32>
// V24-NEXT: return %[[Y]]
