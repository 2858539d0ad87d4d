// REQUIRES: onnx
// RUN: %python %inputs/onnx_make_model.py names %t.onnx
// RUN: mlc import %t.onnx -o - --input-shapes "image:[3,2,4,4]" --print-debuginfo | FileCheck %s
// RUN: mlc import %t.onnx -o %t.mlir --input-shapes "image:[1,2,4,4]"
// RUN: %python -c "import numpy as np; print(sorted(np.load('%t.mlir.npz', allow_pickle=False)))" | FileCheck %s --check-prefix=NPZ

// --input-shapes fixes the dynamic batch; the interface names the ONNX inputs and outputs;
// every op is located at its ONNX node (unnamed nodes get <OpType>_<index>).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<3x2x4x4xf32> loc("image")) -> tensor<3x3x4x4xf32>
// CHECK-SAME: attributes {mlc.input_names = ["image"], mlc.output_names = ["out"]}
// CHECK-NEXT: %[[W:.*]] = "graph.constant"() {value = #graph.param<"weight">} : () -> tensor<3x2x1x1xf32> loc(#[[LW:loc[0-9]*]])
// CHECK-NEXT: %[[C:.*]] = "graph.conv2d"(%[[X]], %[[W]]) {{.*}} loc(#[[LC:loc[0-9]*]])
// CHECK-NEXT: %[[R:.*]] = "graph.relu"(%[[C]]) {{.*}} loc(#[[LR:loc[0-9]*]])
// CHECK-NEXT: %[[B:.*]] = "graph.constant"() {value = dense<5.000000e-01> : tensor<f32>} {{.*}} loc(#[[LB:loc[0-9]*]])
// CHECK-NEXT: %[[Y:.*]] = "graph.add"(%[[R]], %[[B]]) {{.*}} loc(#[[LA:loc[0-9]*]])
// CHECK-DAG: #[[LW]] = loc("weight")
// CHECK-DAG: #[[LC]] = loc("stem/conv")
// CHECK-DAG: #[[LR]] = loc("Relu_1")
// CHECK-DAG: #[[LB]] = loc("bias")
// CHECK-DAG: #[[LA]] = loc("head.add")

// Parameters (not the scalar literal) go to <output>.npz.
// NPZ: ['weight']
