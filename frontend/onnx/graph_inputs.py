"""The graph inputs of a model as static tensor types, after `shape_dict` overrides.

Initializers listed among the graph inputs are parameters, not inputs (the initializer wins).
Every dynamic dimension left after the overrides is reported at once, with the fix.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from mlc.dialects.graph.spec import TensorT
from mlc.errors import InputShapeError, UnsupportedOpError
from mlc.symbolic import Dim, free_symbols, sym
from mlc.symbolic import parse as parse_dim

from .dtypes import mlir_type_of, mlir_type_of_numpy_name
from .tensors import INT64_MAX

if TYPE_CHECKING:
    import onnx


def resolve_inputs(
    graph: onnx.GraphProto,
    shape_dict: Mapping[str, Sequence[int | str]] | None,
    dtype: str,
    symbolic: bool = False,
    bounds: dict[str, tuple[int, int | None]] | None = None,
) -> list[tuple[str, TensorT]]:
    """(name, type) of every true graph input, in model order. With `symbolic`, a dynamic dim
    left after the overrides becomes a symbolic one named by its dim_param (the same name ties
    dims across inputs), or `<input>_<axis>` when it has none. A `shape_dict` dim may be a
    range `"lo..hi"` (`"lo.."`: unbounded above): the dynamic dim there stays symbolic (with
    `symbolic` or not) and its symbol's bounds are put in `bounds`.

    Raises:
        InputShapeError: `shape_dict` names something that is not a graph input, a rank
            differs, or dims are negative.
        UnsupportedOpError: a non-tensor input, an unsupported element type, or dynamic dims.
    """
    initializers = {init.name for init in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    overrides = dict(shape_dict or {})
    unknown = sorted(set(overrides) - {i.name for i in inputs})
    if unknown:
        names = ", ".join(f"'{n}'" for n in unknown)
        raise InputShapeError(
            f"input shapes given for {names}, which the model does not have as an input; "
            f"its inputs are {', '.join(repr(i.name) for i in inputs) or 'none'}"
        )
    default_type = mlir_type_of_numpy_name(dtype)
    found_bounds: dict[str, tuple[int, int | None]] = {}
    resolved: list[tuple[str, TensorT]] = []
    dynamic: list[tuple[str, str]] = []  # (name, description)
    for value in inputs:
        if not value.type.HasField("tensor_type"):
            raise UnsupportedOpError(
                f"graph input '{value.name}' is not a tensor "
                f"({value.type.WhichOneof('value')}); mlc imports tensors only"
            )
        tensor = value.type.tensor_type
        elem = (
            default_type
            if tensor.elem_type == 0
            else mlir_type_of(tensor.elem_type, f"graph input '{value.name}'")
        )
        declared = _declared_dims(tensor)
        if value.name in overrides:
            given = list(overrides[value.name])
            if declared is not None and len(declared) != len(given):
                raise InputShapeError(
                    f"input '{value.name}' is given rank {len(given)} {given}, but the "
                    f"model declares rank {len(declared)} {_show(declared)}"
                )
            shape = tuple(
                _given_dim(d, value.name, axis, declared, found_bounds)
                for axis, d in enumerate(given)
            )
            if any(d < 0 for d in shape if not isinstance(d, Dim)):
                raise InputShapeError(f"input '{value.name}': dims must be >= 0, got {given}")
        elif declared is not None and symbolic:
            shape = tuple(
                _symbol(d, value.name, axis) if isinstance(d, str) else d
                for axis, d in enumerate(declared)
            )
        elif declared is None or any(isinstance(d, str) for d in declared):
            dynamic.append((value.name, _describe_dynamic(value.name, declared)))
            continue
        else:
            shape = tuple(int(d) for d in declared)  # type: ignore[arg-type]
        static = [d for d in shape if not isinstance(d, Dim)]  # sizes known at run time: then
        if any(d < 0 for d in static) or math.prod(static) > INT64_MAX:
            raise InputShapeError(
                f"input '{value.name}' has shape {list(shape)}: a dim below 0, or more elements "
                "than int64 can count; give its real shape with --input-shapes"
            )
        resolved.append((value.name, TensorT(shape, elem)))
    if dynamic:
        example = " ".join(f"{name}:[...]" for name, _ in dynamic)
        raise InputShapeError(
            "mlc needs static input shapes, but "
            + "; ".join(d for _, d in dynamic)
            + ". Give every "
            f'dimension with shape_dict={{name: [dims]}} or --input-shapes "{example}"'
        )
    if bounds is not None:
        bounds.update(found_bounds)
    return resolved


_RANGE = re.compile(r"\s*(\d+)\s*\.\.\s*(\d+)?\s*")


def parse_range(text: str, where: str) -> tuple[int, int | None]:
    """`"1..512"` -> (1, 512); `"8.."` -> (8, None): a symbolic dim's inclusive bounds."""
    m = _RANGE.fullmatch(text)
    if m is None:
        raise InputShapeError(
            f"{where}: '{text}' is neither a size nor a range lo..hi (e.g. 1..512, or 1.. "
            "for no upper bound)"
        )
    lo, hi = int(m[1]), None if m[2] is None else int(m[2])
    if hi is not None and hi < lo:
        raise InputShapeError(f"{where}: the range {text} is empty ({lo} > {hi})")
    return lo, hi


