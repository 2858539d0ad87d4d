"""Activations that read their input several times (SiLU, GELU in erf and tanh forms, HardSwish,
Mish written out in ops) fused into the conv/matmul before them: one kernel, applied to the
register tile before the single store (the loop IR shows it), values as numpy's."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np
import pytest
from mlir import ir

import mlc
from helpers.graph_exec import SCHEDULED, build_main, check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g
from mlc.dialects.walk import top_level_funcs, walk

BLOCKED = "builtin.module(graph-alter-layout{block=8},"
# graph-simplify first: it turns x ** 3 into multiplications (GPT-2's tanh-GELU).
SIMPLIFIED = SCHEDULED.replace("builtin.module(", "builtin.module(graph-simplify,", 1)
BLOCKED_SCHEDULED = SIMPLIFIED.replace("builtin.module(", BLOCKED, 1)
TO_LOOPS = (
    "builtin.module(graph-simplify,{}graph-fuse,graph-to-tp,tp-default-schedule{{threads=1 "
    "vector-bits=256}},tp-to-loops{{threads=1}})"
)

Act = Callable[[ir.Value], ir.Value]
NpAct = Callable[[np.ndarray], np.ndarray]


def _scalar(value: float) -> ir.Value:
    attr = ir.DenseElementsAttr.get(np.array(value, np.float32))
    return g.constant(attr, ir.RankedTensorType.get([], ir.F32Type.get()))


def _silu(x: ir.Value) -> ir.Value:
    return g.mul(x, g.sigmoid(x))


def _gelu_erf(x: ir.Value) -> ir.Value:
    e = g.erf(g.div(x, _scalar(math.sqrt(2.0))))
    return g.mul(g.mul(x, g.add(e, _scalar(1.0))), _scalar(0.5))


def _gelu_tanh(x: ir.Value) -> ir.Value:
    cube = g.pow(x, _scalar(3.0))
    inner = g.mul(g.add(x, g.mul(cube, _scalar(0.044715))), _scalar(math.sqrt(2 / math.pi)))
    return g.mul(g.mul(x, _scalar(0.5)), g.add(g.tanh(inner), _scalar(1.0)))


def _hard_swish(x: ir.Value) -> ir.Value:
    relu6 = g.min(g.relu(g.add(x, _scalar(3.0))), _scalar(6.0))
    return g.div(g.mul(x, relu6), _scalar(6.0))


def _mish(x: ir.Value) -> ir.Value:
    softplus = g.log(g.add(g.exp(x), _scalar(1.0)))
    return g.mul(x, g.tanh(softplus))


def _np_erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


ACTIVATIONS: dict[str, tuple[Act, NpAct]] = {
    "silu": (_silu, lambda x: x / (1 + np.exp(-x))),
    "gelu_erf": (_gelu_erf, lambda x: 0.5 * x * (1 + _np_erf(x / math.sqrt(2)))),
    "gelu_tanh": (
        _gelu_tanh,
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    "hard_swish": (_hard_swish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "mish": (_mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
}


def _conv_np(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    xp = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3))
    return np.einsum("nchwij,ocij->nohw", xp.astype(np.float64), w) + b[None, :, None, None]


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_after_matmul(name: str) -> None:
    """A dense layer with a bias, rows that no register tile divides (197), the activation."""
    act, ref = ACTIVATIONS[name]
    x, w, b = rand((197, 64), seed=1), rand((64, 96), seed=2, scale=0.2), rand((96,), seed=3)
    got, interp = run_graph(
        lambda v, w_, b_: act(g.add(g.matmul(v, w_), b_)), [x, w, b], pipeline=SIMPLIFIED
    )
    want = ref(x.astype(np.float64) @ w + b).astype(np.float32)
    check(got[0], interp[0], want, rtol=1e-4, atol=1e-5, what=name)


@pytest.mark.parametrize("name", ["silu", "hard_swish", "mish"])
def test_after_blocked_conv(name: str) -> None:
    """A 3x3 conv in NCHW8c (as mlc-default runs it) with a row width of 19: partial tiles."""
    act, ref = ACTIVATIONS[name]
    x, w, b = rand((1, 16, 21, 21), seed=4), rand((16, 16, 3, 3), seed=5, scale=0.2), rand((16,))
    got, interp = run_graph(
        lambda v, w_, b_: act(g.conv2d(v, w_, b_)), [x, w, b], pipeline=BLOCKED_SCHEDULED
    )
    want = ref(_conv_np(x, w, b)).astype(np.float32)
    check(got[0], interp[0], want, rtol=1e-4, atol=1e-5, what=name)


def _kernel_loops(body: Callable[..., ir.Value], inputs: list[np.ndarray], blocked: bool) -> str:
    """The loop IR of the one kernel `body` becomes; checks that it is one loop nest that
    never reads its output buffer (the epilogue runs on the accumulators)."""
    with mlc.Context(), ir.Location.unknown():
        module = build_main(body, inputs)
        pipeline = TO_LOOPS.format("graph-alter-layout{block=8}," if blocked else "")
        mlc.PassManager.parse(pipeline).run(module)
        funcs = top_level_funcs(module.operation)
        names = [ir.StringAttr(f.attributes["sym_name"]).value for f in funcs]
        anchors = [f for f, n in zip(funcs, names) if n.startswith(("fused_matmul", "fused_conv"))]
        assert len(anchors) == 1, names  # the anchor and its whole activation
        fn = anchors[0]
        out = fn.regions[0].blocks[0].arguments[-1]
        top = [op.operation.name for op in fn.regions[0].blocks[0].operations]
        assert top.count("scf.for") + top.count("scf.parallel") == 1, top
        for op in walk(fn):
            if op.name in ("memref.load", "vector.load"):
                assert op.operands[0] != out, f"{op.name} reads the kernel's output"
        stores = [op for op in walk(fn) if op.name in ("memref.store", "vector.store")]
        assert stores and all(op.operands[1] == out for op in stores)
        return str(fn)


@pytest.mark.parametrize("name", ["gelu_erf", "gelu_tanh"])
def test_gelu_on_matmul_accumulators(name: str) -> None:
    act = ACTIVATIONS[name][0]
    text = _kernel_loops(
        lambda v, w_: act(g.matmul(v, w_)), [rand((197, 64)), rand((64, 96), seed=2)], False
    )
    assert ("math.erf" if name == "gelu_erf" else "math.tanh") in text
    assert "math.powf" not in text  # x ** 3 is two multiplications


def test_silu_on_conv_accumulators() -> None:
    text = _kernel_loops(
        lambda v, w_: _silu(g.conv2d(v, w_)),
        [rand((1, 16, 21, 21)), rand((16, 16, 3, 3), seed=5)],
        True,
    )
    assert "math.exp" in text or "arith.divf" in text


def test_epilogue_operand_computed_before_the_conv() -> None:
    """relu(y) comes before the conv in the graph; the conv's kernel computes it in its
    epilogue, next to SiLU."""
    x, y = rand((1, 16, 21, 21), seed=7), rand((1, 16, 19, 19), seed=8)
    w, b = rand((16, 16, 3, 3), seed=9, scale=0.2), rand((16,), seed=10)

    def body(v: ir.Value, u: ir.Value, w_: ir.Value, b_: ir.Value) -> ir.Value:
        r = g.relu(u)
        return g.mul(r, _silu(g.conv2d(v, w_, b_)))

    names = re.findall(r"func.func private @(\w+)", lower_to_tp(body, [x, y, w, b]))
    assert names == ["fused_relu_conv2d_sigmoid_etc_0"], names  # one kernel
    got, interp = run_graph(body, [x, y, w, b], pipeline=SIMPLIFIED)
    want = (np.maximum(y, 0) * ACTIVATIONS["silu"][1](_conv_np(x, w, b))).astype(np.float32)
    check(got[0], interp[0], want, rtol=1e-4, atol=1e-5, what="relu(y) * silu(conv)")
