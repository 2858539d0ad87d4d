"""`mlc tune --plot`: the tuning curves (best-so-far GFLOP/s per task against trials and wall
time, the default schedule as a baseline) drawn from the records, as a titled PNG."""

from __future__ import annotations

import pathlib
from types import SimpleNamespace

import pytest

from helpers.imports import block_import
from helpers.png import png_info
from helpers.tuner_models import dense_net, save
from mlc.driver import _main
from mlc.plot import plot_tuning, tuning_curves
from mlc.tuner.records import Record

pytest.importorskip("xgboost")
FAST = ["--repeat", "1", "--min-repeat-ms", "0", "--parallel", "2", "--no-graph-knobs"]


def _record(workload: str, cost_ms: float | None, t: float, **kw: object) -> Record:
    error = "" if cost_ms is not None else "run: crashed with SIGSEGV"
    return Record(workload, "b", "{}", cost_ms, error=error, timestamp=t, **kw)  # type: ignore[arg-type]


def test_curves_are_best_so_far_with_the_default_as_baseline() -> None:
    task = SimpleNamespace(
        workload="w1", block="b", threads=1, flops=2_000_000, kernel="k", weight=3
    )
    idle = SimpleNamespace(workload="w2", block="b", threads=1, flops=10, kernel="copy", weight=1)
    records = [
        _record("w1", 2.0, 100.0, default=True),
        _record("w1", 4.0, 101.0),
        _record("w1", None, 102.0),  # an error is a trial that keeps the best so far
        _record("w1", 1.0, 160.0),
        _record("w1", 0.5, 161.0, remeasured=True),  # a re-timing, not a trial
        _record("w1", 3.0, 170.0, threads=2),  # another thread count's task
        _record("w2", 1.0, 171.0, default=True),  # no trials: not drawn
    ]
    (curve,) = tuning_curves(records, [task, idle])  # type: ignore[list-item]
    assert curve.label == "k (x3)" and curve.default_gflops == pytest.approx(1.0)
    assert curve.trials == (1, 2, 3)
    assert curve.best_gflops == pytest.approx((0.5, 0.5, 2.0))
    assert curve.seconds == pytest.approx((1.0, 2.0, 60.0))


def test_tune_plot_writes_a_titled_png(tmp_path: pathlib.Path) -> None:
    model = save(dense_net(), tmp_path, "dense")
    png = tmp_path / "tuning.png"
    argv = ["-q", "tune", str(model), "-o", str(tmp_path / "r.jsonl"), "--trials", "3"]
    assert _main([*argv, *FAST, "--plot", str(png)]) == 0
    width, height, title = png_info(png)
    assert 600 <= width <= 3000 and 300 <= height <= 3000
    assert title == "mlc tune: dense.onnx"
    # an empty run (no tasks with trials) still draws the axes
    plot_tuning([], tmp_path / "empty.png", title="nothing")
    assert png_info(tmp_path / "empty.png")[2] == "nothing"


def test_tune_plot_without_matplotlib_is_exit_5_before_tuning(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    block_import(monkeypatch, "matplotlib")
    model = save(dense_net(), tmp_path, "dense")
    records = tmp_path / "r.jsonl"
    argv = ["tune", str(model), "-o", str(records), "--plot", str(tmp_path / "t.png")]
    assert _main(argv) == 5
    assert "pip install 'mlc[plot]'" in capsys.readouterr().err
    assert not records.exists()
