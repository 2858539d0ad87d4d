"""The nine light-zoo models (seeded random weights) compiled by mlc match onnxruntime.

All nine through the Python API + JIT (on the logits: a final Softmax would hide errors behind
one-hot probabilities); four of them also through `mlc compile` + `mlc run --verify
onnxruntime` (the full model, run from the exported package in a new process). The package
path compiles the same IR as the JIT, so it runs on the four cheapest models (one of each
family: residual, fire modules, grouped/shuffled, plain); on the other five it took 180 of the
suite's 1,500 CPU-seconds on 2-core Zen 3. Tolerances: rtol 1e-3, atol 1e-4 x output scale.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import mlc

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from mlc.frontend.onnx.zoo import light_model_names, load_light_model, save_light_model  # noqa: E402

MODELS = light_model_names()


def test_all_nine_models_are_here() -> None:
    assert set(CLI_MODELS) < set(MODELS)
    assert MODELS == [
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


def _onnxruntime(model: object, x: np.ndarray) -> np.ndarray:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options)  # type: ignore[attr-defined]
    return session.run(None, {session.get_inputs()[0].name: x})[0]


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_python_api_jit_matches_onnxruntime(name: str) -> None:
    from mlc.runtime import GraphModule

    model = load_light_model(name, seed=0, drop_softmax=True)
    module, params = mlc.from_onnx(model)
    gm = GraphModule(mlc.build(module, params).jit())
    ((input_name, info),) = gm.get_input_info().items()
    x = np.random.default_rng(1).standard_normal(info.shape).astype(np.float32)
    gm.set_input(input_name, x)
    gm.run()
    got = gm.get_output(0)
    want = _onnxruntime(model, x)
    scale = float(np.abs(want).max())
    assert scale > 0 and np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4 * scale)


CLI_MODELS = ["bvlc_alexnet", "resnet50", "shufflenet", "squeezenet"]


@pytest.mark.slow
@pytest.mark.parametrize("name", CLI_MODELS)
def test_cli_compile_and_run_verify(name: str, tmp_path: pathlib.Path) -> None:
    model_path = save_light_model(name, tmp_path / f"{name}.onnx", seed=0)
    package = tmp_path / f"{name}.tar"
    mlc_cli = [sys.executable, "-m", "mlc.driver"]
    compiled = subprocess.run(
        mlc_cli + ["compile", str(model_path), "-o", str(package)], capture_output=True, text=True
    )
    assert compiled.returncode == 0, compiled.stderr
    ran = subprocess.run(
        mlc_cli + ["run", str(package), "--verify", "onnxruntime", "--json", "--print-top", "5"],
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    verify = report["verify"]
    assert (
        verify["ok"] and verify["outputs"] and all(o["ok"] for o in verify["outputs"].values())
    ), verify
    assert [c["rank"] for c in report["top"]["classes"]] == [1, 2, 3, 4, 5]
