"""Shape and dtype checks of every `graph` op (what IRDL cannot express).

Each violation is reported at the op's location, prefixed with the op name.
"""

from __future__ import annotations

from mlir import ir

from mlc.errors import DiagnosticError
from mlc.symbolic import UndecidableError, assume
from mlc.symbolic import parse as parse_dim

from ..attrs import from_attr, param_name, tensor_t
from ..walk import ops_named, top_level_funcs
from .spec import OPS, OpSpec, ShapeError, TensorT

_KIND_CLASSES: dict[str, tuple[type, str]] = {
    "ints": (ir.DenseI64ArrayAttr, "array<i64: ...>"),
    "int": (ir.IntegerAttr, "an integer"),
    "float": (ir.FloatAttr, "a float"),
    "floats": (ir.DenseF32ArrayAttr, "array<f32: ...>"),
    "str": (ir.StringAttr, "a string"),
    "strs": (ir.ArrayAttr, "an array of strings"),
}


def check_op(
    op: ir.Operation, types_seen: dict[ir.Type, TensorT | None] | None = None
) -> str | None:
    """The first problem with one graph op, or None. `types_seen` memoizes `tensor_t` over the
    ops of one check (types are uniqued: most values are seen as a result and as operands)."""
    spec = OPS.get(op.name.removeprefix("graph."))
    if spec is None:
        return f"{op.name} is not a graph op"
    seen = {} if types_seen is None else types_seen

    def tensor_of(t: ir.Type) -> TensorT | None:
        if t not in seen:
            seen[t] = tensor_t(t)
        return seen[t]

    types = [tensor_of(v.type) for v in op.operands]
    for i, (v, t) in enumerate(zip(op.operands, types)):
        if t is None:
            return (
                f"operand #{i} must be a ranked tensor whose dynamic dims are named "
                f'(tensor<?x4xf32, ["n", 4]>), got {v.type}'
            )
    attrs: dict[str, object] = {}
    for a in spec.attrs:
        attr = op.attributes[a.name]
        if a.kind == "dims" and not _is_dims(attr):
            return (
                f"attribute '{a.name}' must be array<i64: ...> or an array of integers and "
                f'size expressions (["batch*seq", 64]), got {attr}'
            )
        if a.kind in _KIND_CLASSES:
            cls, what = _KIND_CLASSES[a.kind]
            if not isinstance(attr, cls):
                return f"attribute '{a.name}' must be {what}, got {attr}"
        attrs[a.name] = from_attr(attr)
    if spec.name == "constant":
        return _check_constant(op)
    try:
        inferred = spec.infer(types, attrs)  # type: ignore[arg-type]
    except (ShapeError, UndecidableError) as e:
        return str(e)
    except (TypeError, ValueError, ArithmeticError) as e:
        if all(t is not None and t.is_static for t in types):
            raise
        # a shape rule written for static sizes met a symbolic one
        return f"its shape rule does not handle symbolic dims yet ({type(e).__name__}: {e})"
    actual = [tensor_of(r.type) for r in op.results]
    for i, (want, got) in enumerate(zip(inferred, actual)):
        if want != got:
            return (
                f"result #{i} has type {op.results[i].type} but the operands and attributes "
                f"give {want}"
            )
    return None


def _is_dims(attr: ir.Attribute) -> bool:
    if isinstance(attr, ir.DenseI64ArrayAttr):
        return True
    if not isinstance(attr, ir.ArrayAttr):
        return False
    for entry in attr:
        if isinstance(entry, ir.StringAttr):
            try:
                parse_dim(entry.value)
            except ValueError:
                return False
        elif not isinstance(entry, ir.IntegerAttr):
            return False
    return True


def _check_constant(op: ir.Operation) -> str | None:
    value = op.attributes["value"]
    result = op.results[0].type
    if tensor_t(result) is None:
        return f"result must be a statically shaped ranked tensor, got {result}"
    if param_name(value) is not None:
        return None
    if isinstance(value, (ir.DenseElementsAttr, ir.DenseResourceElementsAttr)):
        if value.type != result:
            return f"value has type {value.type} but the result is {result}"
        return None
    return f'value must be #graph.param<"name"> or a dense elements literal, got {value}'


def verify_graph(
    root: ir.Operation, candidates: list[ir.Operation] | None = None
) -> list[DiagnosticError]:
    """Check the graph ops under `root` (or those among `candidates`, ops collected under it
    by one walk shared with other checks)."""
    errors = []
    ops = ops_named(root, "graph.") if candidates is None else candidates
    types_seen: dict[ir.Type, TensorT | None] = {}
    with assume(symbol_bounds(root)):  # the import simplified sizes under them
        for op in (o for o in ops if o.name.startswith("graph.")):
            problem = check_op(op, types_seen)
            if problem:
                errors.append(DiagnosticError(f"'{op.name}' op {problem}", op.location))
    return errors


SYMBOL_BOUNDS_ATTR = "mlc.symbol_bounds"
"""A func's dictionary of its symbolic dims' bounds (`--input-shapes x:[1..8]`): each symbol ->
`array<i64: lo, hi>`, or `array<i64: lo>` when unbounded above."""


def symbol_bounds(root: ir.Operation) -> dict[str, tuple[int, int | None]]:
    """The bounds recorded on `root` (a func) or on the funcs of `root` (a module)."""
    funcs = [root] if root.name == "func.func" else []
    if root.name == "builtin.module":
        funcs = top_level_funcs(root)
    bounds: dict[str, tuple[int, int | None]] = {}
    for fn in funcs:
        if SYMBOL_BOUNDS_ATTR in fn.attributes:
            for named in ir.DictAttr(fn.attributes[SYMBOL_BOUNDS_ATTR]):
                values = list(ir.DenseI64ArrayAttr(named.attr))
                bounds[named.name] = (values[0], values[1] if len(values) > 1 else None)
    return bounds


def spec_of(op: ir.Operation) -> OpSpec:
    return OPS[op.name.removeprefix("graph.")]
