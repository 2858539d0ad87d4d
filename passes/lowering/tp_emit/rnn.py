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
from mlir.dialects import arith, memref, scf

from mlc.dialects import tp
from mlc.dialects.graph import TensorT
from mlc.dialects.tp.schedule import Schedule

from ..emit_util import index_const
from .expr import read
from .kernel import KernelBuilder, anchor, elem_bytes
from .scalar import SCALAR, const

AXES = ["b", "j"]
PARALLEL_STEP_WORK = 1 << 20
"""Multiply-adds per step from which a step's H R^T is split over threads (a fork and join
per step costs a few microseconds; hidden 256, batch 1 has 2^18)."""


def row(buf: ir.Value, index: ir.Value | int) -> ir.Value:
    """buf[index] of a [N, B, X] buffer as a [B, X] memref view."""
    mtype = ir.MemRefType(buf.type)
    _, b, x = mtype.shape
    dynamic = not isinstance(index, int)
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    layout = ir.StridedLayoutAttr.get(dyn if dynamic else index * b * x, [x, 1])
    result = ir.MemRefType.get([b, x], mtype.element_type, layout)
    return memref.SubViewOp(
        result,
        buf,
        [index] if dynamic else [],
        [],
        [],
        [dyn if dynamic else index, 0, 0],
        [1, b, x],
        [1, 1, 1],
    ).result


