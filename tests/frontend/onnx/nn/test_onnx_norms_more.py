"""RMSNormalization, GroupNormalization (18: per-group scale/bias, 21: per-channel),
MeanVarianceNormalization and LpNormalization: one graph op each, numerics vs onnxruntime
(reference interpreter and compiled), unsupported attributes and old opsets."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    node_model,
    op_names,
    rand,
    run_compiled,
    run_ort,
    the_op,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

X = (rand(2, 6, 3, 4, seed=1) * 2 + 3).astype(np.float32)


def _both(model, feeds, rtol=1e-4, atol=1e-5):  # type: ignore[no-untyped-def]
    module = check_numerics(model, feeds, rtol=rtol, atol=atol)
    for got, want in zip(run_compiled(model, feeds), run_ort(model, feeds)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return module


@pytest.mark.parametrize("axis", [-1, 1, 2])
def test_rms_norm(axis: int) -> None:
    scale = rand(*X.shape[axis % 4 :], seed=2)
    model = node_model(
        "RMSNormalization", {"x": X}, consts={"scale": scale}, opset=23, axis=axis, epsilon=1e-3
    )
    module = _both(model, {"x": X})
    assert attrs(the_op(module, "graph.rms_norm")) == {
        "axis": axis % 4,
        "epsilon": pytest.approx(1e-3),
    }


def test_rms_norm_f16() -> None:
    xh, scale = X.astype(np.float16), rand(4, seed=2).astype(np.float16)
    model = node_model(
        "RMSNormalization", {"x": xh}, consts={"scale": scale}, opset=23, out_dtypes=[np.float16]
    )
    _both(model, {"x": xh}, rtol=2e-3, atol=2e-3)


def test_rms_norm_rejects_other_stash_types_and_old_opsets() -> None:
    scale = {"scale": rand(4)}
    with pytest.raises(UnsupportedOpError, match="stash_type 11 is not supported"):
        from_onnx(node_model("RMSNormalization", {"x": X}, consts=scale, opset=23, stash_type=11))
    with pytest.raises(UnsupportedOpsetError, match="earliest implemented version 23"):
        from_onnx(node_model("RMSNormalization", {"x": X}, consts=scale, opset=22))


@pytest.mark.parametrize("groups", [1, 2, 3, 6])
def test_group_norm_21_per_channel(groups: int) -> None:
    consts = {"scale": rand(6, seed=3), "bias": rand(6, seed=4)}
    model = node_model(
        "GroupNormalization", {"x": X}, consts=consts, opset=21, num_groups=groups, epsilon=1e-3
    )
    module = _both(model, {"x": X})
    assert op_names(module) == ["graph.group_norm"]


@pytest.mark.parametrize("groups", [2, 3])
def test_group_norm_18_per_group(groups: int) -> None:
    """Opset 18: one scale and bias per group, used for every channel of the group."""
    consts = {"scale": rand(groups, seed=3), "bias": rand(groups, seed=4)}
    model = node_model("GroupNormalization", {"x": X}, consts=consts, opset=18, num_groups=groups)
    _both(model, {"x": X})


def test_group_norm_18_with_computed_scale_and_bias() -> None:
    """Computed per-group parameters are repeated per channel by graph ops (expand)."""
    scale, bias = rand(3, seed=3), rand(3, seed=4)
    model = node_model(
        "GroupNormalization", {"x": X, "s": scale, "b": bias}, opset=18, num_groups=3
    )
    module = _both(model, {"x": X, "s": scale, "b": bias})
    assert op_names(module).count("graph.expand") == 2


def test_group_norm_parameter_shapes_and_groups_are_checked() -> None:
    per_group = {"scale": rand(2), "bias": rand(2)}
    with pytest.raises(
        UnsupportedOpError, match=r"input 1 must have one value per channel \(\[6\]\)"
    ):
        from_onnx(
            node_model("GroupNormalization", {"x": X}, consts=per_group, opset=21, num_groups=2)
        )
    with pytest.raises(UnsupportedOpError, match="num_groups 4 does not divide the 6 channels"):
        from_onnx(
            node_model("GroupNormalization", {"x": X}, consts=per_group, opset=18, num_groups=4)
        )
    with pytest.raises(UnsupportedOpsetError, match="earliest implemented version 18"):
        from_onnx(
            node_model("GroupNormalization", {"x": X}, consts=per_group, opset=17, num_groups=2)
        )


@pytest.mark.parametrize("opset", [9, 13])
@pytest.mark.parametrize("axes", [None, [1], [0, 1, 2, 3], [-1, -2]])
def test_mean_variance_norm(opset: int, axes: list[int] | None) -> None:
    extra = {} if axes is None else {"axes": axes}
    model = node_model("MeanVarianceNormalization", {"x": X}, opset=opset, **extra)
    module = _both(model, {"x": X})
    expected = sorted(a % 4 for a in axes) if axes else [0, 2, 3]
    assert attrs(the_op(module, "graph.mean_variance_norm"))["axes"] == tuple(expected)


@pytest.mark.parametrize("opset", [1, 22])
@pytest.mark.parametrize("p,axis", [(2, -1), (1, 1), (2, 0)])
def test_lp_norm(opset: int, p: int, axis: int) -> None:
    x = X - 3
    x[0, :, 1, 2] = 0.0  # a zero slice along axis 1: zeros out
    model = node_model("LpNormalization", {"x": x}, opset=max(opset, 7), p=p, axis=axis)
    _both(model, {"x": x}, rtol=1e-5, atol=1e-6)


def test_lp_norm_other_p_is_rejected() -> None:
    with pytest.raises(UnsupportedOpError, match=r"LpNormalization node .*: p=3 is not supported"):
        from_onnx(node_model("LpNormalization", {"x": X}, opset=22, p=3))
