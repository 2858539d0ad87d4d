"""Scans of the `graph` dialect: cumulative sums and products along one axis."""

from __future__ import annotations

from .spec import AttrSpec, OpSpec, TensorT, need, norm_axis, register


def infer_scan(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = ins[0]
    assert x is not None
    need(x.rank >= 1, f"input {x} must have rank >= 1")
    need(x.dtype != "i1", "a scan of bools (i1) is not defined")
    norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[call-overload]
    return [x]


_ATTRS = (
    AttrSpec("axis", "int", doc="in [-rank, rank)"),
    AttrSpec("exclusive", "int", 0, "1: element i combines the elements before i only"),
    AttrSpec("reverse", "int", 0, "1: scan from the end of the axis"),
)

register(
    OpSpec(
        "cumsum",
        ("input",),
        _ATTRS,
        "Cumulative sum along `axis` (an exclusive sum starts at 0).",
        "math",
        infer_scan,
        "CumSum",
        kind="reduce",
    ),
    OpSpec(
        "cumprod",
        ("input",),
        _ATTRS,
        "Cumulative product along `axis` (an exclusive product starts at 1).",
        "math",
        infer_scan,
        "CumProd",
        kind="reduce",
    ),
)
