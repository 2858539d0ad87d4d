"""Normalizations of the `graph` dialect beyond layer_norm: RMS, group, mean-variance and Lp.

Each is one kernel (an anchor that reduces into per-slice statistics and returns the
normalization as a pending elementwise step). Half-precision inputs are normalized in f32,
the `stash_type` ONNX uses by default.
"""

from __future__ import annotations

from .spec import (
    AttrSpec,
    OpSpec,
    TensorT,
    broadcast_shapes,
    ints,
    is_float,
    need,
    norm_axis,
    register,
    same_dtype,
)


def _float_input(ins: list[TensorT | None]) -> TensorT:
    x = ins[0]
    assert x is not None
    dtype = same_dtype(ins)
    need(is_float(dtype), f"element type {dtype} is not a float type")
    return x


def infer_rms_norm(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _float_input(ins)
    axis = norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[call-overload]
    tail = x.shape[axis:]
    scale = ins[1]
    assert scale is not None
    need(
        broadcast_shapes([scale.shape, tail]) == tail,
        f"scale {scale} must broadcast to {list(tail)}",
    )
    return [x]


def infer_group_norm(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _float_input(ins)
    need(x.rank >= 2, f"input {x} must have rank >= 2 (N, C, ...)")
    groups, channels = int(attrs["num_groups"]), x.shape[1]  # type: ignore[call-overload]
    need(
        groups >= 1 and channels % groups == 0,
        f"num_groups {groups} must be positive and divide the {channels} channels",
    )
    for t in ins[1:]:
        need(t is not None and t.shape == (channels,), f"scale/bias {t} must be [{channels}]")
    return [x]


def infer_mean_variance_norm(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _float_input(ins)
    axes = [norm_axis(a, x.rank) for a in ints(attrs, "axes")]
    need(len(set(axes)) == len(axes) and axes, "axes must be distinct and not empty")
    return [x]


def infer_lp_norm(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _float_input(ins)
    norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[call-overload]
    need(int(attrs["p"]) in (1, 2), f"p must be 1 or 2, got {attrs['p']}")  # type: ignore[call-overload]
    return [x]


register(
    OpSpec(
        "rms_norm",
        ("input", "scale"),
        (AttrSpec("axis", "int", -1), AttrSpec("epsilon", "float", 1e-5)),
        "x / sqrt(mean(x^2) + epsilon) * scale, the mean over the dims from `axis` on.",
        "nn",
        infer_rms_norm,
        "RMSNormalization",
        kind="reduce",
    ),
    OpSpec(
        "group_norm",
        ("input", "scale", "bias"),
        (AttrSpec("num_groups", "int"), AttrSpec("epsilon", "float", 1e-5)),
        "(x - mean) / sqrt(var + epsilon) per (instance, group of channels), then per-channel "
        "scale and bias.",
        "nn",
        infer_group_norm,
        "GroupNormalization",
        kind="reduce",
    ),
    OpSpec(
        "mean_variance_norm",
        ("input",),
        (AttrSpec("axes", "ints"), AttrSpec("epsilon", "float", 1e-9)),
        "(x - mean) / (sqrt(var) + epsilon), statistics over `axes` (ONNX's epsilon is 1e-9).",
        "nn",
        infer_mean_variance_norm,
        "MeanVarianceNormalization",
        kind="reduce",
    ),
    OpSpec(
        "lp_norm",
        ("input",),
        (AttrSpec("axis", "int", -1), AttrSpec("p", "int", 2)),
        "x / ||x||_p along `axis` (p = 1 or 2); zero where the norm is zero.",
        "nn",
        infer_lp_norm,
        "LpNormalization",
        kind="reduce",
    ),
)
