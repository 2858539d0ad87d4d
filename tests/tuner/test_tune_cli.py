"""`mlc tune` end to end on small models: the task table, records that `mlc compile` applies
(with its coverage line) and that compute the same numbers; a run killed half-way and resumed
loses no record and measures nothing twice; bad flags, models and records are clear errors."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from helpers.onnx_testing import run_ort
from helpers.tuner_models import conv_net, dense_net, save
from mlc.driver import _main
from mlc.runtime import GraphModule, load_module
from mlc.tuner.records import load_records, read_records, workload_table_path

pytest.importorskip("xgboost")
FAST = ["--repeat", "1", "--min-repeat-ms", "0", "--parallel", "2", "--no-graph-knobs"]


def test_tune_then_compile_with_the_records(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = save(conv_net(), tmp_path, "conv")
    records = tmp_path / "r.jsonl"
    records.write_text("not a record\n")  # a line to warn about, never to fail on
    argv = ["tune", str(model), "-o", str(records), "--trials", "8", "--threads", "2", *FAST]
    assert _main(argv) == 0
    out, err = capsys.readouterr()
    assert "4 tasks (kernel workloads), by share of the model's latency:" in out
    assert "fused_conv2d_relu_1" in out and "fused_conv2d_relu_2" in out
    assert "whole model: default" in out and "measured in this process" in out
    assert "r.jsonl:1: not a JSON object" in err and "the line was left alone" in err
    log = read_records(records)
    assert len(log.problems) == 1
    by_kernel: dict[str, list] = {}
    for r in log.records:
        by_kernel.setdefault(r.kernel, []).append(r)
    assert len(by_kernel) == 4
    for kernel, rs in by_kernel.items():
        assert rs[0].default and rs[0].ok, kernel
        assert all(r.threads == 2 and r.target["cpu"] and r.pipeline for r in rs)
        trials = [r for r in rs if not r.default and not r.remeasured]
        assert len({r.schedule for r in trials}) == len(trials)
        if kernel.startswith("fused_conv2d"):
            assert len(trials) == 8 and all(r.ok for r in trials), kernel
    assert workload_table_path(records).is_file()

    package = tmp_path / "tuned.tar"
    argv = ["compile", str(model), "-o", str(package), "--threads", "2"]
    assert _main([*argv, "--tuning-records", str(records)]) == 0
    out, err = capsys.readouterr()
    assert "applied tuned schedules to 4 of 4 kernels (at " in out
    assert "of their default latency" in out and "r.jsonl:1: not a JSON object" in err
    gm = GraphModule(load_module(package))
    x = np.random.default_rng(0).standard_normal((1, 8, 28, 28)).astype(np.float32)
    gm.run(x=x)
    (want,) = run_ort(conv_net(), {"x": x})
    np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-4, atol=1e-4)

    # compiled for another thread count: nothing applies, and the warning says why
    assert (
        _main(
            [
                "compile",
                str(model),
                "-o",
                str(tmp_path / "one.tar"),
                "--tuning-records",
                str(records),
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert "applied tuned schedules to 0 of 4 kernels" in out
    assert "were measured for another target or thread count" in err


@pytest.mark.parametrize("flag", ["--cold-weights", "--no-cold-weights"])
def test_tune_with_and_without_cold_weights(tmp_path: pathlib.Path, flag: str) -> None:
    """Cold weights (the default) or warm caches with --number calls per sample
    (MeasureOptions.cold_weights; what it does is tested in test_measure): the tune ends with
    records either way."""
    model = save(dense_net(), tmp_path, "dense")
    records = tmp_path / "r.jsonl"
    argv = ["tune", str(model), "-o", str(records), "--trials", "2", flag, *FAST]
    assert _main(argv) == 0
    log = load_records(records)
    assert log[0].default and log[0].ok and sum(not r.default for r in log) >= 2


def _tune_command(model: pathlib.Path, records: pathlib.Path) -> list[str]:
    return [
        sys.executable, "-m", "mlc.driver", "tune", str(model), "-o", str(records),
        "--tuner", "random", "--trials", "20", "--json", *FAST,
    ]  # fmt: skip


def test_a_killed_run_resumes_losing_and_remeasuring_nothing(tmp_path: pathlib.Path) -> None:
    model = save(dense_net(), tmp_path, "dense")
    records = tmp_path / "r.jsonl"
    proc = subprocess.Popen(
        _tune_command(model, records),
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if records.exists() and records.read_text().count("\n") >= 7:
                break
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the driver and its worker processes
        proc.wait()
    before = records.read_text()
    complete = before[: before.rfind("\n") + 1]
    (tmp_path / "before.jsonl").write_text(complete)
    kept = [r for r in load_records(tmp_path / "before.jsonl") if not r.default]
    assert 6 <= len(kept) < 20, "the run was not killed half-way"

    done = subprocess.run(
        _tune_command(model, records), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    (task,) = json.loads(done.stdout)["tasks"]
    assert task["resumed"] == len(kept) and task["trials"] == 20 - len(kept)
    assert isinstance(task["unsteady"], bool) and task["default_drift"] > 0
    after = records.read_text()
    assert after.startswith(complete)  # nothing measured before the kill was lost
    trials = [r for r in load_records(records) if not r.default and not r.remeasured]
    assert len(trials) == 20
    assert len({r.schedule for r in trials}) == 20  # and nothing was measured twice
    assert sum(r.default and not r.remeasured for r in load_records(records)) == 1


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["missing.onnx", "-o", "r.jsonl"], 4, "model 'missing.onnx': no such file"),
        (["MODEL", "-o", "no/such/dir/r.jsonl"], 4, "the folder 'no/such/dir' does not exist"),
        (["MODEL", "-o", "r.jsonl", "--trials", "0"], 1, "--trials: must be >= 1, got 0"),
        (["MODEL", "-o", "r.jsonl", "--min-repeat-ms", "-1"], 1, "must be >= 0, got -1"),
        (["MODEL", "-o", "r.jsonl", "--tuner", "annealing"], 1, "invalid choice: 'annealing'"),
        (["MODEL", "-o", "r.jsonl", "--time-budget", "-2"], 1, "--time-budget: must be > 0"),
        (["MODEL", "-o", "r.jsonl", "--timeout", "soon"], 1, "expected a number > 0, got 'soon'"),
        (["MODEL", "-o", "r.jsonl", "--prior-records", "x.jsonl"], 4, "'x.jsonl': no such file"),
        (["MODEL", "-o", "r.jsonl", "--target", "cuda"], 4, "unsupported target 'cuda'"),
        (["MODEL"], 1, "the following arguments are required: -o/--output"),
    ],
)
def test_bad_flags_are_clear_errors(
    args: list[str],
    code: int,
    message: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    model = save(dense_net(), tmp_path, "dense")
    argv = ["tune"] + [str(model) if a == "MODEL" else a for a in args]
    with pytest.raises(SystemExit) if code == 1 else _no_raise() as raised:
        result = _main(argv)
    err = capsys.readouterr().err
    assert (raised.value.code if code == 1 else result) == code  # type: ignore[union-attr]
    assert message in err and "Traceback" not in err


class _no_raise:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False