def _given_dim(
    dim: object,
    name: str,
    axis: int,
    declared: list[int | str] | None,
    bounds: dict[str, tuple[int, int | None]],
) -> int | Dim:
    """A `shape_dict` dim: a size, or a range that keeps the model's dynamic dim symbolic."""
    where = f"input '{name}' dim {axis}"
    if isinstance(dim, str) and dim.strip().isdigit():
        return int(dim)
    if not isinstance(dim, str):
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise InputShapeError(f"{where}: {dim!r} is neither a size nor a range 'lo..hi'")
        return int(dim)
    lo, hi = parse_range(dim, where)
    model_dim = "?" if declared is None else declared[axis]
    if isinstance(model_dim, int):
        raise InputShapeError(
            f"{where} is {model_dim} in the model: a range ({dim.strip()}) applies to a dynamic "
            "dim only; give the size instead"
        )
    symbol = _symbol(model_dim, name, axis)
    names = free_symbols(symbol)
    if len(names) != 1 or symbol != sym(next(iter(names))):
        raise InputShapeError(
            f"{where} is the expression '{symbol}' in the model: bound its symbols with a "
            "range on a dim that is exactly one of them"
        )
    (symbol_name,) = names
    if bounds.setdefault(symbol_name, (lo, hi)) != (lo, hi):
        old = bounds[symbol_name]
        raise InputShapeError(
            f"the dim '{symbol_name}' is given two ranges, {old[0]}..{old[1] or ''} and "
            f"{dim.strip()} ({where}); give it one"
        )
    return symbol


def _symbol(dim_param: str, name: str, axis: int) -> int | Dim:
    """A dim_param as a symbolic size: an expression of names (`past + 1`) as it reads, any
    other text as one name made an identifier; no dim_param: `<input>_<axis>`."""
    if dim_param != "?":
        try:
            return parse_dim(dim_param)
        except ValueError:
            pass
    text = dim_param if dim_param != "?" else f"{name}_{axis}"
    ident = re.sub(r"\W", "_", text)
    return sym(ident if ident[:1].isalpha() or ident[:1] == "_" else f"d_{ident}")


def _declared_dims(tensor: onnx.TypeProto.Tensor) -> list[int | str] | None:
    """Dims as ints, with a name (the dim_param, or `?`) for each dynamic one; None without rank."""
    if not tensor.HasField("shape"):
        return None
    dims: list[int | str] = []
    for d in tensor.shape.dim:
        if d.HasField("dim_value") and d.dim_value >= 0:
            dims.append(int(d.dim_value))
        else:
            dims.append(d.dim_param or "?")
    return dims


def _describe_dynamic(name: str, declared: list[int | str] | None) -> str:
    if declared is None:
        return f"input '{name}' has no declared shape"
    where = ", ".join(f"dim {i} ('{d}')" for i, d in enumerate(declared) if isinstance(d, str))
    return f"input '{name}' {_show(declared)} has dynamic {where}"


def _show(dims: list[int | str]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"
