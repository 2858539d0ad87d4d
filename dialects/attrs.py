"""Conversions between MLIR attributes/types and plain Python values, shared by both dialects."""

from __future__ import annotations

import re
from collections.abc import Sequence

from mlir import ir

from mlc import symbolic

from .graph.spec import AttrKind, TensorT
from .walk import walk

_PARAM_RE = re.compile(r'^#graph\.param<"((?:[^"\\]|\\.)*)">$')


def to_attr(kind: AttrKind, value: object) -> ir.Attribute:
    """Python value -> attribute of the given spec kind (needs a current Context)."""
    if isinstance(value, ir.Attribute):
        return value
    if kind == "ints":
        assert isinstance(value, Sequence), value
        return ir.DenseI64ArrayAttr.get([int(v) for v in value])
    if kind == "dims":
        assert isinstance(value, Sequence), value
        if all(not isinstance(v, (symbolic.Dim, str)) for v in value):
            return ir.DenseI64ArrayAttr.get([int(v) for v in value])
        i64 = ir.IntegerType.get_signless(64)
        return ir.ArrayAttr.get(
            [
                ir.IntegerAttr.get(i64, int(v))
                if not isinstance(v, (symbolic.Dim, str))
                else ir.StringAttr.get(str(v))
                for v in value
            ]
        )
    if kind == "int":
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))  # type: ignore[arg-type]
    if kind == "float":
        return ir.FloatAttr.get(ir.F32Type.get(), float(value))  # type: ignore[arg-type]
    if kind == "floats":
        assert isinstance(value, Sequence), value
        return ir.DenseF32ArrayAttr.get([float(v) for v in value])
    if kind == "str":
        return ir.StringAttr.get(str(value))
    if kind == "strs":
        assert isinstance(value, Sequence), value
        return ir.ArrayAttr.get([ir.StringAttr.get(str(v)) for v in value])
    raise TypeError(f"attribute kind {kind} needs an ir.Attribute, got {value!r}")


def from_attr(attr: ir.Attribute) -> object:
    """Attribute -> plain Python value where one exists; otherwise the attribute itself."""
    if isinstance(attr, ir.DenseI64ArrayAttr):
        return tuple(attr)
    if isinstance(attr, ir.DenseF32ArrayAttr):
        return tuple(float(v) for v in attr)
    if isinstance(attr, ir.BoolAttr):
        return bool(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        return int(attr.value)
    if isinstance(attr, ir.FloatAttr):
        return float(attr.value)
    if isinstance(attr, ir.StringAttr):
        return attr.value
    if isinstance(attr, ir.ArrayAttr):
        return tuple(from_attr(a) for a in attr)
    return attr


def param_name(attr: ir.Attribute) -> str | None:
    """The name inside `#graph.param<"name">`, or None for any other attribute."""
    m = _PARAM_RE.match(str(attr))
    if not m:
        return None
    # The printer writes '\\' as \\\\ and '"' or non-printable bytes as \XX (hex).
    simple = {b"\\": b"\\", b"n": b"\n", b"t": b"\t", b'"': b'"'}

    def unescape(e: re.Match[bytes]) -> bytes:
        code = e.group(1)
        return simple[code] if code in simple else bytes([int(code, 16)])

    raw = re.sub(rb'\\(\\|n|t|"|[0-9A-Fa-f]{2})', unescape, m.group(1).encode())
    return raw.decode("utf-8")


def param_attr(name: str) -> ir.Attribute:
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return ir.Attribute.parse(f'#graph.param<"{escaped}">')


def tensor_t(t: ir.Type) -> TensorT | None:
    """A ranked tensor type as TensorT: static, or with symbolic dims named by its encoding
    (`tensor<?x768xf32, ["batch*seq", 768]>`); None for anything else (an unnamed `?`)."""
    if not isinstance(t, ir.RankedTensorType):
        return None
    if t.has_static_shape:
        return TensorT(tuple(t.shape), str(t.element_type))
    dims = symbolic_dims(t)
    return None if dims is None else TensorT(dims, str(t.element_type))


def symbolic_dims(t: ir.RankedTensorType) -> tuple[int | symbolic.Dim, ...] | None:
    """The dims of a tensor type whose encoding names every dim (an int, or an expression
    string for each `?`); None when it has none or it does not match the shape."""
    enc = t.encoding
    if not isinstance(enc, ir.ArrayAttr) or len(enc) != t.rank:
        return None
    dims: list[int | symbolic.Dim] = []
    for size, entry in zip(t.shape, enc):
        value = from_attr(entry)
        if isinstance(value, str):
            try:
                dim = symbolic.parse(value)
            except ValueError:
                return None
        elif isinstance(value, int):
            dim = value
        else:
            return None
        if not isinstance(dim, symbolic.Dim) and dim != size:  # a static dim must agree
            return None
        if isinstance(dim, symbolic.Dim) and not ir.ShapedType.is_dynamic_size(size):
            return None
        dims.append(dim)
    return tuple(dims)


def first_symbolic_value(root: ir.Operation) -> tuple[ir.Type, ir.Location] | None:
    """The first tensor type with dynamic dims under `root` (block arguments and results), with
    where it is; None when every tensor is static."""
    for op in walk(root):
        values = list(op.results)
        for region in op.regions:
            for block in region.blocks:
                values += list(block.arguments)
        for v in values:
            t = v.type
            if isinstance(t, ir.RankedTensorType) and not t.has_static_shape:
                return t, op.location
    return None


def to_type(t: TensorT) -> ir.RankedTensorType:
    elem = ir.Type.parse(t.dtype)
    if t.is_static:
        return ir.RankedTensorType.get(list(t.shape), elem)
    dynamic = ir.ShapedType.get_dynamic_size()
    shape = [dynamic if isinstance(d, symbolic.Dim) else int(d) for d in t.shape]
    i64 = ir.IntegerType.get_signless(64)
    names = [
        ir.StringAttr.get(str(d)) if isinstance(d, symbolic.Dim) else ir.IntegerAttr.get(i64, d)
        for d in t.shape
    ]
    return ir.RankedTensorType.get(shape, elem, encoding=ir.ArrayAttr.get(names))
