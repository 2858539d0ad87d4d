"""Quantization ops of the `graph` dialect: linear (de)quantization, requantization, and the
integer convolution and matrix product that int8 models run on.

Zero points are not operands of the integer products: `sum((x - zx) * (w - zw))` is rewritten
by the frontend and `graph-fuse-qdq` into a product of the raw integers plus per-channel
corrections (`dialects/graph/quant_compose.py`), so the kernels' inner loops only widen and
multiply. A convolution's padding then has to read the input's zero point: `pad_value`.
"""

from __future__ import annotations

import re

from .nn import infer_conv2d, infer_matmul
from .spec import (
    AttrSpec,
    OpSpec,
    TensorT,
    broadcast_shapes,
    is_float,
    need,
    present,
    register,
)

QUANT_TYPES = ("i8", "ui8", "i16", "ui16")
"""Element types a float tensor quantizes to."""
INTEGER_OPERAND_TYPES = ("i8", "ui8", "i16", "ui16")
"""Element types of integer conv/matmul operands (widened to i32 in the kernels)."""

QUANT_RANGE = {"i8": (-128, 127), "ui8": (0, 255), "i16": (-32768, 32767), "ui16": (0, 65535)}
"""Saturation bounds of each quantized type."""


def _broadcasts_to(t: TensorT, target: tuple[int, ...], what: str) -> None:
    need(
        len(t.shape) <= len(target) and broadcast_shapes([t.shape, target]) == target,
        f"{what} {t} does not broadcast to {list(target)}",
    )


