"""`mlc tune --runner ray`: a tiny model tuned through a local Ray instance (2 CPUs, no dashboard,
started once for the module and shut down after it) gives the local runner's kind of records
and resumes the same way; a Ray worker killed mid-run loses no record and records nothing twice;
without ray the command is exit 5."""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from helpers.imports import block_import
from helpers.tuner_models import dense_net, save
from mlc.driver import _main
from mlc.frontend import from_onnx
from mlc.tuner.measure import MeasureOptions
from mlc.tuner.ray_runner import (
    NODE_DIR_PREFIX,
    RayRunner,
    loopback_only,
    measure_on_node,
    sweep_node_dirs,
)
from mlc.tuner.records import read_records
from mlc.tuner.runner import MeasureResult
from mlc.tuner.task import extract_tasks
from mlc.tuner.tune import TuneOptions, tune

loopback_only()  # before ray is imported
ray = pytest.importorskip("ray")
pytest.importorskip("xgboost")
FAST = ["--repeat", "1", "--min-repeat-ms", "0", "--no-graph-knobs"]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
    # Functions of this module run in Ray workers, which cannot import it by name.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        yield
    finally:
        ray.shutdown()
        sweep_node_dirs(wait=5.0)
    assert not list(pathlib.Path(tempfile.gettempdir()).glob(NODE_DIR_PREFIX + "*"))


def _trials(records: list) -> Counter:
    return Counter((r.workload, r.schedule) for r in records if not r.default and not r.remeasured)


def test_tune_through_ray_gives_records_and_resumes(local_ray, tmp_path, capsys) -> None:
    model = save(dense_net(), tmp_path, "dense")
    records = tmp_path / "r.jsonl"
    argv = ["tune", str(model), "-o", str(records), "--trials", "4", "--runner", "ray", *FAST]
    assert _main(argv) == 0
    out = capsys.readouterr().out
    assert "whole model: default" in out
    first = read_records(records).records
    kernels = {r.kernel for r in first}
    for kernel in kernels:
        mine = [r for r in first if r.kernel == kernel]
        assert mine[0].default and mine[0].ok, kernel
        assert all(r.threads == 1 and r.target["cpu"] and r.pipeline for r in mine)
    trials = _trials(first)
    assert trials and max(trials.values()) == 1  # no schedule measured twice
    assert all(r.ok for r in first if not r.default and not r.remeasured)
    # Run again: everything is resumed from the file, no new trial.
    assert _main(argv) == 0
    assert "0 trials (0 errors, 4 resumed)" in capsys.readouterr().err
    again = read_records(records).records
    assert _trials(again) == trials


def killing_once(marker: str) -> Callable[..., MeasureResult]:
    """A measure_fn whose first call kills its Ray worker process (Ray runs the task again)."""

    def measure(*args: object) -> MeasureResult:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return measure_on_node(*args)  # type: ignore[arg-type]
        os.close(fd)
        os._exit(1)

    return measure


def test_a_killed_worker_loses_no_record(local_ray, tmp_path) -> None:
    marker = tmp_path / "killed"
    module, params = from_onnx(save(dense_net(), tmp_path, "dense"))
    fn = killing_once(str(marker))
    options = MeasureOptions(repeat=1, min_repeat_ms=0)
    with RayRunner(options, measure_fn=fn) as runner:
        tasks = extract_tasks(module, params, threads=1, runner=runner)
        assert marker.exists()  # a worker was killed while the defaults were measured
        report = tune(tasks, runner, tmp_path / "r.jsonl", TuneOptions(tuner="random", trials=5))
    records = read_records(tmp_path / "r.jsonl").records
    trials = _trials(records)
    tuned = [t for t in report.tasks if t.trials]
    assert tuned and sum(trials.values()) == sum(t.trials for t in tuned)
    assert max(trials.values()) == 1
    assert all(r.ok for r in records if not r.remeasured)


def test_ray_runner_without_ray_is_exit_5(tmp_path, monkeypatch, capsys) -> None:
    block_import(monkeypatch, "ray")
    records = tmp_path / "r.jsonl"
    argv = ["tune", str(save(dense_net(), tmp_path, "d")), "-o", str(records), "--runner", "ray"]
    assert _main(argv) == 5
    assert "pip install 'mlc[distributed]'" in capsys.readouterr().err
    assert not records.exists()


def test_ray_address_needs_the_ray_runner(tmp_path, capsys) -> None:
    argv = ["tune", str(save(dense_net(), tmp_path, "d")), "-o", str(tmp_path / "r.jsonl")]
    assert _main([*argv, "--ray-address", "127.0.0.1:6379"]) == 1
    assert "--ray-address only applies with --runner ray" in capsys.readouterr().err
