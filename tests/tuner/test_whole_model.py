"""The whole-model comparison after tuning: default and tuned builds timed in pairs."""

from __future__ import annotations

import pathlib

import pytest

from helpers.tuner_models import dense_net
from mlc.frontend import from_onnx
from mlc.runtime import GraphModule
from mlc.runtime.benchmark import BenchmarkResult
from mlc.tuning import compare_whole_model


def test_tuned_latency_is_the_paired_ratio(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host's speed changes from round to round; the tuned build is 2x faster in two of
    the three rounds. The medians of each build's samples (4 and 2.5 ms) would say 1.6x, as
    they come from different rounds; the median of the pairs says 2x."""
    rounds = iter(
        [
            ([1.0e-3] * 3, [0.5e-3] * 3),
            ([4.0e-3] * 3, [3.9e-3] * 3),
            ([5.0e-3] * 3, [2.5e-3] * 3),
        ]
    )
    calls: list[dict[str, object]] = []

    def fake(self: GraphModule, others: list[GraphModule], **kwargs: object) -> list[object]:
        calls.append(kwargs)
        a, b = next(rounds)
        return [BenchmarkResult(tuple(a), 1, 0), BenchmarkResult(tuple(b), 1, 0)]

    monkeypatch.setattr(GraphModule, "benchmark_interleaved", fake)
    monkeypatch.setattr("mlc.tuning.SETTLE_S", 0.0)
    records = tmp_path / "r.jsonl"
    records.write_text("")
    module, params = from_onnx(dense_net())
    default_ms, tuned_ms = compare_whole_model(module, params, 1, str(records), rounds=3, number=3)
    assert default_ms == pytest.approx(4.0)  # the median of the default's nine samples
    assert default_ms / tuned_ms == pytest.approx(2.0)
    assert all(c["number"] == 1 and c["repeat"] == 3 for c in calls)
