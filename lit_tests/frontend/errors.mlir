// REQUIRES: onnx
// Every CLI error is one message on stderr and a non-zero exit (4), before any output is written.
// RUN: %python %inputs/onnx_make_model.py unsupported %t.unsupported.onnx old_opset %t.old.onnx names %t.names.onnx string_input %t.string.onnx
// RUN: %python -c "open('%t.bad.onnx', 'wb').write(b'\x00 not an onnx file \xff')"

// RUN: not mlc import %t.bad.onnx -o %t.out 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: mlc import: error: '{{.*}}.bad.onnx' is not an ONNX model (the protobuf does not parse

// RUN: not mlc import %t.missing.onnx -o - 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: mlc import: error: model '{{.*}}.missing.onnx': no such file

// All unsupported operators at once, each with its nodes.
// RUN: not mlc import %t.unsupported.onnx -o - 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OPS
// UNKNOWN-OPS: mlc import: error: the model uses 2 unsupported operator(s) in 3 node(s):
// UNKNOWN-OPS-NEXT: Det (opset 13): no converter; nodes: det, det_again
// UNKNOWN-OPS-NEXT: NonZero (opset 13): its output shape depends on its input values and mlc compiles static shapes: supported only when its inputs are constant (it is then folded at import); nodes: nonzero

// RUN: not mlc import %t.old.onnx -o - 2>&1 | FileCheck %s --check-prefix=OPSET
// OPSET: mlc import: error: the model uses 2 unsupported operator(s) in 2 node(s):
// OPSET-NEXT: Add (opset 5): opset 5 is below the earliest implemented version 7; nodes: old_add
// OPSET-NEXT: Relu (opset 5): opset 5 is below the earliest implemented version 6; nodes: old_relu

// RUN: not mlc import %t.names.onnx -o - 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: mlc import: error: mlc needs static input shapes, but input 'image' [batch, 2, 4, 4] has dynamic dim 0 ('batch'). Give every dimension with shape_dict={name: [dims]} or --input-shapes "image:[...]"

// RUN: not mlc import %t.string.onnx -o - 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: mlc import: error: unsupported element types: graph input 's' is string. mlc supports float,