class Step:
    """Builds the blocks of one time step over [B, H] (axes b, j)."""

    def __init__(self, kb: KernelBuilder, op: ir.Operation, hidden: int) -> None:
        self.kb = kb
        self.hidden = hidden
        a = kb.attrs(op)
        self.clip = float(a["clip"])  # type: ignore[arg-type]
        self.acts = list(zip(a["activations"], a["activation_alpha"], a["activation_beta"]))  # type: ignore[call-overload]
        self.valid: Callable[[], ir.Value] | None = None  # i1 "step < length" in a block body

    def at(self, buf: ir.Value, col: int = 0) -> ir.Value:
        """buf[b, j + col] in the current block."""
        b, j = ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)
        return read(buf, AXES, [b, j + col] if col else [b, j])

    def vec(self, buf: ir.Value, col: int) -> ir.Value:
        """buf[j + col] of a vector operand (peepholes, biases)."""
        return read(buf, AXES, [ir.AffineDimExpr.get(1) + col])

    def act(self, k: int, x: ir.Value, clipped: bool = True) -> ir.Value:
        """Activation k of the op, on the clipped pre-activation x (unless not `clipped`)."""
        if self.clip > 0 and clipped:
            x = SCALAR["clip"]([x], {"min": -self.clip, "max": self.clip})
        return activation(str(self.acts[k][0]), float(self.acts[k][1]), float(self.acts[k][2]), x)

    def gemm(self, out: ir.Value, lhs: ir.Value, rt: ir.Value, col: int, width: int) -> None:
        """out[b, n] = sum_k lhs[b, k] * R^T[k, col + n] for n < width (rt: [P, H, w] panels)."""
        _, hidden, w = ir.MemRefType(rt.type).shape
        batch = ir.MemRefType(out.type).shape[0]
        lanes = 32 // elem_bytes(ir.MemRefType(out.type).element_type)
        blk = tp.block(
            out,
            name=self.kb.name("recurrence"),
            axes=["b", "p", "n", "k"],
            kinds="SSSR",
            extents=[batch, width // w, w, hidden],
            out_map=f"(b, p * {w} + n)",
            combiner="add",
            init=0.0,
            schedule=gemm_schedule(batch, width // w, w, hidden, lanes),
        )
        b, p, n, k = (ir.AffineDimExpr.get(i) for i in range(4))
        with ir.InsertionPoint(blk.body):
            lv = read(lhs, blk.axes, [b, k])
            rv = read(rt, blk.axes, [p + col // w, k, n])
            tp.yield_(arith.MulFOp(lv, rv).result)

    def block(self, out: ir.Value, name: str, body: Callable[[], ir.Value]) -> None:
        """An elementwise block over [B, H] writing body() into out[b, j]."""
        batch, hidden = ir.MemRefType(out.type).shape
        blk = tp.block(
            out,
            name=self.kb.name(name),
            axes=AXES,
            kinds="SS",
            extents=[batch, hidden],
            out_map="(b, j)",
        )
        with ir.InsertionPoint(blk.body):
            tp.yield_(body())

    def masked(self, value: ir.Value, otherwise: Callable[[], ir.Value] | float) -> ir.Value:
        """`value` for a running sequence, `otherwise` (built only when needed) after its end."""
        if self.valid is None:
            return value
        other = const(value, otherwise) if isinstance(otherwise, float) else otherwise()
        return arith.SelectOp(self.valid(), value, other).result


def gemm_schedule(batch: int, panels: int, w: int, hidden: int, lanes: int) -> Schedule | None:
    """The register tile of a step's H R^T: panel by panel (each a contiguous block of R), all
    w columns of a panel as accumulators at batch 1; at larger batches a few rows times two
    vectors, the rows swept while that slice of the panel stays in L1. None (the default
    schedule) for panels narrower than a vector. The panels are split over threads when a
    step has enough work to pay for the fork and join at every step."""
    if w % lanes:
        return None
    vectors = w // lanes
    parallel = ("p",) if panels > 1 and batch * panels * w * hidden >= PARALLEL_STEP_WORK else ()
    if batch == 1:
        return Schedule(order=("p", "b", "k", "n"), vectorize="n", parallel=parallel)
    v = 2 if vectors % 2 == 0 else 1
    rows = max(d for d in range(1, 7) if batch % d == 0)
    tile: dict[str, tuple[int, ...]] = {}
    unroll: dict[str, int] = {}
    n_outer, n_inner = [], "n"
    if v < vectors:
        tile["n"] = (v * lanes,)
        n_outer, n_inner = ["n.0"], "n.1"
    if rows == batch:
        b_outer, b_inner = [], ["b"]
        unroll["b"] = rows
    elif rows == 1:
        b_outer, b_inner = ["b"], []
    else:
        tile["b"] = (rows,)
        b_outer, b_inner = ["b.0"], ["b.1"]
        unroll["b.1"] = rows
    order = ("p", *n_outer, *b_outer, "k", *b_inner, n_inner)
    return Schedule(tile=tile, order=order, unroll=unroll, vectorize=n_inner, parallel=parallel)


def activation(name: str, alpha: float, beta: float, x: ir.Value) -> ir.Value:
    """The ONNX recurrent-op activation `name` of a scalar (or vector) x."""
    simple = {"Relu": "relu", "Tanh": "tanh", "Sigmoid": "sigmoid", "Softsign": "softsign"}
    simple |= {"Softplus": "softplus"}
    if name in simple:
        return SCALAR[simple[name]]([x], {})
    if name in ("LeakyRelu", "Elu"):
        return SCALAR["leaky_relu" if name == "LeakyRelu" else "elu"]([x], {"alpha": alpha})
    if name == "HardSigmoid":
        return SCALAR["hard_sigmoid"]([x], {"alpha": alpha, "beta": beta})
    if name == "Affine":
        return arith.AddFOp(arith.MulFOp(x, const(x, alpha)).result, const(x, beta)).result
    if name == "ScaledTanh":
        inner = SCALAR["tanh"]([arith.MulFOp(x, const(x, beta)).result], {})
        return arith.MulFOp(inner, const(x, alpha)).result
    assert name == "ThresholdedRelu", name
    above = arith.CmpFOp(arith.CmpFPredicate.OGT, x, const(x, alpha)).result
    return arith.SelectOp(above, x, const(x, 0.0)).result


def _add(*xs: ir.Value) -> ir.Value:
    total = xs[0]
    for x in xs[1:]:
        total = arith.AddFOp(total, x).result
    return total


def _mul(a: ir.Value, b: ir.Value) -> ir.Value:
    return arith.MulFOp(a, b).result


def _one_minus(x: ir.Value) -> ir.Value:
    return arith.SubFOp(const(x, 1.0), x).result


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
    st.block(y, "rnn_cell", lambda: st.masked(st.act(0, _add(st.at(xw), st.at(g))), 0.0))


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
        return st.act(0, _add(st.at(xw), st.at(g)))

    def r() -> ir.Value:
        return st.act(0, _add(st.at(xw, n), st.at(g, n)))

    if attrs["linear_before_reset"]:
        st.gemm(g, h, rt, 0, 3 * n)

        def candidate() -> ir.Value:
            return _add(st.at(xw, 2 * n), _mul(r(), _add(st.at(g, 2 * n), st.vec(rbh, 0))))

    else:
        reset_h, hh = temps[1], temps[2]
        st.gemm(g, h, rt, 0, 2 * n)
        st.block(reset_h, "gru_reset", lambda: _mul(r(), st.at(h)))
        st.gemm(hh, reset_h, rt, 2 * n, n)

        def candidate() -> ir.Value:
            return _add(st.at(xw, 2 * n), st.at(hh), st.vec(rbh, 0))

    def cell() -> ir.Value:
        zv, hv = z(), st.at(h)
        new = _add(_mul(_one_minus(zv), st.act(1, candidate())), _mul(zv, hv))
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
        pre = _add(st.at(xw, k * n), st.at(g, k * n))
        if peephole is not None and cell is not None:
            pre = _add(pre, _mul(st.vec(p, peephole * n), cell))
        return pre

    def cell_state() -> ir.Value:
        old = st.at(c)
        i = st.act(0, gate(0, 0, old))
        f = _one_minus(i) if attrs["input_forget"] else st.act(0, gate(2, 2, old))
        new = _add(_mul(f, old), _mul(i, st.act(1, gate(3, None))))
        return st.masked(new, lambda: old)

    def hidden_state() -> ir.Value:
        new_c = st.at(c)
        o = st.act(0, gate(1, 1, new_c))
        return st.masked(_mul(o, st.act(2, new_c, clipped=False)), 0.0)

    st.block(c, "lstm_cell", cell_state)
    st.block(y, "lstm_hidden", hidden_state)


CELLS: dict[str, Cell] = {"rnn": _rnn, "gru": _gru, "lstm": _lstm}
