"""Tuners: `create_tuner("xgb" | "ga" | "random" | "gridsearch", task, seed=...)`."""

from __future__ import annotations

from typing import Literal, get_args

from ..task import Task
from .base import Tuner

TunerKind = Literal["xgb", "ga", "random", "gridsearch"]
TUNERS: tuple[str, ...] = get_args(TunerKind)


def create_tuner(kind: str, task: Task, *, seed: int = 0, **options: object) -> Tuner:
    """A tuner by name (xgb needs the `xgboost` package: mlc[tune])."""
    if kind == "xgb":
        from .xgb import XGBTuner

        return XGBTuner(task, seed=seed, **options)  # type: ignore[arg-type]
    if kind == "ga":
        from .ga import GATuner

        return GATuner(task, seed=seed, **options)  # type: ignore[arg-type]
    if kind in ("random", "gridsearch") and options:
        raise TypeError(f"the {kind} tuner takes no options, got {sorted(options)}")
    if kind == "random":
        from .random import RandomTuner

        return RandomTuner(task, seed=seed)
    if kind == "gridsearch":
        from .gridsearch import GridSearchTuner

        return GridSearchTuner(task, seed=seed)
    raise ValueError(f"unknown tuner '{kind}'; expected one of {', '.join(TUNERS)}")


__all__ = ["TUNERS", "Tuner", "TunerKind", "create_tuner"]
