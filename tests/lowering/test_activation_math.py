"""Activations built on transcendental functions (GELU erf/tanh, SiLU, Mish, sigmoid, softplus,
HardSwish, ELU, tanh, erf, exp) compile to one vectorized kernel with no libm call in it: the
object file mlc-default produces imports no expf/erff/tanhf/..., and the results agree with
onnxruntime."""

from __future__ import annotations

import pathlib
import re
import subprocess

import numpy as np
import onnx
import pytest
from onnx import helper

import mlc
from mlc.runtime import GraphModule
from mlc.runtime.toolchain import llvm_bin

LIBM = {
    "expf",
    "exp2f",
    "expm1f",
    "logf",
    "log1pf",
    "tanhf",
    "erff",
    "sinf",
    "cosf",
    "powf",
    "exp",
    "log",
    "tanh",
    "erf",
    "sin",
    "cos",
    "pow",
    "expm1",
    "log1p",
}
SHAPE = [3, 1000]  # 1000 = 125 vectors of 8: no scalar remainder needed, but odd rows


def _model(nodes: list[onnx.NodeProto], opset: int) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "act",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _one(op: str, opset: int, **attrs: object) -> onnx.ModelProto:
    return _model([helper.make_node(op, ["x"], ["y"], **attrs)], opset)


CASES = {
    "gelu_erf": (_one("Gelu", 20), 1e-5, 1e-6),
    "gelu_tanh": (_one("Gelu", 20, approximate="tanh"), 1e-5, 1e-6),
    "silu": (
        _model(
            [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Mul", ["x", "s"], ["y"])],
            13,
        ),
        1e-5,
        1e-6,
    ),
    "mish": (_one("Mish", 18), 1e-5, 1e-6),
    "sigmoid": (_one("Sigmoid", 13), 1e-5, 1e-6),
    "softplus": (_one("Softplus", 13), 1e-5, 1e-6),
    "hard_swish": (_one("HardSwish", 14), 1e-5, 1e-6),
    "elu": (_one("Elu", 6), 1e-5, 1e-6),
    "tanh": (_one("Tanh", 13), 1e-5, 1e-6),
    "erf": (_one("Erf", 13), 1e-5, 1e-6),
    "exp": (_one("Exp", 13), 1e-5, 0.0),
}


def _imports(lib: object, tmp_path: pathlib.Path) -> set[str]:
    obj = lib.export_object(tmp_path / "k.o")  # type: ignore[attr-defined]
    out = subprocess.run(
        [str(llvm_bin() / "llvm-nm"), "--undefined-only", "--format=just-symbols", str(obj)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


@pytest.mark.parametrize("name", list(CASES))
def test_activation_is_one_vector_kernel_without_libm(name: str, tmp_path: pathlib.Path) -> None:
    ort = pytest.importorskip("onnxruntime")
    model, rtol, atol = CASES[name]
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [rng.normal(0, 3, SHAPE[1] - 8), [0.0, -0.0, 12.0, -12.0, 90.0, -90.0, 1e-30, -1e-30]]
    )
    x = np.stack([x, x * 0.1, x * 10]).astype(np.float32)
    lib = mlc.build(*mlc.from_onnx(model))
    text = str(lib.module)
    kernels = set(re.findall(r"llvm\.call @(fused_\w+)\(", text))
    assert len(kernels) == 1, f"{name}: one fused kernel expected, got {sorted(kernels)}"
    assert "vector<8xf32>" in text
    assert not re.search(r"llvm\.intr\.(exp|log|tanh|erf|sin|cos|pow)\b", text), (
        f"{name}: math intrinsic left"
    )
    assert not (_imports(lib, tmp_path) & LIBM), f"{name}: the object calls libm"
    gm = GraphModule(lib.jit())
    gm.set_input("x", x)
    gm.run()
    expected = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    ).run(None, {"x": x})[0]
    np.testing.assert_allclose(gm.get_output(0), expected, rtol=rtol, atol=atol)