def infer_quantize(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, scale, zp = present(ins, 0), present(ins, 1), present(ins, 2)
    need(is_float(x.dtype), f"input {x} is not a float tensor")
    need(scale.dtype == x.dtype, f"scale {scale} must have the input's element type {x.dtype}")
    need(zp.dtype in QUANT_TYPES, f"zero point {zp} is not one of {', '.join(QUANT_TYPES)}")
    _broadcasts_to(scale, x.shape, "scale")
    _broadcasts_to(zp, x.shape, "zero point")
    return [TensorT(x.shape, zp.dtype)]


def infer_dequantize(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, scale, zp = present(ins, 0), present(ins, 1), present(ins, 2)
    need(x.dtype in QUANT_TYPES + ("i32",), f"input {x} is not an 8/16-bit or i32 tensor")
    need(zp.dtype == x.dtype, f"zero point {zp} must have the input's element type {x.dtype}")
    need(is_float(scale.dtype), f"scale {scale} is not a float tensor")
    _broadcasts_to(scale, x.shape, "scale")
    _broadcasts_to(zp, x.shape, "zero point")
    return [TensorT(x.shape, scale.dtype)]


def infer_requantize(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    acc, mult, zp = present(ins, 0), present(ins, 1), present(ins, 2)
    need(acc.dtype == "i32", f"accumulator {acc} is not an i32 tensor")
    need(is_float(mult.dtype), f"multiplier {mult} is not a float tensor")
    need(zp.dtype in QUANT_TYPES, f"zero point {zp} is not one of {', '.join(QUANT_TYPES)}")
    _broadcasts_to(mult, acc.shape, "multiplier")
    _broadcasts_to(zp, acc.shape, "zero point")
    return [TensorT(acc.shape, zp.dtype)]


TABLE_SIZE = 256
"""Entries of a `lookup` table: one per value of an 8-bit integer."""


def infer_lookup(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, table = present(ins, 0), present(ins, 1)
    to = str(attrs["to"])
    need(x.dtype in ("i8", "ui8"), f"input {x} is not an i8 or ui8 tensor")
    need(
        table.shape == (TABLE_SIZE,) and table.dtype == "i32",
        f"table {table} is not a tensor<{TABLE_SIZE}xi32>",
    )
    need(to in QUANT_TYPES, f"to '{to}' is not one of {', '.join(QUANT_TYPES)}")
    return [TensorT(x.shape, to)]


def _integer_operands(ins: list[TensorT | None]) -> tuple[TensorT, TensorT]:
    a, b = present(ins, 0), present(ins, 1)
    for t in (a, b):
        need(
            t.dtype in INTEGER_OPERAND_TYPES,
            f"operand {t} is not one of {', '.join(INTEGER_OPERAND_TYPES)}",
        )
    return a, b


DOT4_LAYOUT = re.compile(r"OIHW(\d+)i(\d+)o4i")
"""Weights packed for 4-way int8 dot products: OIHW<q>i<o>o4i is [O/o, I/4q, KH, KW, q, o, 4],
the input channels of a block in q groups of 4 consecutive ones (the innermost dim)."""


def dot4_kernel_layout(layout: str) -> tuple[int, int] | None:
    """`OIHW2i8o4i` -> (8, 8): the (input, output) channel blocks of a packed layout; None for
    any other layout."""
    m = DOT4_LAYOUT.fullmatch(layout)
    return (4 * int(m.group(1)), int(m.group(2))) if m else None


def _dot4_operands(x: TensorT, w: TensorT) -> None:
    need(
        x.dtype == "ui8" and w.dtype == "i8",
        f"4-way dot layouts multiply ui8 inputs by i8 weights, got {x.dtype} and {w.dtype}",
    )


def infer_conv2d_integer(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, w = _integer_operands(ins)
    lo, hi = QUANT_RANGE[x.dtype]
    pad = int(attrs["pad_value"])  # type: ignore[call-overload]
    need(lo <= pad <= hi, f"pad_value {pad} is outside the range of the input type {x.dtype}")
    packed = dot4_kernel_layout(str(attrs["kernel_layout"]))
    if packed is not None:  # the shape rule of the same weights in OIHW<i>i<o>o
        _dot4_operands(x, w)
        need(
            w.rank == 7 and w.shape[6] == 4, f"weight {w} is not packed as {attrs['kernel_layout']}"
        )
        w = TensorT(w.shape[:4] + (w.shape[4] * 4, w.shape[5]), w.dtype)
        attrs = dict(attrs, kernel_layout=f"OIHW{packed[0]}i{packed[1]}o")
    (out,) = infer_conv2d([TensorT(x.shape, "f32"), TensorT(w.shape, "f32")], attrs)
    return [TensorT(out.shape, "i32")]


def infer_matmul_integer(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    a, b = _integer_operands(ins)
    layout = str(attrs["rhs_layout"])
    need(layout in ("KN", "KN4k"), f"rhs_layout '{layout}' is not KN or KN4k")
    if layout == "KN4k":  # [K/4, N, 4]: the shape rule of the [K, N] matrix it packs
        _dot4_operands(a, b)
        need(b.rank == 3 and b.shape[2] == 4, f"rhs {b} is not packed as KN4k ([K/4, N, 4])")
        b = TensorT((b.shape[0] * 4, b.shape[1]), b.dtype)
    (out,) = infer_matmul([TensorT(a.shape, "f32"), TensorT(b.shape, "f32")], attrs)
    return [TensorT(out.shape, "i32")]


register(
    OpSpec(
        "lookup",
        ("input", "table"),
        (AttrSpec("to", "str", doc="the result's element type: i8, ui8, i16 or ui16"),),
        "table[x - min(x's type)] as `to`: a function of an 8-bit integer, tabulated.",
        "misc",
        infer_lookup,
        "",
        doc="graph-lookup-tables writes an elementwise chain from one quantized tensor to a "
        "quantize_linear (QLinearSigmoid, a SiLU) as one; the i32 entries must lie in the range "
        "of `to` (a vector gather of 32-bit words in the kernels).",
        kind="elemwise",
    ),
    OpSpec(
        "quantize_linear",
        ("input", "scale", "zero_point"),
        (),
        "saturate(round_half_even(x / scale) + zero_point), in the zero point's type.",
        "misc",
        infer_quantize,
        "QuantizeLinear",
        doc="scale and zero_point broadcast to the input (per-axis and blocked scales are "
        "reshaped and expanded by the importer).",
        kind="elemwise",
    ),
    OpSpec(
        "dequantize_linear",
        ("input", "scale", "zero_point"),
        (),
        "(x - zero_point) * scale: the difference in i32, converted to float, then multiplied.",
        "misc",
        infer_dequantize,
        "DequantizeLinear",
        kind="elemwise",
    ),
    OpSpec(
        "requantize",
        ("input", "multiplier", "zero_point"),
        (),
        "saturate(round_half_even(f64(acc) * f64(multiplier)) + zero_point) of an i32 accumulator.",
        "misc",
        infer_requantize,
        "",
        doc="The output stage of QLinearConv / QLinearMatMul. The product is exact in f64 "
        "(ONNX's reference computes it in f64 too); the multiplier is x_scale * w_scale / "
        "y_scale in the scales' own type.",
        kind="elemwise",
    ),
    OpSpec(
        "conv2d_integer",
        ("input", "weight"),
        (
            AttrSpec("strides", "ints", (1, 1)),
            AttrSpec("pads", "ints", (0, 0, 0, 0), "[top, left, bottom, right]"),
            AttrSpec("dilations", "ints", (1, 1)),
            AttrSpec("group", "int", 1),
            AttrSpec("pad_value", "int", 0, "what the input reads outside its bounds"),
            AttrSpec("data_layout", "str", "NCHW"),
            AttrSpec("kernel_layout", "str", "OIHW", "OIHW, OIHW<i>i<o>o or OIHW<q>i<o>o4i"),
            AttrSpec("out_layout", "str", "NCHW"),
        ),
        "2-D convolution of 8/16-bit integers accumulated in i32 (no zero points).",
        "nn",
        infer_conv2d_integer,
        "ConvInteger",
        kind="compute",
    ),
    OpSpec(
        "matmul_integer",
        ("lhs", "rhs"),
        (
            AttrSpec(
                "rhs_layout",
                "str",
                "KN",
                "KN, or KN4k: [K/4, N, 4], four consecutive k innermost (4-way dot products)",
            ),
        ),
        "numpy.matmul of 8/16-bit integers accumulated in i32 (no zero points).",
        "nn",
        infer_matmul_integer,
        "MatMulInteger",
        kind="compute",
    ),
)
