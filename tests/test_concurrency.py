"""Processes sharing files: two `mlc compile` runs writing one output at the same moment, and
several processes loading one package at once. Every reader sees a whole file, written by one
of the writers, and no temporary file is left behind. (Two tunes appending to one records file:
tests/tuner/test_faults.py.)"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest

from helpers.cli import BIN, conv_model
from mlc.runtime import GraphModule, load_module

onnx = pytest.importorskip("onnx")


def _reference(model: pathlib.Path, x: np.ndarray) -> np.ndarray:
    """Conv 3x3 (pad 1) + Relu in numpy, from the model's own weights."""
    from onnx import numpy_helper

    w = numpy_helper.to_array(onnx.load(str(model)).graph.initializer[0])
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((1, w.shape[0], 8, 8), np.float32)
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,kc->nkhw", xp[:, :, i : i + 8, j : j + 8], w[:, :, i, j])
    return np.maximum(out, 0)


def test_two_compiles_writing_one_output(tmp_path: pathlib.Path) -> None:
    models = [conv_model(tmp_path / f"m{seed}.onnx", seed=seed) for seed in (0, 1)]
    out = tmp_path / "out" / "model.tar"
    out.parent.mkdir()
    for _ in range(2):  # the second round replaces a package that is there
        procs = [
            subprocess.Popen(
                [str(BIN / "mlc"), "-q", "compile", str(m), "-o", str(out)],
                stderr=subprocess.PIPE,
                text=True,
            )
            for m in models
        ]
        for p in procs:
            assert p.wait(timeout=300) == 0, p.stderr.read()  # type: ignore[union-attr]
        assert sorted(p.name for p in out.parent.iterdir()) == ["model.tar"]  # no temporaries
        x = np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype(np.float32)
        gm = GraphModule(load_module(out))
        gm.run(x=x)
        got = gm.get_output(0)
        ok = [np.allclose(got, _reference(m, x), rtol=1e-4, atol=1e-4) for m in models]
        assert sum(ok) == 1  # whole, and one writer's


LOADER = """
import sys
import numpy as np
from mlc.runtime import GraphModule, load_module
x = np.load(sys.argv[2])
for _ in range(5):
    gm = GraphModule(load_module(sys.argv[1]))
    gm.run(x=x)
    np.save(sys.argv[3], gm.get_output(0))
"""


def test_processes_loading_one_package_at_once(tmp_path: pathlib.Path) -> None:
    model = conv_model(tmp_path / "m.onnx")
    package = tmp_path / "m.tar"
    compiled = subprocess.run(
        [str(BIN / "mlc"), "-q", "compile", str(model), "-o", str(package)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert compiled.returncode == 0, compiled.stderr
    x = np.random.default_rng(3).standard_normal((1, 3, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    before = package.read_bytes()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                LOADER,
                str(package),
                str(tmp_path / "x.npy"),
                str(tmp_path / f"y{i}.npy"),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for i in range(3)
    ]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()  # type: ignore[union-attr]
    want = _reference(model, x)
    for i in range(3):
        np.testing.assert_allclose(np.load(tmp_path / f"y{i}.npy"), want, rtol=1e-4, atol=1e-4)
    assert package.read_bytes() == before  # loading never writes to the package
