"""Element types of the tp script DSL: numpy-style names <-> MLIR types."""

from __future__ import annotations

from mlir import ir

_NAMES = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "bool": "i1",
    "index": "index",
}
DTYPES = tuple(_NAMES)


def mlir_type(dtype: str) -> ir.Type | None:
    """The MLIR type of a DSL dtype name (needs a context), or None when it is not one."""
    text = _NAMES.get(dtype)
    return None if text is None else ir.Type.parse(text)


def dtype_name(t: ir.Type) -> str | None:
    """The DSL name of an MLIR scalar type, or None when the DSL has none."""
    text = str(t)
    return next((name for name, mlir in _NAMES.items() if mlir == text), None)


def is_float(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def is_int(t: ir.Type) -> bool:
    return isinstance(t, (ir.IntegerType, ir.IndexType))


def bit_width(t: ir.Type) -> int:
    if isinstance(t, ir.IndexType):
        return 64
    if isinstance(t, ir.IntegerType):
        return t.width
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[str(t)]
