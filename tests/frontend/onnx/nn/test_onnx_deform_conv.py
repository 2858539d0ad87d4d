"""DeformConv 19/22: sampled columns (graph.deform_im2col) times the weights, per group."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

from helpers.onnx_testing import (
    check_numerics,
    import_model,
    node_model,
    op_names,
    rand,
    run_compiled,
    run_mlc,
    run_ort,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

X = rand(2, 4, 6, 7)


def _model(
    opset: int,
    group: int = 1,
    offset_group: int = 1,
    mask: bool = False,
    bias: bool = False,
    **attrs: Any,
) -> tuple[Any, dict[str, np.ndarray]]:
    kh, kw = 2, 3
    strides = attrs.get("strides", [1, 1])
    pads = attrs.get("pads", [0, 0, 0, 0])
    dil = attrs.get("dilations", [1, 1])
    oh = (6 + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (7 + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    feeds = {
        "x": X,
        "w": rand(6, 4 // group, kh, kw, seed=1),
        "offset": rand(2, offset_group * kh * kw * 2, oh, ow, seed=2, low=-2, high=2),
    }
    order = ["x", "w", "offset"]
    if bias or mask:
        feeds["b"] = rand(6, seed=3)
        order.append("b" if bias else "")
        if not bias:
            del feeds["b"]
    if mask:
        feeds["mask"] = rand(2, offset_group * kh * kw, oh, ow, seed=4, low=0, high=1)
        order.append("mask")
    model = node_model(
        "DeformConv",
        feeds,
        order=order,
        opset=opset,
        group=group,
        offset_group=offset_group,
        **attrs,
    )
    return model, feeds


@pytest.mark.parametrize("opset", [19, 22])
def test_plain(opset: int) -> None:
    model, feeds = _model(opset)
    # onnxruntime has no DeformConv-22 (it only added bfloat16): ONNX's reference is the oracle
    oracle = ReferenceEvaluator(model).run(None, feeds) if opset >= 22 else run_ort(model, feeds)
    expected = oracle[0]
    module, params = import_model(model)
    np.testing.assert_allclose(run_mlc(module, params, feeds)[0], expected, rtol=1e-5, atol=1e-5)
    assert op_names(module) == [
        "graph.deform_im2col",
        "graph.reshape",
        "graph.reshape",
        "graph.matmul",
        "graph.reshape",
    ]


@pytest.mark.parametrize(
    "extra",
    [
        {"group": 2, "mask": True, "bias": True},
        {"offset_group": 2, "strides": [2, 1], "pads": [1, 0, 1, 2], "dilations": [1, 2]},
        {"group": 2, "offset_group": 4, "mask": True},
    ],
    ids=["groups_mask_bias", "offset_groups_strided", "group_and_offset_group"],
)
def test_groups_masks_and_windows(extra: dict[str, Any]) -> None:
    model, feeds = _model(19, **extra)
    check_numerics(model, feeds, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run_compiled(model, feeds)[0], run_ort(model, feeds)[0], atol=1e-4)


def test_3d_is_rejected_with_the_node_name() -> None:
    x, w = rand(1, 2, 3, 3, 3), rand(2, 2, 1, 1, 1)
    model = node_model("DeformConv", {"x": x, "w": w, "o": rand(1, 3, 3, 3, 3)}, opset=19)
    with pytest.raises(UnsupportedOpError, match="DeformConv node 'deformconv_node'.*2-D"):
        from_onnx(model)
