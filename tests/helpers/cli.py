"""Helpers of the command-line tests: tiny ONNX models, and the CLIs run as a user runs them
(console scripts in a subprocess: a crash is an exit status, not a dead test worker)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np

BIN = pathlib.Path(sys.executable).parent


def conv_model(path: pathlib.Path, *, input_name: str = "x", seed: int = 0) -> pathlib.Path:
    """x [1,3,8,8] -> Conv 3x3 (8 channels, pad 1) -> Relu -> y [1,8,8,8]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(seed).standard_normal((8, 3, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", [input_name, "w"], ["c"], pads=[1, 1, 1, 1], name="conv0"),
            helper.make_node("Relu", ["c"], ["y"], name="relu0"),
        ],
        "g",
        [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])],
        [numpy_helper.from_array(w, "w")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def classifier_model(path: pathlib.Path, classes: int = 10) -> pathlib.Path:
    """x [N,3,4,4] -> 1x1 Conv (`classes` channels) -> GlobalAveragePool -> y [N,classes,1,1]
    (the squeezenet output layout); batch N is a named dynamic dim."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(1).standard_normal((classes, 3, 1, 1)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
            helper.make_node("GlobalAveragePool", ["c"], ["y"], name="pool"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", classes, 1, 1])],
        [numpy_helper.from_array(w, "w")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def classifier_reference(path: pathlib.Path, x: np.ndarray) -> np.ndarray:
    import onnx
    from onnx import numpy_helper

    w = numpy_helper.to_array(onnx.load(str(path)).graph.initializer[0])
    return np.einsum("nchw,kc->nk", x, w[:, :, 0, 0])[:, :, None, None] / (x.shape[2] * x.shape[3])


def run_cli(
    tool: str,
    *args: object,
    cwd: pathlib.Path | None = None,
    timeout: float = 300,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the console script `tool` (mlc, mlc-opt) of this environment."""
    return subprocess.run(
        [str(BIN / tool), *[str(a) for a in args]],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


def assert_clean_failure(proc: subprocess.CompletedProcess[str], code: int = 4) -> str:
    """The process failed with `code`: a message, no crash, no traceback, no internal error."""
    where = f"exit {proc.returncode}\nstdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}"
    assert proc.returncode == code, where
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, where
    return proc.stderr
