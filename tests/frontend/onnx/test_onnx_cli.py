"""`mlc import` and `import_model_files`: outputs, exit codes and messages."""

from __future__ import annotations

import pathlib

import numpy as np
import onnx
import pytest
from onnx import helper

from helpers.onnx_testing import make_model, rand
from mlc.driver import _main
from mlc.frontend import import_model_files
from mlc.runtime import GraphModule, load_module


@pytest.fixture
def model_path(tmp_path: pathlib.Path) -> pathlib.Path:
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["g"], name="fc", transB=1),
        helper.make_node("Relu", ["g"], ["y"], name="act"),
    ]
    model = make_model(
        nodes, {"x": (np.float32, ["n", 4])}, ["y"], {"w": rand(3, 4), "b": rand(3, seed=1)}
    )
    path = tmp_path / "fc.onnx"
    onnx.save(model, path)
    return path


def test_import_writes_mlir_and_default_npz(
    model_path: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fc.mlir"
    assert _main(["import", str(model_path), "-o", str(out), "--input-shapes", "x:[2,4]"]) == 0
    text = out.read_text()
    assert '"graph.dense"' in text and "tensor<2x3xf32>" in text and "loc(" not in text
    with np.load(str(out) + ".npz", allow_pickle=False) as npz:
        assert sorted(npz.files) == ["b", "w"] and npz["w"].shape == (3, 4)
    assert capsys.readouterr().err == ""


def test_import_to_stdout_with_debuginfo(
    model_path: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    params = tmp_path / "p.npz"
    code = _main(
        [
            "import",
            str(model_path),
            "-o",
            "-",
            "--params",
            str(params),
            "--input-shapes",
            "x:[1,4]",
            "--print-debuginfo",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert out.startswith("#loc") and 'loc("fc")' in out and 'loc("act")' in out
    assert params.exists() and not (tmp_path / "-.npz").exists()


def test_stdout_without_params_path_warns(
    model_path: pathlib.Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    assert _main(["import", str(model_path), "-o", "-", "--input-shapes", "x:[1,4]"]) == 0
    assert capsys.readouterr().out.startswith("module {")
    assert "2 parameters were not written: with output '-', pass --params FILE" in caplog.text


def test_import_model_files_library_call(model_path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "m.mlir"
    import_model_files(model_path, out, shape_dict={"x": [3, 4]})
    assert "tensor<3x4xf32>" in out.read_text() and (tmp_path / "m.mlir.npz").exists()


def test_dynamic_input_without_shapes_exits_4(
    model_path: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main(["import", str(model_path), "-o", str(tmp_path / "o.mlir")]) == 4
    err = capsys.readouterr().err
    assert err.startswith(
        "mlc import: error: mlc needs static input shapes, but input 'x' [n, 4] has dynamic"
    )
    assert '--input-shapes "x:[...]"' in err
    assert not (tmp_path / "o.mlir").exists()


def test_symbolic_dims_are_kept_on_request_and_compile_to_one_package(
    model_path: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sym.mlir"
    assert _main(["import", str(model_path), "-o", str(out), "--symbolic-dims"]) == 0
    assert 'tensor<?x4xf32, ["n", 4]>' in out.read_text()
    capsys.readouterr()
    package = tmp_path / "sym.tar"
    assert _main(["compile", str(out), "-o", str(package)]) == 0
    gm = GraphModule(load_module(package))
    w, b = rand(3, 4), rand(3, seed=1)
    for n in (1, 6, 17):
        x = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
        gm.run(x=x)
        np.testing.assert_allclose(
            gm.get_output(0), np.maximum(x @ w.T + b, 0), rtol=1e-5, atol=1e-6
        )


def test_bad_file_and_unsupported_op_exit_4(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00not onnx\xff")
    assert _main(["import", str(bad), "-o", "-"]) == 4
    assert "is not an ONNX model" in capsys.readouterr().err
    model = make_model(
        [helper.make_node("NonMaxSuppression", ["b", "s"], ["y"], name="nms")],
        {"b": (np.float32, [1, 4, 4]), "s": (np.float32, [1, 1, 4])},
        {"y": np.int64},
    )
    path = tmp_path / "nms.onnx"
    onnx.save(model, path)
    assert _main(["import", str(path), "-o", "-"]) == 4
    err = capsys.readouterr().err
    assert "NonMaxSuppression (opset 13): its output shape depends on its input values" in err
    assert err.rstrip().endswith("nodes: nms")


def test_params_with_any_names_round_trip(tmp_path: pathlib.Path) -> None:
    from mlc.frontend.onnx.files import save_params

    params = {
        "file": rand(2, 2),
        "allow_pickle": np.arange(3),
        "a/b.c": np.zeros((2, 0), np.float16),
    }
    save_params(tmp_path / "p.npz", params)
    with np.load(tmp_path / "p.npz", allow_pickle=False) as npz:
        assert sorted(npz.files) == sorted(params)
        for name, value in params.items():
            np.testing.assert_array_equal(npz[name], value)
            assert npz[name].dtype == value.dtype
