"""Whole models: the light ONNX zoo with random weights, imported, interpreted by the numpy
reference (checked against onnxruntime), then simplified + folded (checked against itself)."""

from __future__ import annotations

import pathlib
from collections import Counter

import numpy as np
import pytest

import mlc
from mlc.dialects.graph.reference import run_module
from mlc.dialects.walk import walk

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

LIGHT = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def _randomized(path: pathlib.Path) -> onnx.ModelProto:
    """The light models hold every weight as ConstantOfShape (one repeated value, which makes
    any output uniform): replace them by random initializers (He-scaled weights, positive
    per-channel vectors so that variances stay valid). A final Softmax is dropped: random
    logits saturate it, and the logits are the sharper check."""
    from onnx import numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    shapes = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    rng = np.random.default_rng(0)
    kept = []
    for node in graph.node:
        if node.op_type != "ConstantOfShape" or node.input[0] not in shapes:
            kept.append(node)
            continue
        shape = tuple(int(d) for d in shapes[node.input[0]])
        if len(shape) >= 2:
            value = rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))
        else:
            value = rng.uniform(0.5, 1.5, shape)
        graph.initializer.append(numpy_helper.from_array(value.astype(np.float32), node.output[0]))
    if kept[-1].op_type == "Softmax":
        graph.output[0].name = kept.pop().input[0]
    del graph.node[:]
    graph.node.extend(kept)
    return model


def _counts(module: object) -> Counter[str]:
    return Counter(op.name.removeprefix("graph.") for op in walk(module.operation))  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, left",
    [
        (
            "inception_v2",
            {"batch_norm": 0, "mul": 0, "add": 0},
        ),  # conv -> bn -> mul -> add, all into convs
        (
            "densenet121",
            {"batch_norm": 0, "mul": 62, "add": 62},
        ),  # 62 pre-activation norms: one mul + add each
    ],
)
def test_light_model_simplify_fold(name: str, left: dict[str, int]) -> None:
    from mlc.frontend.onnx.importer import from_onnx

    model = _randomized(LIGHT / f"light_{name}.onnx")
    module, params = from_onnx(model)
    inits = {i.name for i in model.graph.initializer}
    data = next(i for i in model.graph.input if i.name not in inits)
    shape = [d.dim_value for d in data.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)

    expected = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    ).run(None, {data.name: x})[0]
    before = run_module(module, params, [x])[0]
    scale = float(np.abs(expected).max())
    assert scale > 0 and expected.std() > 0.01 * scale  # logits that differ from each other
    np.testing.assert_allclose(before, expected, rtol=1e-3, atol=1e-4 * scale)

    bn_before = _counts(module)["batch_norm"]
    folded = dict(params)
    mlc.PassManager.parse("builtin.module(graph-simplify,graph-fold-constants)").run(
        module, params=folded
    )
    after_counts = _counts(module)
    assert bn_before > 0 and {k: after_counts[k] for k in left} == left
    assert len(folded) < len(params)
    after = run_module(module, folded, [x])[0]
    np.testing.assert_allclose(after, before, rtol=1e-3, atol=1e-4 * scale)
