"""The light model zoo shipped with onnx: every model imports (library and CLI), verifies, and
keeps nothing of its ConstantOfShape weight generators or constant Unsqueezes in the graph."""

from __future__ import annotations

import collections
import pathlib
import re
import time

import onnx
import pytest

from helpers.onnx_testing import main_ops
from mlc.driver import _main
from mlc.frontend import from_onnx

LIGHT = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
NAMES = [
    "bvlc_alexnet",
    "densenet121",
    "inception_v1",
    "inception_v2",
    "resnet50",
    "shufflenet",
    "squeezenet",
    "vgg19",
    "zfnet512",
]
# ONNX op -> graph op; every other op of these models must be folded or vanish.
CONVERTED = {
    "Conv": "graph.conv2d",
    "BatchNormalization": "graph.batch_norm",
    "Relu": "graph.relu",
    "MaxPool": "graph.max_pool2d",
    "AveragePool": "graph.avg_pool2d",
    "GlobalAveragePool": "graph.global_avg_pool2d",
    "LRN": "graph.lrn",
    "Concat": "tensor.concat",
    "Reshape": "graph.reshape",
    "Transpose": "graph.transpose",
    "Gemm": "graph.dense",
    "Softmax": "graph.softmax",
    "Mul": "graph.mul",
    "Add": "graph.add",
}
VANISHING = {"ConstantOfShape", "Unsqueeze", "Dropout"}


def _constant_values(model: onnx.ModelProto) -> set[str]:
    """Initializers and the outputs of nodes whose inputs are all constant."""
    constant = {i.name for i in model.graph.initializer}
    for node in model.graph.node:
        if all(i in constant for i in node.input):
            constant.update(node.output)
    return constant


def _expected_ops(model: onnx.ModelProto) -> collections.Counter[str]:
    """Graph ops for the nodes that compute on the input; nodes of constants only are folded."""
    expected: collections.Counter[str] = collections.Counter()
    constant = _constant_values(model)
    for node in model.graph.node:
        if all(i in constant for i in node.input):
            continue
        if node.op_type == "Sum":
            expected["graph.add"] += len(node.input) - 1
        elif node.op_type in CONVERTED:
            expected[CONVERTED[node.op_type]] += 1
        else:
            assert node.op_type in VANISHING, node.op_type
    return expected


def test_the_zoo_is_complete() -> None:
    assert sorted(p.stem.removeprefix("light_") for p in LIGHT.glob("light_*.onnx")) == NAMES


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_light_model_imports_with_folded_weights(name: str) -> None:
    model = onnx.load(LIGHT / f"light_{name}.onnx")
    start = time.perf_counter()
    module, params = from_onnx(model)
    assert time.perf_counter() - start < 15
    ops = main_ops(module)
    counts = collections.Counter(op.name for op in ops if op.name != "graph.constant")
    assert counts == _expected_ops(model)
    constants = [op for op in ops if op.name == "graph.constant"]
    assert len(constants) == len(params)  # every weight is a parameter, none inlined
    initializers = {i.name for i in model.graph.initializer}
    generated = _constant_values(model) - initializers
    float_initializers = {
        i.name for i in model.graph.initializer if i.data_type == onnx.TensorProto.FLOAT
    }
    assert set(params) <= generated | float_initializers
    assert generated & set(params)
    text = str(module)
    assert len(text) < 300_000 and "dense<" not in text
    assert all(str(op.location).startswith('loc("') for op in ops)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_light_model_cli_import(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`mlc import -o -` prints the module (parameters are only written with --params)."""
    assert _main(["import", str(LIGHT / f"light_{name}.onnx"), "-o", "-"]) == 0
    out = capsys.readouterr().out
    model = onnx.load(LIGHT / f"light_{name}.onnx")
    assert out.startswith("module {") and "func.func @main" in out
    found = collections.Counter(re.findall(r'"(graph\.\w+)"|(tensor\.concat)', out))
    assert sum(found.values()) - sum(
        n for (op, _), n in found.items() if op == "graph.constant"
    ) == sum(_expected_ops(model).values())


def test_squeezenet_cli_writes_params(tmp_path: pathlib.Path) -> None:
    import numpy as np

    out = tmp_path / "squeezenet.mlir"
    assert _main(["import", str(LIGHT / "light_squeezenet.onnx"), "-o", str(out)]) == 0
    with np.load(str(out) + ".npz", allow_pickle=False) as npz:
        assert len(npz.files) == 52 and npz["conv1_w_0"].shape == (64, 3, 3, 3)
