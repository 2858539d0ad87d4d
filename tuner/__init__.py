"""mlc.tuner: tune the schedules of a model's kernels (AutoTVM's workflow, in minutes).

    from mlc import tuner
    with tuner.LocalRunner(tuner.MeasureOptions(parallel=2)) as runner:
        tasks = tuner.extract_tasks(module, params, threads=2, runner=runner)
        report = tuner.tune(tasks, runner, "records.jsonl", tuner="xgb", trials=200)

Names are imported lazily: `mlc.tuner.records` (the record format, which the
`tp-apply-records` pass reads) must load without the rest of the tuner.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Task": "task",
    "extract_tasks": "task",
    "ConfigSpace": "space",
    "Knob": "space",
    "MeasureOptions": "measure",
    "Runner": "runner",
    "LocalRunner": "runner",
    "Candidate": "runner",
    "MeasureResult": "runner",
    "Tuner": "tuners.base",
    "RandomTuner": "tuners.random",
    "GridSearchTuner": "tuners.gridsearch",
    "GATuner": "tuners.ga",
    "XGBTuner": "tuners.xgb",
    "create_tuner": "tuners",
    "tune": "tune",
    "TuneOptions": "tune",
    "TuneReport": "tune",
    "Record": "records",
    "load_records": "records",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'mlc.tuner' has no attribute {name!r}")
    return getattr(import_module(f"mlc.tuner.{_EXPORTS[name]}"), name)


__all__ = sorted(_EXPORTS)
