"""Clear errors for files that are not usable ONNX models, and for content mlc cannot import."""

from __future__ import annotations

import builtins
import pathlib
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from helpers.onnx_testing import make_model, node_model, rand
from mlc.errors import MissingDependencyError, ModelLoadError, UnsupportedOpError
from mlc.frontend import from_onnx


def _matmul_model() -> onnx.ModelProto:
    w = rand(64, 64)
    return node_model("MatMul", {"x": rand(1, 64)}, consts={"w": w}, opset=13)


def test_missing_file(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ModelLoadError, match=r"cannot read '.*nope\.onnx': no such file"):
        from_onnx(tmp_path / "nope.onnx")


@pytest.mark.parametrize("content", [b"\x00\xff\xfe garbage \x12\x34", b"", b"graph { }\n"])
def test_not_an_onnx_file(tmp_path: pathlib.Path, content: bytes) -> None:
    path = tmp_path / "bad.onnx"
    path.write_bytes(content)
    with pytest.raises(ModelLoadError, match=r"'.*bad\.onnx' is not an ONNX model"):
        from_onnx(path)


def test_missing_external_data(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_matmul_model(), path, save_as_external_data=True, location="w.bin", size_threshold=0)
    (tmp_path / "w.bin").unlink()
    with pytest.raises(
        ModelLoadError, match=r"cannot load the external data of '.*m\.onnx'.*tensor name: w"
    ):
        from_onnx(path)


def test_external_data_is_loaded_from_the_path(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_matmul_model(), path, save_as_external_data=True, location="w.bin", size_threshold=0)
    _, params = from_onnx(path)
    np.testing.assert_array_equal(
        params["w"], numpy_helper.to_array(_matmul_model().graph.initializer[0])
    )
    proto = onnx.load(path, load_external_data=False)
    with pytest.raises(
        ModelLoadError, match="initializer 'w' keeps its data in the external file 'w.bin'"
    ):
        from_onnx(proto)


def test_unsupported_element_types_are_listed_together() -> None:
    nodes = [helper.make_node("Identity", ["s"], ["y"]), helper.make_node("Identity", ["c"], ["z"])]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("s", TensorProto.STRING, [2]),
            helper.make_tensor_value_info("c", TensorProto.COMPLEX64, [2]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.STRING, [2]),
            helper.make_tensor_value_info("z", TensorProto.COMPLEX64, [2]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(
        UnsupportedOpError,
        match=r"graph input 's' is string; graph input 'c' is complex64; "
        r"graph output 'y' is string",
    ):
        from_onnx(model)


def test_unsupported_initializer_type() -> None:
    bf16 = helper.make_tensor("w", TensorProto.BFLOAT16, [2], [1.0, 2.0])
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [bf16],
    )
    with pytest.raises(UnsupportedOpError, match="initializer 'w' is bfloat16"):
        from_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]))


def test_opset_newer_than_onnx_knows() -> None:
    model = _matmul_model()
    model.opset_import[0].version = onnx.defs.onnx_opset_version() + 1
    with pytest.raises(ModelLoadError, match="newer than the installed onnx"):
        from_onnx(model)


def test_no_default_opset() -> None:
    model = _matmul_model()
    model.opset_import[0].domain = "com.example"
    with pytest.raises(ModelLoadError, match="does not import the default ONNX operator set"):
        from_onnx(model)


def test_undefined_input_name() -> None:
    model = make_model(
        [helper.make_node("Relu", ["nowhere"], ["y"], name="r")], {"x": (np.float32, [2])}, ["y"]
    )
    with pytest.raises(
        ModelLoadError, match=r"Relu node 'r' \(opset 13\): input 'nowhere' is not produced"
    ):
        from_onnx(model)


def test_missing_onnx_package(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_onnx(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError("No module named 'onnx'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_onnx)
    with pytest.raises(MissingDependencyError, match=r"pip install 'mlc\[onnx\]'"):
        from_onnx("model.onnx")


def test_graph_output_that_nothing_produces() -> None:
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], {"x": (np.float32, [2])}, ["y", "ghost"]
    )
    with pytest.raises(ModelLoadError, match="graph output 'ghost' is not produced by any node"):
        from_onnx(model)
