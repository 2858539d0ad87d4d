"""`mlc compile` / `mlc.build`: outputs, options and errors (exit codes and messages)."""

from __future__ import annotations

import json
import pathlib
import tarfile

import numpy as np
import pytest

import mlc
from mlc.driver import _main
from mlc.runtime import GraphModule

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv0"),
            helper.make_node("Relu", ["c"], ["y"], name="relu0"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])],
        [numpy_helper.from_array(w, "w")],
    )
    path = tmp_path_factory.mktemp("model") / "conv.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def test_compile_package_so_and_object(
    model_path: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main(["compile", str(model_path), "-o", str(tmp_path / "m.tar")]) == 0
    assert "compiled" in capsys.readouterr().out
    with tarfile.open(tmp_path / "m.tar") as tar:
        assert {"model.so", "manifest.json", "params.bin"} <= set(tar.getnames())
    (tmp_path / "so").mkdir()
    assert _main(["compile", str(model_path), "-o", str(tmp_path / "so" / "m.so")]) == 0
    manifest = json.loads((tmp_path / "so" / "m.manifest.json").read_text())
    assert manifest["inputs"][0]["name"] == "x" and manifest["outputs"][0]["shape"] == [1, 8, 8, 8]
    assert manifest["entry"] == "mlc_conv"  # derived from the model's file name
    assert (tmp_path / "so" / "m.params.bin").stat().st_size == manifest["params_size"]
    assert _main(["compile", str(model_path), "-o", str(tmp_path / "m.o")]) == 0
    assert (tmp_path / "m.o").read_bytes()[:4] == b"\x7fELF"
    assert (tmp_path / "m.manifest.json").is_file() and (tmp_path / "m.params.bin").is_file()


def test_save_temps_keeps_every_step(model_path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    temps = tmp_path / "temps"
    assert (
        _main(
            ["compile", str(model_path), "-o", str(tmp_path / "m.tar"), "--save-temps", str(temps)]
        )
        == 0
    )
    # the default pipeline for this host (NCHW16c convolutions on AVX-512 hosts)
    expected = str(mlc.PassManager.parse(mlc.BuildOptions().pipeline_text()))
    assert expected.startswith("builtin.module(mlc-default")
    assert (temps / "pipeline.txt").read_text().strip() == expected
    steps = sorted(p.name for p in temps.glob("[0-9][0-9]-*.mlir"))
    assert steps[0] == "00-input.mlir" and any("graph-to-tp" in s for s in steps)
    assert 'loc("conv0")' in (temps / "00-input.mlir").read_text()


def test_save_temps_writes_a_reproducer_on_failure(
    model_path: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    temps = tmp_path / "temps"
    # The second graph-to-tp finds no @main any more: that step fails and is reproducible alone.
    code = _main(
        [
            "compile",
            str(model_path),
            "-o",
            str(tmp_path / "m.tar"),
            "--save-temps",
            str(temps),
            "--pass-pipeline",
            "builtin.module(graph-fuse,graph-to-tp,graph-to-tp)",
        ]
    )
    assert code == 4
    assert "graph-to-tp: no function @main" in capsys.readouterr().err
    reproducer = (temps / "reproducer.mlir").read_text()
    command = reproducer.splitlines()[1]
    assert command == (
        f"//   mlc-opt {temps.resolve() / 'reproducer.mlir'} --params "
        f"{temps.resolve() / 'reproducer.npz'} --pass-pipeline='builtin.module(graph-to-tp)'"
    )
    assert "func.func @mlc_main" in reproducer and "tp.block" in reproducer


@pytest.mark.parametrize(
    "args, message",
    [
        (["--target", "cuda"], "unsupported target 'cuda'"),
        (["--pass-pipeline", "builtin.module(graph-fuse)"], "no 'mlc.manifest' attribute"),
        (
            ["--pass-pipeline", "builtin.module(graph-fuse,graph-to-tp,tp-to-loops)"],
            "must be lowered to the LLVM dialect",
        ),
        (["--pass-pipeline", "builtin.module(nonsense)"], "does not refer to a registered pass"),
        (["--entry-name", "9lives"], "entry name (--entry-name) '9lives' is not a C identifier"),
        (["--tuning-records", "records.json"], "--tuning-records 'records.json': no such file"),
        (
            ["--tuning-records", __file__, "--pass-pipeline", "builtin.module(mlc-default)"],
            "applies to the default pipeline",
        ),
    ],
)
def test_compile_errors(
    model_path: pathlib.Path,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    assert _main(["compile", str(model_path), "-o", str(tmp_path / "m.tar"), *args]) == 4
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_compile_bad_output_and_inputs(
    model_path: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main(["compile", str(model_path), "-o", str(tmp_path / "m.zip")]) == 4
    assert "must end in .tar" in capsys.readouterr().err
    assert _main(["compile", str(tmp_path / "missing.onnx"), "-o", str(tmp_path / "m.tar")]) == 4
    assert "missing.onnx" in capsys.readouterr().err
    (tmp_path / "bad.mlir").write_text("func.func @main( {")
    assert _main(["compile", str(tmp_path / "bad.mlir"), "-o", str(tmp_path / "m.tar")]) == 4
    assert "bad.mlir:1:" in capsys.readouterr().err


def test_compile_mlir_with_params(model_path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    assert _main(["import", str(model_path), "-o", str(tmp_path / "m.mlir")]) == 0
    assert (
        _main(
            [
                "compile",
                str(tmp_path / "m.mlir"),
                "--params",
                str(tmp_path / "m.mlir.npz"),
                "-o",
                str(tmp_path / "m.tar"),
            ]
        )
        == 0
    )
    from mlc.runtime import GraphModule, load_module

    gm = GraphModule(load_module(tmp_path / "m.tar"))
    x = np.random.default_rng(3).standard_normal((1, 3, 8, 8)).astype(np.float32)
    gm.run(x=x)
    module, params = mlc.from_onnx(model_path)
    from mlc.dialects.graph.reference import run_module

    (want,) = run_module(module, params, [x])
    np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-5, atol=1e-5)


def test_build_does_not_change_the_callers_module(model_path: pathlib.Path) -> None:
    module, params = mlc.from_onnx(model_path)
    before = str(module)
    mlc.build(module, params)
    assert str(module) == before
    with pytest.raises(TypeError, match="unknown option"):
        mlc.build(module, params, thread=2)


def test_params_only_dead_nodes_read_are_dropped(tmp_path: pathlib.Path) -> None:
    """Outputs cut at an intermediate tensor (a usual way to debug a model): a MatMul whose
    result reaches no output reads initializer W_dead. mlc-dce removes it, and the library
    keeps only W: the JIT and `mlc compile` work (they used to fail on 'params not in the
    manifest: W_dead')."""
    rng = np.random.default_rng(0)
    w, dead = (rng.standard_normal((4, 4)).astype(np.float32) for _ in range(2))
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "W"], ["y"]),
            helper.make_node("MatMul", ["y", "W_dead"], ["unused"]),
        ],
        "dead_param",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(dead, "W_dead")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module, params = mlc.from_onnx(model)
    assert sorted(params) == ["W", "W_dead"]
    lib = mlc.build(module, params)
    assert sorted(lib.params) == ["W"]
    x = np.ones((2, 4), np.float32)
    gm = GraphModule(lib.jit())
    gm.set_input("x", x)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0), x @ w, rtol=1e-5)
    path = tmp_path / "dead.onnx"
    onnx.save(model, str(path))
    assert _main(["compile", str(path), "-o", str(tmp_path / "dead.tar")]) == 0
