"""LSTM, GRU and RNN: per direction, one input-projection matmul, then a recurrence op.

X W^T for all time steps is one matrix product with the state-independent biases added
(`matmul` + `add`, one fused kernel); `graph.{lstm,gru,rnn}_recurrence` then runs the time loop
(H R^T per step) and packs Y, Y_h (and Y_c) into one result that slices take apart.

Versions: LSTM and RNN 7 / 14 (layout) / 22 (bfloat16), GRU 7 / 14 / 22. Version 1 (and GRU 3),
with `output_sequence`, is not implemented: onnxruntime starts at 7 too.
Activations: alpha and beta values are consumed, in order, by the activations that take them
(what onnxruntime does); the ones the ONNX spec leaves without an agreed default (Affine,
ThresholdedRelu, ScaledTanh) must be given. sequence_lens with a reverse direction reverses
each sequence within its length (a gather before and after the loop).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mlc.dialects.graph.rnn import ACTIVATIONS

from .registry import converter
from .rnn_operands import (
    as_value,
    cols,
    operand,
    panels,
    pick,
    reverse_index,
    reverse_sequences,
    rows,
    swap01,
    total,
    transposed,
    value_type,
    zeros,
)

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

    Operand = np.ndarray | ir.Value

# cell -> (graph op, gates, default activations of one direction)
_CELLS = {
    "RNN": ("rnn_recurrence", 1, ("Tanh",)),
    "GRU": ("gru_recurrence", 3, ("Sigmoid", "Tanh")),
    "LSTM": ("lstm_recurrence", 4, ("Sigmoid", "Tanh", "Tanh")),
}
_ALPHA_DEFAULT = {"LeakyRelu": 0.01, "HardSigmoid": 0.2, "Elu": 1.0}
_BETA_DEFAULT = {"HardSigmoid": 0.5}
_TAKES_ALPHA = ("Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu")
_TAKES_BETA = ("Affine", "ScaledTanh", "HardSigmoid")


def _activations(ctx: ImportContext, cell: str, directions: int) -> list[list[tuple]]:
    """Per direction, (name, alpha, beta) of each activation, defaults resolved."""
    per_dir = len(_CELLS[cell][2])
    given = ctx.attrs.strs("activations", None)
    names = list(given) if given is not None else list(_CELLS[cell][2]) * directions
    if len(names) != per_dir * directions:
        raise ctx.unsupported(
            f"activations {names} must name {per_dir} function(s) per direction "
            f"({directions} direction(s))"
        )
    alphas = list(ctx.attrs.floats("activation_alpha", None) or [])
    betas = list(ctx.attrs.floats("activation_beta", None) or [])
    resolved = []
    for name in names:
        if name not in ACTIVATIONS:  # spelled as ONNX does (onnxruntime rejects "relu" too)
            raise ctx.unsupported(f"activation '{name}' is not one of {', '.join(ACTIVATIONS)}")
        alpha = _param(ctx, name, "alpha", alphas, _TAKES_ALPHA, _ALPHA_DEFAULT)
        beta = _param(ctx, name, "beta", betas, _TAKES_BETA, _BETA_DEFAULT)
        resolved.append((name, alpha, beta))
    if alphas or betas:
        raise ctx.unsupported(
            f"activation_alpha/activation_beta have more values than the activations "
            f"{names} take ({len(alphas)} alpha and {len(betas)} beta left over)"
        )
    return [resolved[d * per_dir : (d + 1) * per_dir] for d in range(directions)]


def _param(
    ctx: ImportContext,
    name: str,
    what: str,
    values: list[float],
    takes: tuple[str, ...],
    defaults: dict[str, float],
) -> float:
    if name not in takes:
        return 0.0
    if values:
        return values.pop(0)
    if name not in defaults:
        raise ctx.unsupported(
            f"activation {name} needs an explicit activation_{what}: its default is not "
            "agreed (the ONNX spec says the ONNX op's, onnxruntime uses 0)"
        )
    return defaults[name]


def _sequence_lens(ctx: ImportContext, node: onnx.NodeProto, steps: int) -> Operand | None:
    """sequence_lens, or None when absent or every sequence is full length (no masking)."""
    lens = operand(ctx, node, 4)
    if isinstance(lens, np.ndarray):
        if lens.dtype.kind not in "iu" or lens.ndim != 1:
            raise ctx.unsupported(f"sequence_lens must be a 1-D integer tensor, got {lens.dtype}")
        if np.any(lens < 1) or np.any(lens > steps):
            raise ctx.unsupported(
                f"sequence_lens {lens.tolist()} must lie in [1, {steps}] (the sequence length)"
            )
        if np.all(lens == steps):
            return None
    return lens


def _recurrent(ctx: ImportContext, node: onnx.NodeProto, cell: str) -> list[ir.Value | None]:
    op_name, gates, _ = _CELLS[cell]
    x, xt = ctx.operand(node, 0), ctx.type(node, 0)
    assert x is not None
    if xt.dtype not in ("f32", "f64"):
        raise ctx.unsupported(f"element type {xt.dtype} is not supported (float or double are)")
    layout = ctx.attrs.int("layout", 0)
    if layout not in (0, 1) or xt.rank != 3:
        raise ctx.unsupported(f"needs a 3-D input X and layout 0 or 1 (got {xt}, layout {layout})")
    if layout:
        x = ctx.emit("transpose", x, perm=[1, 0, 2])
    steps, batch, _ = value_type(x).shape
    direction = ctx.attrs.str("direction", "forward")
    if direction not in ("forward", "reverse", "bidirectional"):
        raise ctx.unsupported(f"direction '{direction}' is not forward, reverse or bidirectional")
    dirs = 2 if direction == "bidirectional" else 1
    r_shape = ctx.type(node, 2).shape
    hidden = r_shape[2]
    if r_shape[:2] != (dirs, gates * hidden) or ctx.attrs.int("hidden_size", hidden) != hidden:
        raise ctx.unsupported(
            f"R {list(r_shape)} must be [{dirs}, {gates} x hidden_size, hidden_size] "
            f"(hidden_size {ctx.attrs.int('hidden_size', hidden)})"
        )
    clip = ctx.attrs.float("clip", 0.0)
    if ctx.attrs.has("clip") and not clip > 0:
        raise ctx.unsupported(f"clip {clip} must be positive")
    acts = _activations(ctx, cell, dirs)
    lens = _sequence_lens(ctx, node, steps)
    extra: dict[str, int] = {}
    if cell == "GRU":
        extra["linear_before_reset"] = ctx.attrs.int("linear_before_reset", 0)
    if cell == "LSTM":
        extra["input_forget"] = ctx.attrs.int("input_forget", 0)
    states = [operand(ctx, node, i) for i in ((5, 6) if cell == "LSTM" else (5,))]
    if layout:  # [B, D, H] -> [D, B, H]
        states = [s if s is None else swap01(ctx, s) for s in states]
    w, r, b = (operand(ctx, node, i) for i in (1, 2, 3))
    assert w is not None and r is not None
    index = None
    if lens is not None and direction != "forward":
        index = reverse_index(ctx, lens, steps, batch)
    outs: list[list[ir.Value]] = [[], [], []]
    for d in range(dirs):
        reverse = direction == "reverse" or d == 1
        xw = ctx.emit("matmul", x, as_value(ctx, transposed(ctx, pick(ctx, w, d)), f"W{d}T"))
        bias, rbh = _biases(ctx, b, d, cell, hidden, xt.dtype)
        if bias is not None:
            xw = ctx.emit("add", xw, as_value(ctx, bias, f"bias{d}"))
        by_length = reverse and index is not None
        if by_length:
            xw = reverse_sequences(ctx, xw, index)
        operands = [xw, as_value(ctx, panels(ctx, pick(ctx, r, d), xt.dtype), f"R{d}T")]
        for k, s in enumerate(states):
            init = zeros((batch, hidden), xt.dtype) if s is None else pick(ctx, s, d)
            operands.append(as_value(ctx, init, f"initial{k}_{d}"))
        if cell == "LSTM":
            p = operand(ctx, node, 7)
            peep = zeros((3 * hidden,), xt.dtype) if p is None else pick(ctx, p, d)
            operands.append(as_value(ctx, peep, f"P{d}"))
        if cell == "GRU":
            operands.append(as_value(ctx, rbh, f"Rbh{d}"))
        if lens is not None:
            operands.append(as_value(ctx, lens, "sequence_lens"))
        names, alphas, betas = zip(*acts[d])
        result = ctx.emit(
            op_name,
            *operands,
            activations=list(names),
            activation_alpha=list(alphas),
            activation_beta=list(betas),
            clip=clip,
            reverse=int(reverse and not by_length),
            **extra,
        )
        y = rows(ctx, result, 0, steps)
        if by_length:
            y = reverse_sequences(ctx, y, index)
        outs[0].append(ctx.emit("unsqueeze", y, axes=[1]))
        for k in range(len(states)):
            outs[1 + k].append(rows(ctx, result, steps + k, steps + k + 1))
    y_all = outs[0][0] if dirs == 1 else ctx.concat(outs[0], 1)
    finals = [o[0] if dirs == 1 else ctx.concat(o, 0) for o in outs[1 : 1 + len(states)]]
    if layout:  # Y [T, D, B, H] -> [B, T, D, H]; Y_h, Y_c [D, B, H] -> [B, D, H]
        y_all = ctx.emit("transpose", y_all, perm=[2, 0, 1, 3])
        finals = [swap01(ctx, f) for f in finals]
    return [y_all, *finals][: len(node.output)]


def _biases(
    ctx: ImportContext, b: Operand | None, d: int, cell: str, hidden: int, dtype: str
) -> tuple[Operand | None, Operand]:
    """The bias added to X W^T, and (GRU) the recurrence bias of the h gate, Rbh.

    RNN and LSTM add Wb + Rb before the loop; GRU adds Wb + [Rbz, Rbr, 0]: Rbh sits inside
    r * (H Rh^T + Rbh) when linear_before_reset is set, so the loop adds it itself.
    """
    gh = _CELLS[cell][1] * hidden
    if b is None:
        return None, zeros((hidden,), dtype)
    bd = pick(ctx, b, d)
    wb, rb = cols(ctx, bd, 0, gh), cols(ctx, bd, gh, 2 * gh)
    if cell != "GRU":
        return total(ctx, wb, rb), zeros((hidden,), dtype)
    rbh = cols(ctx, rb, 2 * hidden, 3 * hidden)
    if isinstance(rb, np.ndarray):
        rb_zr = np.concatenate([rb[: 2 * hidden], np.zeros(hidden, rb.dtype)])
    else:
        rb_zr = ctx.emit("pad", cols(ctx, rb, 0, 2 * hidden), pads=[0, hidden], mode="constant")
    return total(ctx, wb, rb_zr), rbh


@converter("RNN", since=7)
@converter("RNN", since=14)
@converter("RNN", since=22)
def rnn(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    return _recurrent(ctx, node, "RNN")


@converter("GRU", since=7)
@converter("GRU", since=14)
@converter("GRU", since=22)
def gru(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    return _recurrent(ctx, node, "GRU")


@converter("LSTM", since=7)
@converter("LSTM", since=14)
@converter("LSTM", since=22)
def lstm(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    return _recurrent(ctx, node, "LSTM")
