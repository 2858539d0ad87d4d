"""Whole models in the patterns torch.onnx.export produces: a MobileNet-like CNN and a BERT-style
encoder layer; numerics against onnxruntime and the ops that remain after folding."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from helpers.onnx_models import encoder_layer, mobilenet_like
from helpers.onnx_testing import attrs, check_numerics, main_ops, op_names, rand


def test_mobilenet_like() -> None:
    module = check_numerics(mobilenet_like(), {"image": rand(1, 3, 16, 16)}, rtol=1e-4, atol=1e-5)
    assert op_names(module) == [
        "graph.conv2d",
        "graph.batch_norm",
        "graph.clip",
        "graph.pad",
        "graph.conv2d",
        "graph.clip",
        "graph.conv2d",
        "graph.relu",
        "graph.global_avg_pool2d",
        "graph.reshape",
        "graph.dense",
    ]
    ops = {op.name: op for op in main_ops(module)}
    assert attrs(ops["graph.pad"])["pads"] == (0, 0, 1, 1, 0, 0, 1, 1)
    assert attrs(ops["graph.clip"]) == {"min": 0.0, "max": 6.0}
    assert attrs(ops["graph.reshape"])["shape"] == (1, 16)
    depthwise = [op for op in main_ops(module) if op.name == "graph.conv2d"][1]
    assert attrs(depthwise)["group"] == 8


def _encoder_feeds(batch: int = 2, seq: int = 5, dim: int = 16) -> dict[str, np.ndarray]:
    mask = np.ones((batch, seq), np.int64)
    mask[1, 3:] = 0  # padding at the end of the second sequence
    return {"hidden": rand(batch, seq, dim), "attention_mask": mask}


@pytest.mark.parametrize("opset,fused", [(13, False), (14, False), (17, True)])
def test_encoder_layer(opset: int, fused: bool) -> None:
    model = encoder_layer(opset, fused_layer_norm=fused)
    module = check_numerics(model, _encoder_feeds(), rtol=1e-4, atol=1e-5)
    counts = collections.Counter(op_names(module))
    # Shape/Gather/Concat/Range of shapes, the position lookup, Identity and Dropout leave no ops.
    assert not {"graph.gather", "graph.cast", "tensor.concat"} & set(counts)
    assert (
        counts["graph.matmul"] == 8
        and counts["graph.transpose"] == 5
        and counts["graph.reshape"] == 4
    )
    assert counts["graph.softmax"] == 1 and counts["graph.erf"] == 1 and counts["graph.where"] == 1
    assert (
        counts["graph.equal"] == 1
        and counts["graph.unsqueeze"] == 1
        and counts["graph.expand"] == 1
    )
    assert counts["graph.squeeze"] == 1 and counts["graph.slice"] == 1
    if fused:
        assert counts["graph.layer_norm"] == 2 and "graph.reduce_mean" not in counts
    else:
        assert (
            counts["graph.reduce_mean"] == 4
            and counts["graph.pow"] == 2
            and counts["graph.sqrt"] == 2
        )
    text = str(module)
    # The position embedding (Range -> Gather on a constant table) is one folded parameter.
    assert '#graph.param<"gather_9_0">' in text
    assert "dense<0xFF800000> : tensor<f32>" in text  # the -inf fill of the mask is a literal


def test_encoder_layer_with_other_shapes() -> None:
    """Every shape sub-graph follows the input shapes given at import."""
    model = encoder_layer(13, batch=3, seq=7)
    check_numerics(model, _encoder_feeds(3, 7), rtol=1e-4, atol=1e-5)
