"""Structure-aware mutations of ONNX models: edits of the protobuf fields an importer trusts
(tensor dims and dtypes, node attributes, initializer sizes and data, graph edges, op types,
opset and IR versions), then serialized; one mutant in ten also gets byte-level edits."""

from __future__ import annotations

import random

import onnx
from onnx import AttributeProto, TensorProto

from .mutate import INTERESTING_INTS, mutate_bytes

DIMS = (0, 1, 2, 3, -1, -7, 2**31, 2**40, 2**62, 2**63 - 1)
INT64S = tuple(v for v in INTERESTING_INTS if -(2**63) <= v < 2**63)
"""Protobuf int64 fields take these (the others raise in the setter)."""
OP_TYPES = (
    "Add", "Mul", "Relu", "Conv", "MatMul", "Gemm", "Reshape", "Transpose", "Concat", "Slice",
    "Gather", "Softmax", "MaxPool", "AveragePool", "BatchNormalization", "Flatten", "Squeeze",
    "Unsqueeze", "ReduceMean", "Split", "Resize", "Pad", "Cast", "Expand", "Where", "Tile",
    "TopK", "LayerNormalization", "Identity", "Shape", "ConstantOfShape", "Range", "NoSuchOp",
)  # fmt: skip


def mutate_model(rng: random.Random, data: bytes) -> bytes:
    model = onnx.ModelProto()
    model.ParseFromString(data)
    for _ in range(rng.randint(1, 3)):
        rng.choice(_MOVES)(rng, model)
    out = model.SerializeToString()
    return mutate_bytes(rng, out) if rng.random() < 0.1 else out


def _value_infos(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    g = model.graph
    return [*g.input, *g.output, *g.value_info]


def _dims(rng: random.Random, model: onnx.ModelProto) -> None:
    vis = [v for v in _value_infos(model) if v.type.tensor_type.shape.dim]
    if not vis:
        return
    shape = rng.choice(vis).type.tensor_type.shape
    move = rng.randrange(4)
    if move == 0:
        shape.dim[rng.randrange(len(shape.dim))].dim_value = rng.choice(DIMS)
    elif move == 1:
        shape.dim[rng.randrange(len(shape.dim))].dim_param = rng.choice(("N", "", "?"))
    elif move == 2:
        del shape.dim[rng.randrange(len(shape.dim))]
    else:
        shape.dim.add().dim_value = rng.choice(DIMS)


def _dtypes(rng: random.Random, model: onnx.ModelProto) -> None:
    dtype = rng.randrange(0, 27)
    if rng.random() < 0.5 and model.graph.initializer:
        rng.choice(model.graph.initializer).data_type = dtype
    elif _value_infos(model):
        rng.choice(_value_infos(model)).type.tensor_type.elem_type = dtype


def _attributes(rng: random.Random, model: onnx.ModelProto) -> None:
    nodes = [n for n in model.graph.node if n.attribute] or list(model.graph.node)
    if not nodes:
        return
    node = rng.choice(nodes)
    if not node.attribute or rng.random() < 0.15:
        attr = node.attribute.add()
        attr.name = rng.choice(("axis", "perm", "pads", "strides", "group", "kernel_shape", "x"))
        attr.type = AttributeProto.INTS
        attr.ints.extend(rng.choice(INT64S) for _ in range(rng.randint(0, 5)))
        return
    attr = rng.choice(node.attribute)
    move = rng.randrange(6)
    if move == 0 and attr.ints:
        attr.ints[rng.randrange(len(attr.ints))] = rng.choice(INT64S)
    elif move == 1:
        if attr.ints and rng.random() < 0.5:
            del attr.ints[rng.randrange(len(attr.ints))]
        else:
            attr.ints.append(rng.choice(INT64S))
    elif move == 2:
        attr.i = rng.choice(INT64S)
        attr.f = rng.choice((float("nan"), float("inf"), -1.0, 0.0, 1e30))
    elif move == 3:
        attr.type = rng.choice(list(AttributeProto.AttributeType.values()))
    elif move == 4:
        node.attribute.remove(attr)
    else:
        attr.s = rng.choice((b"", b"SAME_UPPER", b"nearest", b"\xff\xfe", b"x" * 300))


def _initializers(rng: random.Random, model: onnx.ModelProto) -> None:
    if not model.graph.initializer:
        return
    t: TensorProto = rng.choice(model.graph.initializer)
    move = rng.randrange(4)
    if move == 0 and t.dims:
        t.dims[rng.randrange(len(t.dims))] = rng.choice(DIMS)
    elif move == 1:
        if t.raw_data:
            t.raw_data = t.raw_data[: rng.randrange(len(t.raw_data) + 1)]
        elif t.float_data:
            del t.float_data[rng.randrange(len(t.float_data)) :]
    elif move == 2:
        t.dims.append(rng.choice((0, 1, 2, 2**33)))
    else:
        t.data_location = TensorProto.EXTERNAL
        entry = t.external_data.add()
        entry.key, entry.value = (
            "location",
            rng.choice(("missing.bin", "../etc/passwd", "/dev/zero")),
        )


def _edges(rng: random.Random, model: onnx.ModelProto) -> None:
    g = model.graph
    if not g.node:
        return
    names = [v.name for v in g.input] + [t.name for t in g.initializer]
    names += [o for n in g.node for o in n.output] + ["", "nowhere"]
    node = rng.choice(g.node)
    move = rng.randrange(5)
    if move == 0 and node.input:
        node.input[rng.randrange(len(node.input))] = rng.choice(names)
    elif move == 1:
        node.input.append(rng.choice(names))
    elif move == 2 and node.input:
        del node.input[rng.randrange(len(node.input))]
    elif move == 3:
        g.node.remove(node)
    else:
        g.node.add().CopyFrom(node)  # a duplicate producer of the same names


def _op_types(rng: random.Random, model: onnx.ModelProto) -> None:
    if model.graph.node:
        node = rng.choice(model.graph.node)
        if rng.random() < 0.8:
            node.op_type = rng.choice(OP_TYPES)
        else:
            node.domain = rng.choice(("com.microsoft", "ai.onnx.ml", "bogus"))


def _versions(rng: random.Random, model: onnx.ModelProto) -> None:
    if rng.random() < 0.3:
        model.ir_version = rng.choice((0, 1, 3, 7, 10, 11, 99, 2**40))
    elif model.opset_import:
        model.opset_import[0].version = rng.choice((0, 1, 6, 7, 9, 11, 13, 17, 18, 21, 23, 99))
    if rng.random() < 0.1:
        del model.opset_import[:]


_MOVES = (_dims, _dtypes, _attributes, _initializers, _edges, _op_types, _versions)
