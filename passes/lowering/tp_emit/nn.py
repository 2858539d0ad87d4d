"""Anchors for convolution and matrix products (NCHW and blocked NCHW<n>c layouts)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.graph import TensorT
from mlc.dialects.graph.spec import kernel_blocks, layout_block
from mlc.errors import DiagnosticError

from .expr import Elementwise, Expr, Index, Leaf, block_over, read
from .kernel import KernelBuilder, anchor
from .reduce import is_half, rounded, widen
from .scalar import const

IndexFn = Callable[[Index, ir.AffineExpr], Index]


def _dims(n: int) -> list[ir.AffineExpr]:
    return [ir.AffineDimExpr.get(i) for i in range(n)]


def _bias_epilogue(
    acc: Leaf, bias: ir.Value, dtype: str, channel: Callable[[Index], Index]
) -> Expr:
    """acc + bias[channel(idx)] as a pending expression (applied by the kernel's final block);
    an f32 accumulator of half values takes the bias in f32 and is rounded once, after it."""
    b = Leaf((0,), dtype, bias)

    def fn(xs: list[ir.Value]) -> ir.Value:
        if acc.dtype == dtype:
            return arith.AddFOp(xs[0], xs[1]).result
        return arith.TruncFOp(ir.Type.parse(dtype), arith.AddFOp(xs[0], widen(xs[1])).result).result

    return Elementwise(acc.shape, dtype, [acc, b], fn, [lambda idx: idx, channel])


@dataclass
class ConvLoops:
    """The iteration space of a conv2d-like block and where it reads its two operands."""

    axes: list[str]
    kinds: str
    extents: list[int]
    x: ir.Value
    x_idx: Index
    w: ir.Value
    w_idx: Index
    out_map: str


def conv_loops(
    kb: KernelBuilder, op: ir.Operation, pad_value: float | int = 0, kernel_layout: str = ""
) -> ConvLoops:
    """Axes, extents and operand indices of `op` (conv2d or conv2d_integer, NCHW, blocked or
    depthwise); a padded input is first copied with a border of `pad_value` into scratch.
    `kernel_layout` replaces the op's for the geometry (weights packed further by the caller)."""
    a = kb.attrs(op)
    x_t, w_t, y_t = (
        kb.type_of(op.operands[0]),
        kb.type_of(op.operands[1]),
        kb.type_of(op.results[0]),
    )
    xb = layout_block(str(a["data_layout"]), "NCHW")
    ib, ob = kernel_blocks(kernel_layout or str(a["kernel_layout"]))
    yb = layout_block(str(a["out_layout"]), "NCHW")
    group = int(a["group"])  # type: ignore[arg-type]
    depthwise = bool(yb) and ib == 1 and group == x_t.shape[1] * xb == y_t.shape[1] * yb
    if (xb or ib or ob or yb) and not (
        xb
        and yb
        and ob == yb
        and (xb == ib or (depthwise and xb == yb))
        and y_t.shape[1] % group == 0
        or depthwise
    ):
        raise DiagnosticError(
            f"graph-to-tp: blocked {op.name.removeprefix('graph.')} needs data block == kernel "
            "input block and kernel output block == output block (or a depthwise conv with "
            "OIHW1i<b>o weights)",
            op.location,
        )
    (sh, sw), (pt, pl, pb, pr), (dh, dw) = a["strides"], a["pads"], a["dilations"]  # type: ignore[misc]
    n, oh_n, ow_n = y_t.shape[0], y_t.shape[2], y_t.shape[3]
    kh_n, kw_n = w_t.shape[2], w_t.shape[3]
    x = kb.buffer(op.operands[0])
    w = kb.buffer(op.operands[1])
    if pt or pl or pb or pr:
        # Materialize the halo once, so the reduction reads without bounds checks.
        rows = max(x_t.shape[2] + pt + pb, (oh_n - 1) * sh + (w_t.shape[2] - 1) * dh + 1)
        cols = max(x_t.shape[3] + pl + pr, (ow_n - 1) * sw + (w_t.shape[3] - 1) * dw + 1)
        x = padded_copy(kb, x, x_t, pt, pl, rows, cols, pad_value)
        pt = pl = 0
    if depthwise:  # each output channel reads its own input channel: both operands are vectors
        axes = ["n", "ocb", "oh", "ow", "oc", "kh", "kw"]
        extents = [n, y_t.shape[1], oh_n, ow_n, yb, kh_n, kw_n]
        kinds = "SSSSSRR"
        d = dict(zip(axes, _dims(len(axes))))
        ih, iw = d["oh"] * sh + d["kh"] * dh - pt, d["ow"] * sw + d["kw"] * dw - pl
        zero = ir.AffineConstantExpr.get(0)
        x_idx: Index = [d["n"], d["ocb"], ih, iw, d["oc"]]
        w_idx: Index = [d["ocb"], zero, d["kh"], d["kw"], zero, d["oc"]]
        out_map = "(n, ocb, oh, ow, oc)"
    elif yb:  # blocked: channel axes split into block index and lane
        axes = ["n", "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"]
        extents = [n, y_t.shape[1], oh_n, ow_n, yb, w_t.shape[1], kh_n, kw_n, xb]
        kinds = "SSSSSRRRR"
        d = dict(zip(axes, _dims(len(axes))))
        ih, iw = d["oh"] * sh + d["kh"] * dh - pt, d["ow"] * sw + d["kw"] * dw - pl
        # A group's input blocks follow its output blocks: block (ocb // blocks per group).
        icb = (
            d["icb"]
            if group == 1
            else ir.AffineExpr.get_floor_div(d["ocb"], y_t.shape[1] // group) * w_t.shape[1]
            + d["icb"]
        )
        x_idx = [d["n"], icb, ih, iw, d["ic"]]
        w_idx = [d["ocb"], d["icb"], d["kh"], d["kw"], d["ic"], d["oc"]]
        out_map = "(n, ocb, oh, ow, oc)"
    else:
        ocg, icg = y_t.shape[1] // group, w_t.shape[1]
        axes = ["n", "oc", "oh", "ow", "ic", "kh", "kw"]
        extents = [n, y_t.shape[1], oh_n, ow_n, icg, kh_n, kw_n]
        kinds = "SSSSRRR"
        d = dict(zip(axes, _dims(len(axes))))
        channel = (
            d["ic"] if group == 1 else ir.AffineExpr.get_floor_div(d["oc"], ocg) * icg + d["ic"]
        )
        ih, iw = d["oh"] * sh + d["kh"] * dh - pt, d["ow"] * sw + d["kw"] * dw - pl
        x_idx = [d["n"], channel, ih, iw]
        w_idx = [d["oc"], d["ic"], d["kh"], d["kw"]]
        out_map = "(n, oc, oh, ow)"
    return ConvLoops(axes, kinds, extents, x, x_idx, w, w_idx, out_map)


@anchor("conv2d")
def conv2d(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    y_t = kb.type_of(op.results[0])
    yb = layout_block(str(kb.attrs(op)["out_layout"]), "NCHW")
    loops = conv_loops(kb, op)
    half = is_half(ir.Type.parse(y_t.dtype))  # f16 / bf16: multiply and sum in f32, round once
    acc = (
        Leaf(y_t.shape, "f32", kb.temp(TensorT(y_t.shape, "f32")))
        if half
        else Leaf(y_t.shape, y_t.dtype, out)
    )
    blk = tp.block(
        acc.buffer,
        name=kb.name("conv2d"),
        axes=loops.axes,
        kinds=loops.kinds,
        extents=loops.extents,
        out_map=loops.out_map,
        combiner="add",
        init=0.0,
    )
    with ir.InsertionPoint(blk.body):
        xv = read(loops.x, loops.axes, loops.x_idx)
        wv = read(loops.w, loops.axes, loops.w_idx)
        tp.yield_(arith.MulFOp(*((widen(xv), widen(wv)) if half else (xv, wv))).result)
    if len(op.operands) < 3:
        return rounded(acc, y_t.dtype) if half else None
    bias = kb.buffer(op.operands[2])
    if yb:
        return _bias_epilogue(acc, bias, y_t.dtype, lambda idx: [idx[1] * yb + idx[4]])
    return _bias_epilogue(acc, bias, y_t.dtype, lambda idx: [idx[1]])


def padded_copy(
    kb: KernelBuilder,
    x: ir.Value,
    x_t: TensorT,
    top: int,
    left: int,
    rows: int,
    cols: int,
    value: float | int = 0,
) -> ir.Value:
    """A scratch copy of `x` (NCHW or NCHW<n>c) with `top`/`left` rows/columns of `value` before
    and enough after to make it rows x cols (`value` as the buffer's signless bits)."""
    shape = list(x_t.shape)
    shape[2], shape[3] = rows, cols
    buf = kb.temp(TensorT(tuple(shape), x_t.dtype))
    blk, axes, idx = block_over(buf, kb.name("pad"), tuple(shape))
    src = list(idx)
    src[2], src[3] = idx[2] - top, idx[3] - left
    with ir.InsertionPoint(blk.body):
        tp.yield_(read(x, axes, src, pad=value))
    return buf


def _contract(
    kb: KernelBuilder,
    name: str,
    out: ir.Value,
    out_shape: tuple[int, ...],
    a_buf: ir.Value,
    a_idx: "callable",
    b_buf: ir.Value,
    b_idx: "callable",
    k: int,
) -> Expr:  # type: ignore[valid-type]
    """out[s] = sum_k a[a_idx(s, k)] * b[b_idx(s, k)] over spatial axes s0.. and reduce axis k.

    Returns the product's value. f16 / bf16 operands are multiplied and summed in f32 (a
    temporary) and rounded once, by the returned pending expression, as numpy does.
    """
    dtype = str(ir.MemRefType(out.type).element_type)
    half = is_half(ir.MemRefType(out.type).element_type)
    acc = kb.temp(TensorT(out_shape, "f32")) if half else out
    axes = [f"s{i}" for i in range(len(out_shape))] + ["k"]
    dims = _dims(len(axes))
    blk = tp.block(
        acc,
        name=kb.name(name),
        axes=axes,
        kinds="S" * len(out_shape) + "R",
        extents=list(out_shape) + [k],
        out_map="(" + ", ".join(axes[:-1]) + ")",
        combiner="add",
        init=0.0,
    )
    with ir.InsertionPoint(blk.body):
        av = read(a_buf, axes, a_idx(dims[:-1], dims[-1]))
        bv = read(b_buf, axes, b_idx(dims[:-1], dims[-1]))
        if half:
            av, bv = widen(av), widen(bv)
        tp.yield_(arith.MulFOp(av, bv).result)
    if half:
        return rounded(Leaf(out_shape, "f32", acc), dtype)
    return Leaf(out_shape, dtype, out)


def _pending(value: Expr) -> Expr | None:
    """An anchor's result: None when it is its output buffer as is."""
    return None if isinstance(value, Leaf) else value


def matmul_indices(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...], y_shape: tuple[int, ...]
) -> tuple[IndexFn, IndexFn]:
    """numpy.matmul's operand indices (broadcast batch dims, 1-D operands) from the output's
    spatial index and the contraction index."""
    batch = len(y_shape) - (len(a_shape) > 1) - (len(b_shape) > 1)
    zero = ir.AffineConstantExpr.get(0)

    def batch_idx(t_shape: tuple[int, ...], s: Index) -> Index:
        own = len(t_shape) - 2
        return [zero if d == 1 else s[batch - own + i] for i, d in enumerate(t_shape[:own])]

    def a_idx(s: Index, kk: ir.AffineExpr) -> Index:
        return [kk] if len(a_shape) == 1 else batch_idx(a_shape, s) + [s[batch], kk]

    def b_idx(s: Index, kk: ir.AffineExpr) -> Index:
        return [kk] if len(b_shape) == 1 else batch_idx(b_shape, s) + [kk, s[-1]]

    return a_idx, b_idx


@anchor("matmul")
def matmul(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a_t, b_t, y_t = (
        kb.type_of(op.operands[0]),
        kb.type_of(op.operands[1]),
        kb.type_of(op.results[0]),
    )
    k = a_t.shape[-1]
    a_idx, b_idx = matmul_indices(a_t.shape, b_t.shape, y_t.shape)
    return _pending(
        _contract(
            kb,
            "matmul",
            out,
            y_t.shape,
            kb.buffer(op.operands[0]),
            a_idx,
            kb.buffer(op.operands[1]),
            b_idx,
            k,
        )
    )


@anchor("batch_matmul")
def batch_matmul(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    y_t = kb.type_of(op.results[0])
    return _pending(
        _contract(
            kb,
            "batch_matmul",
            out,
            y_t.shape,
            kb.buffer(op.operands[0]),
            lambda s, k: [s[0], s[1], k],
            kb.buffer(op.operands[1]),
            lambda s, k: [s[0], k, s[2]],
            kb.type_of(op.operands[0]).shape[2],
        )
    )


@anchor("dense")
def dense(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    attrs = kb.attrs(op)
    a_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    ta, tb = bool(attrs["transA"]), bool(attrs["transB"])
    k = a_t.shape[0] if ta else a_t.shape[1]
    own = _contract(
        kb,
        "dense",
        out,
        y_t.shape,
        kb.buffer(op.operands[0]),
        lambda s, kk: [kk, s[0]] if ta else [s[0], kk],
        kb.buffer(op.operands[1]),
        lambda s, kk: [s[1], kk] if tb else [kk, s[1]],
        k,
    )
    alpha, beta = float(attrs["alpha"]), float(attrs["beta"])  # type: ignore[arg-type]
    has_c = len(op.operands) > 2 and beta != 0.0
    if alpha == 1.0 and not has_c:
        return _pending(own)
    children: list[Expr] = [own]
    maps = [lambda idx: idx]
    if has_c:
        c_t = kb.type_of(op.operands[2])
        children.append(Leaf(c_t.shape, c_t.dtype, kb.buffer(op.operands[2])))
        from .expr import broadcast_index

        maps.append(broadcast_index(c_t.shape, y_t.shape))

    def fn(xs: list[ir.Value]) -> ir.Value:
        acc = xs[0] if alpha == 1.0 else arith.MulFOp(xs[0], const(xs[0], alpha)).result
        if not has_c:
            return acc
        c = xs[1] if beta == 1.0 else arith.MulFOp(xs[1], const(xs[1], beta)).result
        return arith.AddFOp(acc, c).result

    return Elementwise(y_t.shape, y_t.dtype, children, fn, maps)
