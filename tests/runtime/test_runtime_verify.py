"""`mlc run --verify onnxruntime` against a tiny ONNX model whose compiled form is the hand-written
contract module (y = x*w + 1, r = rowsum(x*w) * k + b), until the ONNX compile path exists."""

from __future__ import annotations

import json
import pathlib
import shutil
import sys

import numpy as np
import pytest

from helpers import contract_module as cm
from helpers.runtime import build_library
from mlc.contract import SourceModel
from mlc.driver import _main
from mlc.runtime.target import source_model

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")


def make_onnx(path: pathlib.Path, params: dict[str, np.ndarray]) -> pathlib.Path:
    from onnx import TensorProto, helper, numpy_helper

    nodes = [
        helper.make_node("Mul", ["x", "w"], ["t"]),
        helper.make_node("Add", ["t", "one"], ["y"]),
        helper.make_node("ReduceSum", ["t", "axes"], ["s"], keepdims=0),
        helper.make_node("Mul", ["s", "k"], ["sk"]),
        helper.make_node("Add", ["sk", "b"], ["r"]),
    ]
    inits = [
        numpy_helper.from_array(params["w"], "w"),
        numpy_helper.from_array(params["b"], "b"),
        numpy_helper.from_array(np.array(1.0, np.float32), "one"),
        numpy_helper.from_array(np.array([1], np.int64), "axes"),
    ]
    graph = helper.make_graph(
        nodes,
        "contract",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [cm.M, cm.N]),
            helper.make_tensor_value_info("k", TensorProto.FLOAT, [cm.M]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [cm.M, cm.N]),
            helper.make_tensor_value_info("r", TensorProto.FLOAT, [cm.M]),
        ],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


@pytest.fixture(scope="module")
def verified(tmp_path_factory: pytest.TempPathFactory) -> tuple[pathlib.Path, pathlib.Path]:
    """(package, model): the package records the model as its source."""
    d = tmp_path_factory.mktemp("verify")
    model = make_onnx(d / "contract.onnx", cm.make_params())
    lib = build_library(1, source=source_model(model))
    return lib.export_library(d / "model.tar"), model


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    code = _main(["run", *[str(a) for a in argv]])
    out, err = capsys.readouterr()
    return code, out, err


def _built_with_source(dest: pathlib.Path, source: SourceModel | None) -> pathlib.Path:
    """A package of the contract module recording `source` as its source model (a package's
    manifest.json cannot be edited: it must match the manifest its library carries)."""
    return build_library(1, source=source).export_library(dest)


def test_verify_passes_and_reports_errors(verified, capsys) -> None:
    pkg, model = verified
    code, out, err = _run(capsys, pkg, "--verify", "onnxruntime")
    assert code == 0, err
    assert f"Verification against onnxruntime ({model.resolve()})" in out
    for name in ("y", "r"):
        line = next(s for s in out.splitlines() if s.startswith(f"  {name}: max abs error"))
        assert line.endswith("ok")
        assert float(line.split("max abs error")[1].split()[0]) < 1e-5


def test_verify_json(verified, capsys) -> None:
    pkg, _ = verified
    code, out, _ = _run(capsys, pkg, "--verify", "onnxruntime", "--json", "--fill-mode", "ones")
    assert code == 0
    v = json.loads(out)["verify"]
    assert v["ok"] is True and v["backend"] == "onnxruntime"
    assert set(v["outputs"]) == {"y", "r"}
    assert all(o["max_abs"] < 1e-5 and o["max_rel"] < 1e-4 for o in v["outputs"].values())


def test_verify_detects_a_wrong_compilation(tmp_path, capsys) -> None:
    model = make_onnx(tmp_path / "contract.onnx", cm.make_params())
    wrong = {k: v * 1.5 for k, v in cm.make_params().items()}  # compiled with other params
    pkg = build_library(1, params=wrong, source=source_model(model)).export_library(
        tmp_path / "m.tar"
    )
    code, out, err = _run(capsys, pkg, "--verify", "onnxruntime")
    assert code == 4
    assert "MISMATCH" in out
    assert "verification against onnxruntime failed for y, r" in err


def test_missing_changed_and_overridden_model(verified, tmp_path, capsys) -> None:
    pkg, model = verified
    recorded = source_model(model)
    moved = _built_with_source(
        tmp_path / "moved.tar", SourceModel(str(tmp_path / "gone.onnx"), recorded.sha256)
    )
    code, _, err = _run(capsys, moved, "--verify", "onnxruntime")
    assert code == 4 and "gone.onnx not found" in err and "--verify-model" in err
    code, _, err = _run(capsys, moved, "--verify", "onnxruntime", "--verify-model", model)
    assert code == 0, err
    changed = tmp_path / "changed.onnx"
    make_onnx(changed, {k: v + 1 for k, v in cm.make_params().items()})
    code, _, err = _run(capsys, pkg, "--verify", "onnxruntime", "--verify-model", changed)
    assert code == 4 and "differs from the one the package was built from" in err
    unrecorded = _built_with_source(tmp_path / "unrecorded.tar", None)
    code, _, err = _run(capsys, unrecorded, "--verify", "onnxruntime")
    assert code == 4 and "records no source model" in err
    copy = tmp_path / "copy.onnx"
    shutil.copy(model, copy)
    code, _, err = _run(capsys, unrecorded, "--verify", "onnxruntime", "--verify-model", copy)
    assert code == 0, err


def test_missing_onnxruntime_exits_5_with_the_pip_hint(
    verified, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg, _ = verified
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` fail
    code, _, err = _run(capsys, pkg, "--verify", "onnxruntime")
    assert code == 5
    assert "onnxruntime" in err and "pip install 'mlc[test]'" in err


def test_compiled_by_mlc_compile_verifies(tmp_path, capsys) -> None:
    # the real path: ONNX -> mlc compile (frontend, mlc-default pipeline) -> package -> mlc run
    model = make_onnx(tmp_path / "contract.onnx", cm.make_params())
    code = _main(["compile", str(model), "-o", str(tmp_path / "c.tar")])
    compile_out, compile_err = capsys.readouterr()
    assert code == 0, compile_err
    assert "c.tar" in compile_out
    code, out, err = _run(capsys, tmp_path / "c.tar", "--verify", "onnxruntime", "--json")
    assert code == 0, err
    verify = json.loads(out)["verify"]
    assert verify["ok"] is True and verify["model"] == str(model.resolve())
    assert all(o["max_abs"] < 1e-5 for o in verify["outputs"].values())
