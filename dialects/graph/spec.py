"""Declarative op specs of the `graph` dialect: operands, attributes, summary and shape rule.

One table drives the IRDL definition (`irdl.py`), the Python builders (`builders.py`), the
shape/dtype checks of `graph-verify`, and the op list in the docs. Shape rules work on plain
`TensorT` values so that they run without any IR (the ONNX importer uses them too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from mlc.symbolic import Dim, unify
from mlc.symbolic import parse as parse_dim

AttrKind = Literal["ints", "dims", "int", "float", "floats", "str", "strs", "any"]
FusionKind = Literal["compute", "reduce", "elemwise", "injective", "opaque"]
"""What an op may fuse with (TVM's pattern kinds): `compute` (conv, matmul, pool) and `reduce`
ops start a kernel and take an elementwise epilogue; `elemwise` and `injective` (data movement)
ops chain into expressions; `opaque` ops (constants) are never part of a kernel."""

# IRDL base constraint per attribute kind; `any` is `irdl.any` (checked by graph-verify).
IRDL_ATTR_BASE: dict[str, str | None] = {
    "ints": "#builtin.dense_array",
    # sizes: `array<i64: ...>` when static, else an array of integers and expression strings
    "dims": None,
    "int": "#builtin.integer",
    "float": "#builtin.float",
    "floats": "#builtin.dense_array",
    "str": "#builtin.string",
    "strs": "#builtin.array",
    "any": None,
}

REQUIRED = object()


class ShapeError(ValueError):
    """A shape/dtype rule violation; the message does not repeat the op name."""


@dataclass(frozen=True)
class TensorT:
    """A ranked tensor type as plain data: its shape (ints, or `symbolic.Dim`s for sizes known
    at run time) and MLIR element type name (`f32`, `i1`)."""

    shape: tuple[int | Dim, ...]
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int | Dim:
        n: int | Dim = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def is_static(self) -> bool:
        return not any(isinstance(d, Dim) for d in self.shape)

    def __str__(self) -> str:
        dims = "".join(f"{'?' if isinstance(d, Dim) else d}x" for d in self.shape)
        if self.is_static:
            return f"tensor<{dims}{self.dtype}>"
        names = ", ".join(f'"{d}"' if isinstance(d, Dim) else str(d) for d in self.shape)
        return f"tensor<{dims}{self.dtype}, [{names}]>"


@dataclass(frozen=True)
class AttrSpec:
    name: str
    kind: AttrKind
    default: object = REQUIRED
    doc: str = ""


InferFn = Callable[[list[TensorT | None], dict[str, object]], list[TensorT]]


@dataclass(frozen=True)
class OpSpec:
    """One graph op. Operand names ending in `?` are optional (at most one per op, last)."""

    name: str
    operands: tuple[str, ...]
    attrs: tuple[AttrSpec, ...]
    summary: str
    category: Literal["nn", "math", "tensor", "misc"]
    infer: InferFn
    onnx: str = ""
    doc: str = ""
    results: tuple[str, ...] = ("out",)
    kind: FusionKind | None = None
    """Fusion kind; by default `elemwise` for math ops, `injective` for tensor ops, or `opaque`."""
    attr_by_name: dict[str, AttrSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "attr_by_name", {a.name: a for a in self.attrs})
        if self.kind is None:
            default = {"math": "elemwise", "tensor": "injective"}.get(self.category, "opaque")
            object.__setattr__(self, "kind", default)
        optional = [o for o in self.operands if o.endswith("?")]
        assert len(optional) <= 1 and (not optional or self.operands[-1] == optional[0]), self.name

    @property
    def full_name(self) -> str:
        return f"graph.{self.name}"

    @property
    def min_operands(self) -> int:
        return sum(1 for o in self.operands if not o.endswith("?"))


OPS: dict[str, OpSpec] = {}


def register(*specs: OpSpec) -> None:
    for spec in specs:
        assert spec.name not in OPS, f"duplicate graph op {spec.name}"
        OPS[spec.name] = spec


# ---------------------------------------------------------------------------------------------
# Helpers shared by the shape rules.

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
INT_TYPES = ("i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_TYPES


def need(cond: bool, message: str) -> None:
    if not cond:
        raise ShapeError(message)


def norm_axis(axis: int, rank: int, what: str = "axis") -> int:
    need(-rank <= axis < max(rank, 1), f"{what} {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def broadcast_shapes(shapes: Sequence[tuple[int | Dim, ...]]) -> tuple[int | Dim, ...]:
    """numpy broadcasting; a symbolic size is never 1 (it does not stretch)."""
    rank = max(len(s) for s in shapes)
    out: list[int] = []
    for i in range(rank):
        dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0}
        dims.discard(1)
        # sizes known at run time broadcast when they may be equal (checked then)
        one = unify(dims) if len(dims) > 1 and any(isinstance(d, Dim) for d in dims) else None
        need(
            len(dims) <= 1 or one is not None,
            "shapes " + ", ".join(str(list(s)) for s in shapes) + " are not broadcast-compatible",
        )
        out.append(one if one is not None else dims.pop() if dims else 1)
    return tuple(out)


def present(ins: Sequence[TensorT | None], i: int) -> TensorT:
    """Operand `i`'s type, for an operand that is not optional."""
    t = ins[i]
    assert t is not None
    return t


def same_dtype(ins: Sequence[TensorT | None]) -> str:
    dtypes = {t.dtype for t in ins if t is not None}
    need(len(dtypes) == 1, "operand element types differ: " + ", ".join(sorted(dtypes)))
    return dtypes.pop()


def dims(attrs: dict[str, object], name: str) -> tuple[int | Dim, ...]:
    """A `dims` attribute's sizes: ints, and `Dim`s for the expression strings."""
    value = attrs[name]
    assert isinstance(value, tuple)
    return tuple(
        parse_dim(v) if isinstance(v, str) else v if isinstance(v, Dim) else int(v)  # type: ignore[arg-type]
        for v in value
    )


def ints(attrs: dict[str, object], name: str) -> tuple[int, ...]:
    value = attrs[name]
    assert isinstance(value, tuple)
    return tuple(int(v) for v in value)  # type: ignore[arg-type]


def layout_block(layout: str, base: str) -> int:
    """`NCHW` -> 0, `NCHW8c` -> 8 (the inner block of a blocked layout)."""
    need(layout.startswith(base), f"layout '{layout}' is not {base} or {base}<n>c")
    rest = layout[len(base) :]
    if not rest:
        return 0
    need(
        rest.endswith("c") and rest[:-1].isdigit() and int(rest[:-1]) > 0,
        f"layout '{layout}' is not {base} or {base}<n>c",
    )
    return int(rest[:-1])


def kernel_blocks(layout: str) -> tuple[int, int]:
    """`OIHW` -> (0, 0), `OIHW8i8o` -> (8, 8)."""
    if layout == "OIHW":
        return 0, 0
    import re

    m = re.fullmatch(r"OIHW(\d+)i(\d+)o", layout)
    need(m is not None, f"kernel layout '{layout}' is not OIHW or OIHW<i>i<o>o")
    assert m is not None
    return int(m.group(1)), int(m.group(2))


def pool_out(size: int, k: int, s: int, pb: int, pe: int, d: int, ceil_mode: bool) -> int:
    span = d * (k - 1) + 1
    need(size + pb + pe >= span, f"window of extent {span} does not fit input {size} + pads")
    num = size + pb + pe - span
    out = (-(-num // s) if ceil_mode else num // s) + 1
    # A window that starts inside the end padding is dropped (ONNX / PyTorch ceil_mode rule).
    if ceil_mode and (out - 1) * s >= size + pb:
        out -= 1
    return out
