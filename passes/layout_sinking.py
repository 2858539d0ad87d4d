"""How graph-alter-layout keeps a chain of blocked convs blocked: the transforms back to NCHW
after each conv sink through the ops that do not care about the layout (elementwise ops with
per-channel or scalar operands, pools, global pools, channel concatenation) and cancel against
the next conv's transform to the blocked layout; a padded conv's crop sinks the same way."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph import op_kind
from mlc.dialects.graph.spec import layout_block
from mlc.dialects.walk import defining_op

from .graph_simplify_common import attr, replace_op, shape_of

# Global pools over a blocked tensor become reductions over its H and W axes.
_GLOBAL_POOLS = {"global_avg_pool2d": "reduce_mean", "global_max_pool2d": "reduce_max"}


def is_back_transform(v: ir.Value) -> ir.Operation | None:
    """The op if `v` is layout_transform(blocked -> NCHW)."""
    op = defining_op(v)
    if op is None or op.name != "graph.layout_transform" or attr(op, "dst_layout") != "NCHW":
        return None
    return op


def pad_dim1(v: ir.Value, count: int) -> ir.Value:
    """`v` (rank 4) with `count` zero channels appended (cut off if negative)."""
    if not count:
        return v
    return gb.pad(v, pads=(0, 0, 0, 0, 0, count, 0, 0))


def sink(op: ir.Operation) -> bool:
    """One rewrite moving a back-transform below `op` (or cancelling a pair); True if done."""
    name = op.name.removeprefix("graph.")
    if name == "layout_transform":
        inner = defining_op(op.operands[0])
        if (
            inner is not None
            and inner.name == "graph.layout_transform"
            and attr(inner, "src_layout") == attr(op, "dst_layout")
        ):
            replace_op(op, inner.operands[0])
            return True
        return False
    if op_kind(op) == "elemwise" and name != "batch_norm" and len(op.results) == 1:
        crops = [_cropped(v) for v in op.operands]
        if any(crops):
            return _sink_crop(op, crops)
    if name in _GLOBAL_POOLS and (crop := _cropped(op.operands[0])) is not None:
        return _pool_crop(op, *crop)
    backs = [is_back_transform(v) for v in op.operands]
    if not any(backs) or len(op.results) != 1:
        return False
    layout = str(attr(next(b for b in backs if b), "src_layout"))
    block = layout_block(layout, "NCHW")
    out = tensor_t(op.results[0].type)
    if out is None or out.rank != 4 or out.shape[1] % block:
        return False
    if name in _GLOBAL_POOLS and backs[0] is not None:
        # A mean (max) over H and W of the blocked tensor keeps the channel lanes: the full-size
        # transform back to NCHW before an SE block's pooling cost 0.2 ms per layer.
        pooled = gb.make(_GLOBAL_POOLS[name], backs[0].operands[0], axes=(2, 3), keepdims=1)
        replace_op(op, gb.layout_transform(pooled, src_layout=layout, dst_layout="NCHW"))
        return True
    if name in ("max_pool2d", "avg_pool2d") and attr(op, "layout") == "NCHW":
        attrs = {k: attr(op, k) for k in op.attributes if k != "layout"}
        pooled = gb.make(name, backs[0].operands[0], layout=layout, **attrs)  # type: ignore[union-attr]
        replace_op(op, gb.layout_transform(pooled, src_layout=layout, dst_layout="NCHW"))
        return True
    if op.name == "tensor.concat":
        return _sink_concat(op, backs, layout)
    if op_kind(op) != "elemwise" or name in ("batch_norm",):
        return False
    operands = []
    for v, back in zip(op.operands, backs):
        if back is not None and attr(back, "src_layout") == layout:
            operands.append(back.operands[0])
            continue
        blocked = _blocked_constant(v, out.shape, layout)
        if blocked is None:
            return False
        operands.append(blocked)
    attrs = {k: attr(op, k) for k in op.attributes}
    new = gb.make(name, *operands, **attrs)
    replace_op(op, gb.layout_transform(new, src_layout=layout, dst_layout="NCHW"))
    return True


def _cropped(v: ir.Value) -> tuple[ir.Operation, ir.Operation] | None:
    """(crop, back-transform) if `v` is a padded conv's output: the transform back to NCHW
    with the padded channels cut off (graph-alter-layout's channel padding)."""
    crop = defining_op(v)
    if crop is None or crop.name != "graph.pad":
        return None
    pads = tuple(attr(crop, "pads"))  # type: ignore[arg-type]
    if len(pads) != 8 or pads[5] >= 0 or any(p for i, p in enumerate(pads) if i != 5):
        return None
    back = is_back_transform(crop.operands[0])
    return (crop, back) if back is not None else None


def _sink_crop(op: ir.Operation, crops: list[tuple[ir.Operation, ir.Operation] | None]) -> bool:
    """An elementwise op (the activation, a per-channel scale) after a padded conv runs on the
    blocked, padded channels too (per-channel constants padded with zeros; what the padded
    channels compute is cut off): it then fuses into the conv's kernel instead of into the
    transform back."""
    crop, back = next(c for c in crops if c is not None)
    layout = str(attr(back, "src_layout"))
    padded = shape_of(crop.operands[0])
    operands = []
    for v, c in zip(op.operands, crops):
        if c is not None and shape_of(c[0].operands[0]) == padded:
            if str(attr(c[1], "src_layout")) != layout:
                return False
            operands.append(c[1].operands[0])
            continue
        blocked = _padded_constant(v, shape_of(op.results[0])[1], padded[1], layout)
        if blocked is None:
            return False
        operands.append(blocked)
    attrs = {k: attr(op, k) for k in op.attributes}
    new = gb.make(op.name.removeprefix("graph."), *operands, **attrs)
    out = gb.layout_transform(new, src_layout=layout, dst_layout="NCHW")
    replace_op(op, gb.pad(out, pads=tuple(attr(crop, "pads"))))  # type: ignore[arg-type]
    return True


def _pool_crop(op: ir.Operation, crop: ir.Operation, back: ir.Operation) -> bool:
    """A global pool after a padded conv pools the blocked, padded channels and crops the
    pooled vector: the transform back to NCHW and the crop then move one value per channel
    instead of the whole map (squeezenet's 1000 classes at 13x13: 5.4 MB at batch 8)."""
    layout = str(attr(back, "src_layout"))
    kind = _GLOBAL_POOLS[op.name.removeprefix("graph.")]
    pooled = gb.make(kind, back.operands[0], axes=(2, 3), keepdims=1)
    out = gb.layout_transform(pooled, src_layout=layout, dst_layout="NCHW")
    replace_op(op, gb.pad(out, pads=tuple(attr(crop, "pads"))))  # type: ignore[arg-type]
    return True


def _padded_constant(v: ir.Value, channels: int, padded: int, layout: str) -> ir.Value | None:
    """A scalar, or a per-channel operand padded with zeros to `padded` channels and blocked."""
    shape = shape_of(v)
    if all(d == 1 for d in shape):
        return v if len(shape) <= 4 else None
    if shape == (channels, 1, 1):
        v = gb.reshape(v, shape=(1, channels, 1, 1))
    elif shape != (1, channels, 1, 1):
        return None
    v = pad_dim1(v, padded - channels)
    return gb.layout_transform(v, src_layout="NCHW", dst_layout=layout)


def _blocked_constant(v: ir.Value, out_shape: tuple[int, ...], layout: str) -> ir.Value | None:
    """A per-channel or scalar operand in the blocked layout, or None if it is neither."""
    shape = shape_of(v)
    if all(d == 1 for d in shape):
        return v if len(shape) <= 4 else None  # scalars broadcast in any layout
    channels = out_shape[1]
    if shape == (channels, 1, 1):
        v = gb.reshape(v, shape=(1, channels, 1, 1))
        shape = (1, channels, 1, 1)
    if shape != (1, channels, 1, 1):
        return None
    return gb.layout_transform(v, src_layout="NCHW", dst_layout=layout)


def _sink_concat(op: ir.Operation, backs: list[ir.Operation | None], layout: str) -> bool:
    dim = ir.IntegerAttr(op.attributes["dim"]).value
    if dim != 1 or not all(b is not None and attr(b, "src_layout") == layout for b in backs):
        return False
    inputs = [b.operands[0] for b in backs]  # type: ignore[union-attr]
    shapes = [shape_of(v) for v in inputs]
    out_shape = list(shapes[0])
    out_shape[1] = sum(s[1] for s in shapes)
    elem = ir.RankedTensorType(inputs[0].type).element_type
    joined = tensor.ConcatOp(ir.RankedTensorType.get(out_shape, elem), 1, inputs).result
    replace_op(op, gb.layout_transform(joined, src_layout=layout, dst_layout="NCHW"))
    return True
