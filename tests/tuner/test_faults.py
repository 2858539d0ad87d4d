"""Faults injected into tuning: workers SIGKILLed at random moments, the run itself killed and
resumed several times, the records file hitting the file size limit (a full disk), two writers
appending to one file. The tuner goes on or stops with a clear error; no record is lost, torn,
interleaved or measured twice. (The candidate that never returns: test_measure.py.)

Loop check: `for i in $(seq 20); do pytest -q tests/tuner/test_faults.py || break; done`
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import resource
import signal
import subprocess
import sys
import threading
import time

import pytest

from helpers.tuner_models import dense_net, save
from mlc.tuner.records import load_records, read_records, workload_table_path

pytest.importorskip("xgboost")
FAST = ["--repeat", "1", "--min-repeat-ms", "0", "--parallel", "2", "--no-graph-knobs"]
TRIALS = 16

APPENDER = """
import sys
from mlc.tuner.records import Record, append_records
tag, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    pad = "x" * (1000 + 997 * i % 3000)  # lines of 1-4 kB: many times what one write() is sure of
    record = Record(workload=tag, block=str(i), schedule=pad, cost_ms=1.0, seed=i)
    append_records(sys.argv[3], [record])
"""


def _appender(tag: str, count: int, path: pathlib.Path, **kwargs) -> subprocess.Popen[str]:  # type: ignore[no-untyped-def]
    return subprocess.Popen(
        [sys.executable, "-c", APPENDER, tag, str(count), str(path)],
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_two_writers_appending_to_one_file_never_interleave(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "r.jsonl"
    procs = [_appender(tag, 150, path) for tag in ("a", "b")]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read()  # type: ignore[union-attr]
    records = load_records(path)  # every line a whole record
    assert len(records) == 300
    for tag in ("a", "b"):
        assert sorted(int(r.block) for r in records if r.workload == tag) == list(range(150))


def test_a_full_disk_leaves_no_half_record(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "r.jsonl"
    limit = 10_000  # bytes: a few records fit, then a write stops part-way

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = _appender("a", 50, path, preexec_fn=cap)
    assert proc.wait(timeout=120) != 0
    err = proc.stderr.read()  # type: ignore[union-attr]
    assert f"cannot append to '{path}': File too large; the records written so far" in err
    data = path.read_bytes()
    assert data.endswith(b"\n") and 0 < len(data) <= limit
    records = load_records(path)
    assert [int(r.block) for r in records] == list(range(len(records)))


def _tune(  # type: ignore[no-untyped-def]
    model: pathlib.Path, records: pathlib.Path, seed: int = 0, trials: int = TRIALS, **kwargs
) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "mlc.driver", "tune", str(model), "-o", str(records),
            "--tuner", "random", "--trials", str(trials), "--seed", str(seed),
            "--json", *FAST]  # fmt: skip
    return subprocess.Popen(
        argv, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        **kwargs,
    )  # fmt: skip


def _lines(path: pathlib.Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _kill_workers(
    proc: subprocess.Popen[str], records: pathlib.Path, rng: random.Random, kills: list[int]
) -> None:
    """SIGKILL one of the run's worker processes at random moments of its search (once it
    appended a record: a default schedule killed twice is given up), three times."""
    start = _lines(records)
    while proc.poll() is None and _lines(records) == start:
        time.sleep(0.02)
    while proc.poll() is None and len(kills) < 3:
        time.sleep(rng.uniform(0.5, 2.0))
        try:
            children = pathlib.Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text()
        except OSError:
            return
        pids = [int(p) for p in children.split()]
        if pids:
            pid = rng.choice(pids)
            try:
                os.kill(pid, signal.SIGKILL)
                kills.append(pid)
            except ProcessLookupError:
                pass


def test_killed_workers_killed_runs_and_a_full_disk_lose_and_repeat_nothing(
    tmp_path: pathlib.Path,
) -> None:
    rng = random.Random(7)
    model = save(dense_net(), tmp_path, "dense")
    records = tmp_path / "r.jsonl"
    kept = ""
    # 1) run killed (the driver and its workers) at a random record count, three times
    for _ in range(3):
        stop_at = _lines(records) + rng.randint(2, 5)
        proc = _tune(model, records)
        deadline = time.monotonic() + 300
        while proc.poll() is None and _lines(records) < stop_at and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        text = records.read_text()
        assert text.startswith(kept)  # nothing written before was lost or rewritten
        kept = text[: text.rfind("\n") + 1]
    # 2) the records file hits the file size limit: a clear error, whole records only
    size = records.stat().st_size

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 1500, size + 1500))

    proc = _tune(model, records, preexec_fn=cap)
    _, err = proc.communicate(timeout=300)
    if proc.returncode != 0:  # the run may also have had nothing left to write
        assert proc.returncode == 4 and "Traceback" not in err, err
        assert "cannot append to" in err and "File too large" in err, err
    assert records.read_text().startswith(kept) and records.read_text().endswith("\n")
    assert not read_records(records).problems
    kept = records.read_text()
    # 3) the last run, whose workers are killed at random moments, finishes the job
    proc = _tune(model, records)
    kills: list[int] = []
    killer = threading.Thread(target=_kill_workers, args=(proc, records, rng, kills))
    killer.start()
    out, err = proc.communicate(timeout=600)
    killer.join()
    assert proc.returncode == 0, err
    assert records.read_text().startswith(kept)
    tasks = json.loads(out)["tasks"]
    assert len(tasks) == 1, (out, err, kills)
    task = tasks[0]
    log = load_records(records)
    trials = [r for r in log if not r.default and not r.remeasured]
    assert len(trials) == TRIALS and task["trials"] + task["resumed"] == TRIALS
    assert len({r.schedule for r in trials}) == TRIALS  # nothing measured twice
    assert sum(r.default and not r.remeasured for r in log) == 1
    killed = [r for r in trials if "crashed with SIGKILL" in r.error]
    assert len(killed) <= len(kills)  # a killed worker is an error record, the search went on


def test_two_tunes_appending_to_one_records_file(tmp_path: pathlib.Path) -> None:
    """Both runs' records arrive whole (none interleaved or torn), and a third run finds every
    trial it needs in the file and measures nothing."""
    model = save(dense_net(), tmp_path, "dense")
    records = tmp_path / "r.jsonl"
    procs = [_tune(model, records, seed=seed, trials=6) for seed in (1, 2)]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    log = read_records(records)
    assert not log.problems  # every line a whole record
    trials = [r for r in log.records if not r.default and not r.remeasured]
    assert len(trials) == 12 and sorted({r.seed for r in trials}) == [1, 2]
    for seed in (1, 2):  # neither run measured a point twice
        mine = [r.schedule for r in trials if r.seed == seed]
        assert len(set(mine)) == 6
    table = workload_table_path(records).read_text().splitlines()
    assert table and all(json.loads(line)["workload"] for line in table)
    again = _tune(model, records, seed=3, trials=6)
    out, err = again.communicate(timeout=600)
    assert again.returncode == 0, err
    (task,) = json.loads(out)["tasks"]
    assert task["trials"] == 0 and task["resumed"] >= 6
