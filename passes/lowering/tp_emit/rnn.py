"""Anchors of the recurrent ops: one `scf.for` over the time steps around a few tp blocks.

Per step: a reduction block for H_{t-1} R^T (the loop's only matrix product: the input
projection for all steps was one matmul before the op), then elementwise blocks over [B, H]
that apply the gates. The state lives in the result's last rows (Y_h, and Y_c for LSTM) and is
updated in place; step s reads `xw` and writes Y through rank-reduced subviews at its time row.
tp-to-loops lowers each block where it stands, so the IR and the compile time do not grow with
the sequence length, and every block gets its own (vectorized) default schedule.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, scf

from mlc.dialects.graph import TensorT

from ..emit_util import index_const
from .expr import read
from .kernel import KernelBuilder, anchor
from .rnn_step import AXES, Step, add, mul, one_minus, row


@anchor("rnn_recurrence", "gru_recurrence", "lstm_recurrence")
def recurrence(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> None:
    cell = op.name.removeprefix("graph.").removesuffix("_recurrence")
    steps, batch, width = kb.type_of(op.operands[0]).shape
    hidden = kb.type_of(op.operands[1]).shape[1]
    dtype = kb.type_of(op.results[0]).dtype
    bufs = [kb.buffer(v) for v in op.operands]
    n_state = 2 if cell == "lstm" else 1
    n_fixed = {"rnn": 3, "gru": 4, "lstm": 5}[cell]
    lens = bufs[n_fixed] if len(bufs) > n_fixed else None
    states = [row(out, steps + k) for k in range(n_state)]
    step = Step(kb, op, hidden)
    for init, state in zip([bufs[2]] + ([bufs[3]] if cell == "lstm" else []), states):
        step.block(state, "initial_state", lambda init=init: step.at(init))
    temps = _temps(kb, cell, op, batch, hidden, width, dtype)
    reverse = bool(kb.attrs(op)["reverse"])
    loop = scf.ForOp(index_const(0), index_const(steps), index_const(1))
    with ir.InsertionPoint(loop.body):
        s = loop.induction_variable
        t = arith.SubIOp(index_const(steps - 1), s).result if reverse else s
        if lens is not None:
            elem = ir.MemRefType(lens.type).element_type
            s_int = arith.IndexCastOp(elem, s).result

            def valid() -> ir.Value:
                length = read(lens, AXES, [ir.AffineDimExpr.get(0)])
                return arith.CmpIOp(arith.CmpIPredicate.slt, s_int, length).result

            step.valid = valid
        xw, y = row(bufs[0], t), row(out, t)
        CELLS[cell](step, xw, y, states, bufs, temps, kb.attrs(op))
        h = states[0]
        step.block(h, "state", lambda: step.masked(step.at(y), lambda: step.at(h)))
        scf.YieldOp([])


def _temps(
    kb: KernelBuilder, cell: str, op: ir.Operation, batch: int, hidden: int, width: int, dtype: str
) -> list[ir.Value]:
    """Scratch buffers of the loop: the recurrent products (GRU without linear_before_reset:
    those of z and r, r * H, and the h gate's)."""
    if cell == "gru" and not kb.attrs(op)["linear_before_reset"]:
        shapes = [(batch, 2 * hidden), (batch, hidden), (batch, hidden)]
    else:
        shapes = [(batch, width)]
    return [kb.temp(TensorT(s, dtype)) for s in shapes]


Cell = Callable[
    [Step, ir.Value, ir.Value, list[ir.Value], list[ir.Value], list[ir.Value], dict[str, object]],
    None,
]


def _rnn(
    st: Step,
    xw: ir.Value,
    y: ir.Value,
    states: list[ir.Value],
    bufs: list[ir.Value],
    temps: list[ir.Value],
    attrs: dict[str, object],
) -> None:
    (h,), (g,) = states, temps
    st.gemm(g, h, bufs[1], 0, st.hidden)
    st.block(y, "rnn_cell", lambda: st.masked(st.act(0, add(st.at(xw), st.at(g))), 0.0))


def _gru(
    st: Step,
    xw: ir.Value,
    y: ir.Value,
    states: list[ir.Value],
    bufs: list[ir.Value],
    temps: list[ir.Value],
    attrs: dict[str, object],
) -> None:
    (h,), rt, rbh, n = states, bufs[1], bufs[3], st.hidden
    g = temps[0]

    def z() -> ir.Value:
        return st.act(0, add(st.at(xw), st.at(g)))

    def r() -> ir.Value:
        return st.act(0, add(st.at(xw, n), st.at(g, n)))

    if attrs["linear_before_reset"]:
        st.gemm(g, h, rt, 0, 3 * n)

        def candidate() -> ir.Value:
            return add(st.at(xw, 2 * n), mul(r(), add(st.at(g, 2 * n), st.vec(rbh, 0))))

    else:
        reset_h, hh = temps[1], temps[2]
        st.gemm(g, h, rt, 0, 2 * n)
        st.block(reset_h, "gru_reset", lambda: mul(r(), st.at(h)))
        st.gemm(hh, reset_h, rt, 2 * n, n)

        def candidate() -> ir.Value:
            return add(st.at(xw, 2 * n), st.at(hh), st.vec(rbh, 0))

    def cell() -> ir.Value:
        zv, hv = z(), st.at(h)
        new = add(mul(one_minus(zv), st.act(1, candidate())), mul(zv, hv))
        return st.masked(new, 0.0)

    st.block(y, "gru_cell", cell)


def _lstm(
    st: Step,
    xw: ir.Value,
    y: ir.Value,
    states: list[ir.Value],
    bufs: list[ir.Value],
    temps: list[ir.Value],
    attrs: dict[str, object],
) -> None:
    (h, c), rt, p, n = states, bufs[1], bufs[4], st.hidden
    (g,) = temps
    st.gemm(g, h, rt, 0, 4 * n)

    def gate(k: int, peephole: int | None, cell: ir.Value | None = None) -> ir.Value:
        pre = add(st.at(xw, k * n), st.at(g, k * n))
        if peephole is not None and cell is not None:
            pre = add(pre, mul(st.vec(p, peephole * n), cell))
        return pre

    def cell_state() -> ir.Value:
        old = st.at(c)
        i = st.act(0, gate(0, 0, old))
        f = one_minus(i) if attrs["input_forget"] else st.act(0, gate(2, 2, old))
        new = add(mul(f, old), mul(i, st.act(1, gate(3, None))))
        return st.masked(new, lambda: old)

    def hidden_state() -> ir.Value:
        new_c = st.at(c)
        o = st.act(0, gate(1, 1, new_c))
        return st.masked(mul(o, st.act(2, new_c, clipped=False)), 0.0)

    st.block(c, "lstm_cell", cell_state)
    st.block(y, "lstm_hidden", hidden_state)


CELLS: dict[str, Cell] = {"rnn": _rnn, "gru": _gru, "lstm": _lstm}
