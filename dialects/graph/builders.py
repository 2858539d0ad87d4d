"""Python builders for every `graph` op, generated from the op specs.

`make("conv2d", x, w, strides=(2, 2))` fills defaults, rejects unknown attributes, infers the
result type with the op's shape rule and creates the op at the current insertion point.
Each op also has a named builder in this module (`conv2d(x, w, ...)`) with the spec's summary as
its docstring. Builders take keyword-only `loc=` and `ip=` like upstream builders.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from mlir import ir

from mlc.symbolic import Dim

from ..attrs import from_attr, tensor_t, to_attr, to_type
from .spec import OPS, REQUIRED, ShapeError, TensorT


def make(
    name: str,
    *operands: ir.Value | None,
    result: ir.Type | None = None,
    loc: ir.Location | None = None,
    ip: ir.InsertionPoint | None = None,
    **attrs: object,
) -> ir.Value:
    """Create `graph.<name>` and return its result. Raises ValueError/ShapeError on bad input."""
    spec = OPS.get(name)
    if spec is None:
        raise ValueError(f"graph.{name} is not a graph op")
    unknown = set(attrs) - set(spec.attr_by_name)
    if unknown:
        raise ValueError(
            f"graph.{name} has no attribute(s) {sorted(unknown)}; "
            f"expected {[a.name for a in spec.attrs]}"
        )
    values = [v for v in operands if v is not None]
    if len(values) < spec.min_operands or len(operands) > len(spec.operands):
        raise ValueError(f"graph.{name} takes operands {list(spec.operands)}, got {len(values)}")
    full: dict[str, object] = {}
    for a in spec.attrs:
        value = attrs.get(a.name, a.default)
        if value is REQUIRED:
            raise ValueError(f"graph.{name} needs attribute '{a.name}'")
        full[a.name] = value
    if result is None:
        types = [tensor_t(v.type) for v in values]
        if any(t is None for t in types):
            raise ShapeError(f"graph.{name}: operands must be static ranked tensors")
        inferred = spec.infer(types, {k: _plain(v) for k, v in full.items()})
        check_size(name, inferred[0])
        result = to_type(inferred[0])
    op = ir.Operation.create(
        spec.full_name,
        results=[result],
        operands=values,
        attributes={k: to_attr(spec.attr_by_name[k].kind, v) for k, v in full.items()},
        loc=loc,
        ip=ip,
    )
    return op.result


INT64_MAX = (1 << 63) - 1


def check_size(name: str, t: TensorT) -> None:
    """A result whose element count does not fit int64 (every index and size computed in the
    generated code is an i64) is a ShapeError, not a type MLIR cannot build or code that
    overflows silently."""
    static = [d for d in t.shape if not isinstance(d, Dim)]  # symbolic: checked at run time
    if math.prod(static) > INT64_MAX or any(not 0 <= d <= INT64_MAX for d in static):
        raise ShapeError(
            f"graph.{name}: the result shape {list(t.shape)} has more elements than int64 "
            "can count; the input shapes or attributes are far too large"
        )


def _plain(value: object) -> object:
    if isinstance(value, ir.Attribute):  # the shape rules read plain values
        return from_attr(value)
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return value


def constant(
    value: ir.Attribute,
    type: ir.Type | TensorT,
    *,
    loc: ir.Location | None = None,
    ip: ir.InsertionPoint | None = None,
) -> ir.Value:
    """`graph.constant`: `value` is `#graph.param<"name">` (`attrs.param_attr`) or a literal."""
    result = to_type(type) if isinstance(type, TensorT) else type
    return make("constant", result=result, loc=loc, ip=ip, value=value)


def _named_builder(name: str) -> Callable[..., ir.Value]:
    def build(
        *operands: ir.Value | None,
        loc: ir.Location | None = None,
        ip: ir.InsertionPoint | None = None,
        **attrs: object,
    ) -> ir.Value:
        return make(name, *operands, loc=loc, ip=ip, **attrs)

    spec = OPS[name]
    build.__name__ = build.__qualname__ = name
    attrs_doc = ", ".join(
        f"{a.name}={a.default!r}" if a.default is not REQUIRED else a.name for a in spec.attrs
    )
    build.__doc__ = f"graph.{name}({', '.join(spec.operands)}; {attrs_doc}): {spec.summary}"
    return build


for _name in OPS:
    if _name != "constant":
        globals()[_name if _name not in ("and", "or", "not") else _name + "_"] = _named_builder(
            _name
        )
