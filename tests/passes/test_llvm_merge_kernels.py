"""Kernels equal up to i64 constants are compiled once (llvm-merge-kernels): two 1x1 convs that
differ only in their input channels run one kernel, called with each one's channel count, and
still match onnxruntime, compiled whole or split over two code generation processes."""

from __future__ import annotations

import re

import numpy as np
import pytest

import mlc
from helpers.onnx_models import GraphBuilder
from helpers.onnx_testing import make_model, rand, run_ort
from mlc.frontend import from_onnx
from mlc.runtime import GraphModule

# 11 and 13 channel blocks of 16 (22 and 26 of 8) over 9 x 9 pixels: counts that equal no other
# constant of the kernel, which CSE would otherwise have merged in one kernel and not the other
CHANNELS = (176, 208)


def _two_convs() -> object:
    g = GraphBuilder(seed=3)
    inputs = {}
    for i, cin in enumerate(CHANNELS):
        inputs[f"x{i}"] = (np.float32, [1, cin, 9, 9])
        g.op("Relu", g.op("Conv", f"x{i}", g.weight(32, cin, 1, 1), g.const(np.full(32, 0.1))))
        g.nodes[-1].output[0] = f"y{i}"
    return make_model(g.nodes, inputs, ["y0", "y1"], g.consts)


def _conv_calls(text: str) -> list[str]:
    return re.findall(r"llvm\.call @(fused_conv2d\w*)\(", text)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_convs_apart_in_channels_share_a_kernel(threads, jobs, monkeypatch) -> None:
    monkeypatch.setenv("MLC_CODEGEN_JOBS", jobs)
    monkeypatch.setenv("MLC_CACHE_DIR", "off")
    model = _two_convs()
    lib = mlc.build(*from_onnx(model), threads=threads)
    text = str(lib.module)
    calls = _conv_calls(text)
    assert len(calls) == 2 and calls[0] == calls[1], calls
    defined = re.findall(r"llvm\.func internal @(fused_conv2d\w*)\(", text)
    assert defined == [calls[0]], defined
    gm = GraphModule(lib.jit())
    feeds = {f"x{i}": rand(1, c, 9, 9, seed=i) for i, c in enumerate(CHANNELS)}
    for name, x in feeds.items():
        gm.set_input(name, x)
    gm.run()
    for i, want in enumerate(run_ort(model, feeds)):
        np.testing.assert_allclose(gm.get_output(i), want, rtol=1e-4, atol=1e-4)


def test_off_keeps_one_kernel_per_conv() -> None:
    lib = mlc.build(
        *from_onnx(_two_convs()), pipeline="builtin.module(mlc-default{merge-kernels=false})"
    )
    calls = _conv_calls(str(lib.module))
    assert len(calls) == 2 and calls[0] != calls[1], calls
