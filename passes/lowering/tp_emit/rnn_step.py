"""The time step of the recurrent ops' loops: blocks over [B, H] (axes b, j) and the step's
H R^T with its schedule (see `rnn.py`)."""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, memref

from mlc.dialects import tp
from mlc.dialects.tp.schedule import Schedule

from .expr import read
from .kernel import KernelBuilder, elem_bytes
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


def add(*xs: ir.Value) -> ir.Value:
    total = xs[0]
    for x in xs[1:]:
        total = arith.AddFOp(total, x).result
    return total


def mul(a: ir.Value, b: ir.Value) -> ir.Value:
    return arith.MulFOp(a, b).result


def one_minus(x: ir.Value) -> ir.Value:
    return arith.SubFOp(const(x, 1.0), x).result
