"""Kernel timers compiled in (`profile=True`): `GraphModule.profile()`, `mlc run --profile
[--json] [--plot]`, the profile PNG, and the errors (no timers, matplotlib missing)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import mlc
from helpers.cli import conv_model
from helpers.imports import block_import
from helpers.png import png_info
from mlc.driver import _main
from mlc.errors import MissingDependencyError, MlcError
from mlc.runtime import GraphModule, load_module


def _reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Conv 3x3 pad 1, then Relu (conv_model's graph), in numpy."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((1, 8, 8, 8), np.float32)
    for kh in range(3):
        for kw in range(3):
            out += np.einsum("nchw,oc->nohw", xp[:, :, kh : kh + 8, kw : kw + 8], w[:, :, kh, kw])
    return np.maximum(out, 0)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return conv_model(tmp_path_factory.mktemp("profile") / "conv.onnx")


@pytest.fixture(scope="module")
def packages(model: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    timed, plain = model.with_name("timed.tar"), model.with_name("plain.tar")
    assert _main(["-q", "compile", str(model), "-o", str(timed), "--profile"]) == 0
    assert _main(["-q", "compile", str(model), "-o", str(plain)]) == 0
    return timed, plain


def test_profile_names_the_onnx_nodes_and_keeps_the_results(model, packages) -> None:
    module, params = mlc.from_onnx(model)
    gm = GraphModule(mlc.build(module, params, profile=True).jit())
    x = np.random.default_rng(3).standard_normal((1, 3, 8, 8)).astype(np.float32)
    gm.run(x=x)
    np.testing.assert_allclose(gm.get_output(0), _reference(x, params["w"]), rtol=1e-4, atol=1e-4)
    profile = gm.profile(number=7)
    assert profile.runs == 7
    conv = [k for k in profile.kernels if k.call.anchor == "conv2d"]
    assert len(conv) == 1
    assert conv[0].call.nodes == ("conv0", "relu0") and conv[0].call.ops == ("conv2d", "relu")
    assert conv[0].call.flops >= 2 * 8 * 8 * 8 * 27  # a multiply-add per tap and output
    assert conv[0].call.op_types == ()  # only `mlc compile` has the model to name them
    assert all(k.ms >= 0 for k in profile.kernels) and conv[0].ms > 0
    assert 0 < profile.kernel_ms <= profile.run_ms
    assert abs(sum(profile.share(k) for k in profile.kernels) - 100) < 1e-6
    # The packaged (renamed entry, shared library) module has the same timers.
    shared = GraphModule(load_module(packages[0]))
    shared.run(x=x)
    np.testing.assert_allclose(shared.get_output(0), gm.get_output(0), rtol=1e-6, atol=1e-6)
    assert [k.call.kernel for k in shared.profile(number=2).kernels] == [
        k.call.kernel for k in profile.kernels
    ]


def test_profile_without_timers_says_how_to_get_them(packages, capsys) -> None:
    gm = GraphModule(load_module(packages[1]))
    gm.set_input(0, np.zeros((1, 3, 8, 8), np.float32))
    with pytest.raises(MlcError, match="compile it with `mlc compile --profile`"):
        gm.profile()
    assert _main(["run", str(packages[1]), "--profile"]) == 4
    assert "without kernel timers" in capsys.readouterr().err


def test_run_profile_table_and_json(packages, capsys) -> None:
    assert _main(["run", str(packages[0]), "--profile", "--profile-runs", "3"]) == 0
    out = capsys.readouterr().out
    assert "ONNX nodes" in out and "conv0, relu0" in out and "Conv+Relu" in out
    assert "mean of 3 runs" in out
    assert _main(["run", str(packages[0]), "--profile", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["profile"]
    assert doc["runs"] == 10 and doc["kernel_ms"] <= doc["run_ms"]
    (conv,) = [k for k in doc["kernels"] if k["anchor"] == "conv2d"]
    assert conv["nodes"] == ["conv0", "relu0"] and conv["gflops"] > 0
    assert conv["op_types"] == ["Conv", "Relu"] and conv["ops"] == ["conv2d", "relu"]


def test_profile_flags_need_profile(packages, tmp_path, capsys) -> None:
    assert _main(["run", str(packages[0]), "--plot", str(tmp_path / "p.png")]) == 1
    assert "only apply with --profile" in capsys.readouterr().err


def test_profile_plot_is_a_titled_png(packages, tmp_path) -> None:
    png = tmp_path / "profile.png"
    assert _main(["-q", "run", str(packages[0]), "--profile", "--plot", str(png)]) == 0
    width, height, title = png_info(png)
    assert 400 <= width <= 3000 and 100 <= height <= 3000
    assert title == "mlc profile: timed.tar"


def test_missing_matplotlib_is_exit_5(packages, tmp_path, monkeypatch, capsys) -> None:
    block_import(monkeypatch, "matplotlib")
    from mlc.plot import require_matplotlib

    with pytest.raises(MissingDependencyError, match=r"pip install 'mlc\[plot\]'"):
        require_matplotlib()
    png = tmp_path / "never.png"
    assert _main(["run", str(packages[0]), "--profile", "--plot", str(png)]) == 5
    assert "pip install 'mlc[plot]'" in capsys.readouterr().err and not png.exists()


def test_profile_of_a_dynamic_module_counts_operations_at_the_run_sizes() -> None:
    """A kernel over a symbolic dim records its operation count as an expression (16*n for a
    relu over [n, 16]); each profile evaluates it with the sizes of the runs it timed."""
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="act")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    gm = GraphModule(mlc.build(module, params, profile=True).jit())
    for n in (3, 40):
        x = np.random.default_rng(n).standard_normal((n, 16)).astype(np.float32)
        gm.set_input(x=x)
        (kernel,) = gm.profile(number=2).kernels
        assert kernel.call.flops == 16 * n and kernel.call.nodes == ("act",)
        np.testing.assert_array_equal(gm.get_output(0), np.maximum(x, 0))
