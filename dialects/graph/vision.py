"""Sampling and selection ops of the `graph` dialect: resampling along an axis with static
tap tables (what Resize becomes), and more image-model primitives.
"""

from __future__ import annotations

from .spec import (
    AttrSpec,
    OpSpec,
    TensorT,
    is_float,
    need,
    norm_axis,
    register,
)


def _t(ins: list[TensorT | None], i: int) -> TensorT:
    t = ins[i]
    assert t is not None
    return t


def infer_resample(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, idx, w = _t(ins, 0), _t(ins, 1), _t(ins, 2)
    need(is_float(x.dtype), f"element type {x.dtype} is not a float type")
    axis = norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[call-overload]
    need(idx.dtype == "i64", f"indices must be i64, got {idx.dtype}")
    need(
        idx.rank == 2 and w.shape == idx.shape,
        f"indices {idx} and weights {w} must both be [taps, output size]",
    )
    want = "f64" if x.dtype == "f64" else "f32"
    need(w.dtype == want, f"weights of a {x.dtype} input must be {want}, got {w.dtype}")
    shape = list(x.shape)
    shape[axis] = idx.shape[1]
    return [TensorT(tuple(shape), x.dtype)]


register(
    OpSpec(
        "resample",
        ("input", "indices", "weights"),
        (AttrSpec("axis", "int"),),
        "out[..., o, ...] = sum_t weights[t, o] * input[..., indices[t, o], ...] along `axis`.",
        "nn",
        infer_resample,
        "",
        doc="Separable interpolation (linear, cubic, antialiased) with tap tables computed at "
        "import; indices lie in [0, size). Half inputs are weighted in f32 and rounded once.",
        kind="compute",
    ),
)
