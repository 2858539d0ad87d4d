"""An SSD/FPN-like detection head (convs, Resize + Concat of feature maps, ConvTranspose,
TopK over the scores, Gather of the boxes) compiled by mlc against onnxruntime."""

from __future__ import annotations

import collections

import numpy as np

from helpers.onnx_detection import detection_head
from helpers.onnx_testing import import_model, op_names, rand, run_compiled, run_ort

K = 20
SEED = 3


def test_detection_head_matches_onnxruntime() -> None:
    model = detection_head(k=K)
    feeds = {"image": rand(1, 3, 48, 48, seed=SEED)}
    scores, indices, boxes = run_ort(model, feeds)
    # The oracle's k + 1 best scores must be well separated (10x the float32 rounding
    # differences of two convolution orders), or rounding could legitimately swap ranks.
    best = run_ort(detection_head(k=K + 1), feeds)[0].reshape(-1)
    assert np.min(-np.diff(best)) > 1e-5 * best[0]
    got = run_compiled(model, feeds)
    assert [a.dtype for a in got] == [np.float32, np.int64, np.float32]
    np.testing.assert_allclose(got[0], scores, rtol=1e-3, atol=1e-6)
    np.testing.assert_array_equal(got[1], indices)
    np.testing.assert_allclose(got[2], boxes, rtol=1e-3, atol=1e-5 * np.abs(boxes).max())


def test_detection_head_ops() -> None:
    counts = collections.Counter(op_names(import_model(detection_head(k=K))[0]))
    assert counts["graph.conv2d"] == 5 + 4  # 5 convs + ConvTranspose's four phases
    assert counts["graph.resample"] == 2  # the bilinear Resize, one per axis
    assert counts["graph.expand"] == 2  # nearest 2x: a broadcast per axis
    assert counts["graph.topk"] == 1 and counts["graph.take_along_axis"] == 1
    assert counts["tensor.concat"] == 3  # two channel concats, the phase stack
