"""More elementwise ops of the `graph` dialect: inverse trigonometric and hyperbolic functions,
NaN / infinity tests, bitwise integer ops, bit casts and the triangular mask (`trilu`)."""

from __future__ import annotations

from .math import infer_binary, infer_float_unary
from .spec import FLOAT_TYPES, AttrSpec, OpSpec, TensorT, need, register

# Storage bits of each element type: a bool is one byte, as ONNX and numpy store it.
_BITS = {
    "i1": 8,
    "i8": 8,
    "ui8": 8,
    "i16": 16,
    "ui16": 16,
    "f16": 16,
    "bf16": 16,
    "i32": 32,
    "ui32": 32,
    "f32": 32,
    "i64": 64,
    "ui64": 64,
    "f64": 64,
}


def _x(ins: list[TensorT | None]) -> TensorT:
    x = ins[0]
    assert x is not None
    return x


def infer_float_test(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    need(x.dtype in FLOAT_TYPES, f"element type {x.dtype} is not a float type")
    return [TensorT(x.shape, "i1")]


def _need_integer(dtype: str) -> None:
    need(
        dtype in _BITS and dtype not in FLOAT_TYPES and dtype != "i1",
        f"element type {dtype} is not an integer type",
    )


def infer_integer_binary(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    out = infer_binary(ins, attrs)
    _need_integer(out[0].dtype)
    return out


def infer_integer_unary(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    _need_integer(x.dtype)
    return [x]


def infer_bit_shift(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    direction = str(attrs["direction"])
    need(direction in ("LEFT", "RIGHT"), f"direction '{direction}' is not LEFT or RIGHT")
    return infer_integer_binary(ins, attrs)


def infer_bitcast(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, to = _x(ins), str(attrs["to"])
    need(x.dtype in _BITS and to in _BITS, f"cannot reinterpret {x.dtype} as {to}")
    need(
        _BITS[x.dtype] == _BITS[to],
        f"{x.dtype} ({_BITS[x.dtype]} bits) and {to} ({_BITS[to]} bits) differ in width",
    )
    return [TensorT(x.shape, to)]


def infer_trilu(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    need(x.rank >= 2, f"input {x} must have rank >= 2")
    return [x]


_UNARY_FLOAT = {
    "tan": ("Tangent.", "Tan"),
    "asin": ("Arcsine (NaN outside [-1, 1]).", "Asin"),
    "acos": ("Arccosine (NaN outside [-1, 1]).", "Acos"),
    "atan": ("Arctangent.", "Atan"),
    "sinh": ("Hyperbolic sine.", "Sinh"),
    "cosh": ("Hyperbolic cosine.", "Cosh"),
    "asinh": ("Inverse hyperbolic sine.", "Asinh"),
    "acosh": ("Inverse hyperbolic cosine (NaN below 1).", "Acosh"),
    "atanh": ("Inverse hyperbolic tangent (NaN outside [-1, 1]).", "Atanh"),
}
_BITWISE = {
    "bitwise_and": ("Bitwise and of integers with numpy broadcasting.", "BitwiseAnd"),
    "bitwise_or": ("Bitwise or of integers with numpy broadcasting.", "BitwiseOr"),
    "bitwise_xor": ("Bitwise xor of integers with numpy broadcasting.", "BitwiseXor"),
}

register(
    *(
        OpSpec(n, ("input",), (), s, "math", infer_float_unary, o)
        for n, (s, o) in _UNARY_FLOAT.items()
    ),
    *(
        OpSpec(n, ("lhs", "rhs"), (), s, "math", infer_integer_binary, o)
        for n, (s, o) in _BITWISE.items()
    ),
    OpSpec(
        "bitwise_not",
        ("input",),
        (),
        "Bitwise complement of integers.",
        "math",
        infer_integer_unary,
        "BitwiseNot",
    ),
    OpSpec(
        "bit_shift",
        ("lhs", "rhs"),
        (AttrSpec("direction", "str", doc="LEFT or RIGHT"),),
        "Shift lhs by rhs bits (right shifts of signed types fill with the sign bit); a shift "
        "by a negative amount or by the width or more leaves only the sign fill (0 or -1).",
        "math",
        infer_bit_shift,
        "BitShift",
    ),
    OpSpec(
        "bitcast",
        ("input",),
        (AttrSpec("to", "str", doc="element type of the same width, e.g. i32 for f32"),),
        "Reinterpret the bits of each element as another type of the same width (a bool is a "
        "byte: 0 or 1, and a byte becomes the bool `!= 0`).",
        "math",
        infer_bitcast,
        "BitCast",
    ),
    OpSpec(
        "is_nan",
        ("input",),
        (),
        "x != x -> i1.",
        "math",
        infer_float_test,
        "IsNaN",
    ),
    OpSpec(
        "is_inf",
        ("input",),
        (AttrSpec("detect_negative", "int", 1), AttrSpec("detect_positive", "int", 1)),
        "x is -inf (when detect_negative) or +inf (when detect_positive) -> i1.",
        "math",
        infer_float_test,
        "IsInf",
    ),
    OpSpec(
        "trilu",
        ("input",),
        (AttrSpec("upper", "int", 1), AttrSpec("k", "int", 0)),
        "Keep the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims; the "
        "rest is zero.",
        "math",
        infer_trilu,
        "Trilu",
    ),
)
