"""Convs padded to a full channel block stay padded from conv to conv (graph-alter-layout's
`pad-blocks` and padded_channels): the numbers match the reference, the padded channels never
reach an output, and a division between two padded convs keeps its crop (0 / 0 there)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import func

import mlc
from mlc.dialects.attrs import param_attr
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.reference import run_module
from mlc.dialects.walk import walk
from mlc.testing import run_compiled

Body = Callable[[ir.Value, Callable[[str], ir.Value]], ir.Value]


def _t(*shape: int) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), ir.F32Type.get())


def _module(
    params: dict[str, np.ndarray], x_shape: tuple[int, ...], out_shape: tuple[int, ...], body: Body
) -> ir.Module:
    with mlc.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("main", ([_t(*x_shape)], [_t(*out_shape)]))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):

                def c(name: str) -> ir.Value:
                    return gb.constant(param_attr(name), _t(*params[name].shape))

                func.ReturnOp([body(entry.arguments[0], c)])
    return module


def _check(module: ir.Module, params: dict[str, np.ndarray], x: np.ndarray) -> None:
    (want,) = run_module(module, params, [x])
    table = dict(params)
    pipeline = "builtin.module(mlc-default{layout-block=16 vector-bits=512 pad-blocks=true})"
    mlc.PassManager.parse(pipeline).run(module, params=table)
    (got,) = run_compiled(module, table, [x])
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _transforms(module: ir.Module, pipeline: str) -> int:
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse(f"builtin.module({pipeline})").run(staged)
    return sum(op.name == "graph.layout_transform" for op in walk(staged.operation))


@pytest.mark.parametrize("batch", [1, 2])
def test_an_inverted_residual_chain_stays_padded(batch: int) -> None:
    """16 -> 24 -> 72 -> depthwise 72 -> 24 (+ residual) -> 16 channels, as in MnasNet: on
    16-channel blocks every conv between the first and the last runs padded (24 -> 32,
    72 -> 80), with no layout transform between them, and computes the reference's numbers."""
    rng = np.random.default_rng(3)
    shapes = {
        "a": (24, 16, 1, 1),
        "b": (72, 24, 1, 1),
        "d": (72, 1, 3, 3),
        "e": (24, 72, 1, 1),
        "f": (16, 24, 1, 1),
    }
    params = {k: (rng.standard_normal(s) * 0.3).astype(np.float32) for k, s in shapes.items()}
    for k, n in (("ab", 24), ("bb", 72), ("db", 72), ("eb", 24)):
        params[k] = rng.standard_normal(n).astype(np.float32)

    def body(x: ir.Value, c: Callable[[str], ir.Value]) -> ir.Value:
        r = gb.relu(gb.conv2d(x, c("a"), c("ab")))
        y = gb.relu(gb.conv2d(r, c("b"), c("bb")))
        y = gb.relu(gb.conv2d(y, c("d"), c("db"), pads=(1, 1, 1, 1), group=72))
        y = gb.add(gb.conv2d(y, c("e"), c("eb")), r)
        return gb.conv2d(y, c("f"))

    module = _module(params, (batch, 16, 10, 10), (batch, 16, 10, 10), body)
    assert _transforms(module, "graph-alter-layout{block=16 pad-blocks=true}") == 2
    assert _transforms(module, "graph-alter-layout{block=16}") > 2
    _check(module, params, rng.standard_normal((batch, 16, 10, 10)).astype(np.float32))


def test_a_division_between_padded_convs_keeps_its_crop() -> None:
    """3x3 convs on 58 channels run padded to 64; a division by a per-channel constant between
    two of them would make the padded channels 0 / 0 = NaN, which zero weights multiply into
    every output channel of the next conv: the crop stays there, and the output is finite and
    matches the reference."""
    rng = np.random.default_rng(4)
    params = {k: (rng.standard_normal((58, 58, 3, 3)) * 0.1).astype(np.float32) for k in "uvw"}
    params["s"] = (rng.uniform(1, 2, (1, 58, 1, 1))).astype(np.float32)

    def body(x: ir.Value, c: Callable[[str], ir.Value]) -> ir.Value:
        y = gb.div(gb.conv2d(x, c("u"), pads=(1, 1, 1, 1)), c("s"))
        y = gb.relu(gb.conv2d(y, c("v"), pads=(1, 1, 1, 1)))
        return gb.conv2d(y, c("w"), pads=(1, 1, 1, 1))

    module = _module(params, (1, 58, 8, 8), (1, 58, 8, 8), body)
    _check(module, params, rng.standard_normal((1, 58, 8, 8)).astype(np.float32))
