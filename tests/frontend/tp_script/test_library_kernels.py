"""Library kernels: a model calls a C function from a shared library given at build time (the
test compiles it with cc); the JIT loads the library, an exported package bundles it and runs
in a fresh process."""

from __future__ import annotations

import json
import pathlib
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import mlc
from helpers.runtime import run_python
from mlc import tp as T
from mlc.runtime import GraphModule
from mlc.runtime.linker import c_compiler

C_SOURCE = """
void scaled_add(const float *a, const float *b, float *out) {
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 8; j++)
            out[i * 8 + j] = a[i * 8 + j] + 2.0f * b[j];
}
"""
W = np.arange(8, dtype=np.float32) - 3


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("lib")
    (d / "scaled_add.c").write_text(C_SOURCE)
    out = d / "libscaledadd.so"
    subprocess.run(
        [c_compiler(), "-shared", "-fPIC", "-O2", "-o", str(out), str(d / "scaled_add.c")],
        check=True,
    )
    return out


def _model() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("ScaledAdd", ["r", "w"], ["s"], domain="com.example"),
        helper.make_node("Tanh", ["s"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "library",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])],
        [onnx.numpy_helper.from_array(W, "w")],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    return helper.make_model(graph, opset_imports=opsets)


def test_library_function_called_from_a_model(library: pathlib.Path, tmp_path: pathlib.Path):
    T.register_onnx_library_op("ScaledAdd", "scaled_add", str(library), domain="com.example")
    try:
        module, params = mlc.from_onnx(_model())
    finally:
        T.unregister_onnx_op("ScaledAdd", domain="com.example")
    lib = mlc.build(module, params)
    assert lib.manifest.runtime_libs == ("scaledadd",)
    x = np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32)
    ref = np.tanh(np.maximum(x, 0) + 2 * W)
    gm = GraphModule(lib.jit())
    gm.set_input(0, x)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0), ref, rtol=1e-6, atol=1e-6)

    package = lib.export_library(tmp_path / "m.tar")
    code = f"""
import json, numpy as np
from mlc.runtime import GraphModule, load_module
gm = GraphModule(load_module({str(package)!r}))
gm.set_input(0, np.array({x.tolist()!r}, np.float32))
gm.run()
print(json.dumps(gm.get_output(0).tolist()))
"""
    library.rename(library.with_suffix(".moved"))  # the package must carry its own copy
    try:
        proc = run_python(code)
    finally:
        library.with_suffix(".moved").rename(library)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(json.loads(proc.stdout), ref, rtol=1e-6, atol=1e-6)


def test_library_errors(library: pathlib.Path, tmp_path: pathlib.Path) -> None:
    with pytest.raises(T.CallError, match=r"must be named lib<name>.so"):
        T.register_onnx_library_op("X", "f", str(tmp_path / "scaled.so"), domain="d")
    with pytest.raises(T.CallError, match=r"libnothere.so does not exist"):
        T.register_onnx_library_op("X", "f", str(tmp_path / "libnothere.so"), domain="d")
