"""bench/bench_decode.py's loop and report on the tiny decoder (no torch; nothing timed)."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
import bench_decode  # noqa: E402

from helpers.decoder_models import tiny_decoder  # noqa: E402


def test_signature_of_a_model_without_a_cache_is_an_error() -> None:
    from helpers.onnx_models import mobilenet_like

    with pytest.raises(ValueError, match="no past_key_values"):
        bench_decode.DecoderSignature.of(mobilenet_like())


def test_a_runner_whose_cache_does_not_grow_stops_the_loop() -> None:
    model = tiny_decoder()
    signature = bench_decode.DecoderSignature.of(model)
    run = bench_decode.onnxruntime_runner(model)

    def stale(feed):  # type: ignore[no-untyped-def]
        out = run(feed)
        past = feed["past_key_values.0.key"]
        return {**out, "present.0.key": past if past.shape[2] else out["present.0.key"]}

    with pytest.raises(
        ValueError, match=r"step 1: past_key_values.0.key has shape .*past\+seq is 4"
    ):
        bench_decode.greedy_decode(stale, signature, np.zeros((1, 3), np.int64), steps=4)


def test_agreement_counts_steps_up_to_the_first_different_token() -> None:
    def result(tokens: list[int], scale: float) -> bench_decode.DecodeResult:
        logits = [np.full((1, 5), scale * (i + 1), np.float32) for i in range(len(tokens))]
        return bench_decode.DecodeResult(np.array([tokens]), logits, 0.0, [1.0] * len(tokens))

    want = result([1, 2, 3, 4], 1.0)
    assert bench_decode.agreement(want, want) == (4, 0.0)
    agreed, error = bench_decode.agreement(result([1, 2, 0, 4], 1.01), want)
    assert agreed == 2 and error == pytest.approx(0.01, rel=1e-4)


def test_report_has_an_onnxruntime_row_and_an_mlc_row(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """mlc's row is its tokens/s and agreement once it compiles the model, its error until then."""
    monkeypatch.setattr(bench_decode, "compile_with_mlc", _fails)
    args = argparse.Namespace(prompt=3, steps=4, batch=2, rounds=2, threads=1)
    lines = bench_decode.bench(tiny_decoder(), args)
    rows = [line for line in lines if line.startswith("| ") and "peer" not in line]
    assert rows[0].startswith("| onnxruntime | ") and "| 4/4 | 0.0e+00 |" in rows[0]
    assert rows[1] == "| mlc: MlcError: cannot compile | | | | |"


def _fails(model: object, threads: int) -> bench_decode.Runner:
    from mlc.errors import MlcError

    raise MlcError("cannot compile")


def test_report_of_a_peer_that_runs_has_its_speed_and_agreement(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(
        bench_decode, "compile_with_mlc", lambda m, t: bench_decode.onnxruntime_runner(m, t)
    )
    args = argparse.Namespace(prompt=2, steps=3, batch=1, rounds=1, threads=1)
    lines = bench_decode.bench(tiny_decoder(), args)
    (row,) = [line for line in lines if line.startswith("| mlc |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert float(cells[1]) > 0 and float(cells[2]) > 0 and cells[3:] == ["3/3", "0.0e+00"]
