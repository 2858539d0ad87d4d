"""Helpers of the ONNX frontend tests: tiny models, import, IR inspection, numerics vs ORT."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx
import pytest
from mlir import ir
from onnx import helper, numpy_helper

from mlc.dialects.attrs import from_attr, param_name, tensor_t
from mlc.dialects.graph.spec import TensorT
from mlc.frontend import from_onnx
from mlc.target import host_arch, host_int8_dot_bits

_ONNX_TYPES = {
    np.dtype(np.float32): onnx.TensorProto.FLOAT,
    np.dtype(np.float64): onnx.TensorProto.DOUBLE,
    np.dtype(np.float16): onnx.TensorProto.FLOAT16,
    np.dtype(np.int64): onnx.TensorProto.INT64,
    np.dtype(np.int32): onnx.TensorProto.INT32,
    np.dtype(np.bool_): onnx.TensorProto.BOOL,
    np.dtype(np.uint8): onnx.TensorProto.UINT8,
    np.dtype(np.int8): onnx.TensorProto.INT8,
    np.dtype(np.int16): onnx.TensorProto.INT16,
    np.dtype(np.uint16): onnx.TensorProto.UINT16,
    np.dtype(np.uint32): onnx.TensorProto.UINT32,
    np.dtype(np.uint64): onnx.TensorProto.UINT64,
}

Spec = tuple[Any, Sequence[int | str] | None]  # (numpy dtype, shape)


def value_info(name: str, dtype: Any, shape: Sequence[int | str] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, _ONNX_TYPES[np.dtype(dtype)], shape)


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Mapping[str, Spec],
    outputs: Mapping[str, Any] | Sequence[str],
    initializers: Mapping[str, np.ndarray] | None = None,
    opset: int = 13,
    extra_opsets: Mapping[str, int] | None = None,
) -> onnx.ModelProto:
    """A model of `nodes`; `outputs` maps names to dtypes (default float32); shapes inferred."""
    outs = outputs if isinstance(outputs, Mapping) else {o: np.float32 for o in outputs}
    graph = helper.make_graph(
        list(nodes),
        "test",
        [value_info(n, dt, shape) for n, (dt, shape) in inputs.items()],
        [value_info(n, dt, None) for n, dt in outs.items()],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in (initializers or {}).items()],
    )
    opsets = [helper.make_opsetid("", opset)] + [
        helper.make_opsetid(d, v) for d, v in (extra_opsets or {}).items()
    ]
    # IR version 8 keeps onnxruntime happy for every opset used in the tests.
    return helper.make_model(graph, opset_imports=opsets, ir_version=8 if opset < 21 else 10)


def node_model(
    op_type: str,
    inputs: Mapping[str, np.ndarray],
    *,
    opset: int,
    consts: Mapping[str, np.ndarray] | None = None,
    outputs: Sequence[str] = ("out",),
    out_dtypes: Sequence[Any] | None = None,
    order: Sequence[str] | None = None,
    **attrs: Any,
) -> onnx.ModelProto:
    """One node whose runtime inputs are `inputs` (example arrays) and constant inputs `consts`.

    `order` lists the node's input names ("" for an absent optional input); by default the
    runtime inputs, then the constants.
    """
    consts = dict(consts or {})
    names = list(order) if order is not None else list(inputs) + list(consts)
    node = helper.make_node(op_type, names, list(outputs), name=f"{op_type.lower()}_node", **attrs)
    dtypes = out_dtypes or [np.float32] * len(outputs)
    return make_model(
        [node],
        {n: (a.dtype, a.shape) for n, a in inputs.items()},
        dict(zip(outputs, dtypes)),
        consts,
        opset,
    )


def import_model(model: onnx.ModelProto, **kwargs: Any) -> tuple[ir.Module, dict[str, np.ndarray]]:
    return from_onnx(model, **kwargs)


def main_ops(module: ir.Module) -> list[ir.Operation]:
    """The ops of `@main`, in order, without the return."""
    main = module.body.operations[0]
    return [
        op.operation
        for op in main.regions[0].blocks[0].operations
        if op.operation.name != "func.return"
    ]


def op_names(module: ir.Module, *, constants: bool = False) -> list[str]:
    return [op.name for op in main_ops(module) if constants or op.name != "graph.constant"]


def the_op(module: ir.Module, name: str) -> ir.Operation:
    """The single op called `name` in @main."""
    found = [op for op in main_ops(module) if op.name == name]
    assert len(found) == 1, f"expected one {name}, found {[op.name for op in main_ops(module)]}"
    return found[0]


def attrs(op: ir.Operation) -> dict[str, Any]:
    return {name: from_attr(op.attributes[name]) for name in op.attributes}


def result_type(op: ir.Operation) -> TensorT:
    t = tensor_t(op.results[0].type)
    assert t is not None
    return t


def output_types(module: ir.Module) -> list[TensorT]:
    main = module.body.operations[0]
    fn_type = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    return [t for t in (tensor_t(r) for r in fn_type.results) if t is not None]


def params_used(module: ir.Module) -> list[str]:
    out = []
    for op in main_ops(module):
        if op.name == "graph.constant":
            name = param_name(op.attributes["value"])
            if name is not None:
                out.append(name)
    return out


def run_mlc(
    module: ir.Module, params: Mapping[str, np.ndarray], feeds: Mapping[str, np.ndarray]
) -> list[np.ndarray]:
    from mlc.dialects.graph.reference import run_module

    return run_module(module, params, dict(feeds))


def run_compiled(
    model: onnx.ModelProto, feeds: Mapping[str, np.ndarray], pipeline: str | None = None
) -> list[np.ndarray]:
    """Every output of `model` compiled by mlc (`pipeline`, a pass list; none: the default
    pipeline) and run by the JIT."""
    import mlc
    from mlc.runtime import GraphModule

    module, params = from_onnx(model)
    options = {"pipeline": f"builtin.module({pipeline})"} if pipeline else {}
    gm = GraphModule(mlc.build(module, params, **options).jit())
    for name, value in feeds.items():
        gm.set_input(name, value)
    gm.run()
    return [gm.get_output(i) for i in range(gm.get_num_outputs())]


def run_ort(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    ort = pytest.importorskip("onnxruntime")
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, dict(feeds))


def ort_u8s8_exact() -> bool:
    """Whether onnxruntime multiplies uint8 by int8 exactly here. Without a VNNI dot product
    (x86 with AVX2 only) MLAS multiplies with vpmaddubsw, which saturates every pair of
    products at int16 (255 * -128 * 2 < -32768): its results then differ from exact integer
    arithmetic, which is what ONNX specifies and mlc computes. onnxruntime's quantizer offers
    `reduce_range` (7-bit weights) for such hosts."""
    return host_arch() != "x86_64" or host_int8_dot_bits() > 0


def check_numerics(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    **import_kwargs: Any,
) -> ir.Module:
    """Import `model`, run it with mlc's reference and onnxruntime, compare every output."""
    expected = run_ort(model, feeds)
    module, params = import_model(model, **import_kwargs)
    actual = run_mlc(module, params, feeds)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape, (a.shape, e.shape)
        assert a.dtype == e.dtype, (a.dtype, e.dtype)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
    return module


def rand(
    *shape: int, seed: int = 0, dtype: Any = np.float32, low: float = -1.0, high: float = 1.0
) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)
