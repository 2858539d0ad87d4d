"""The cost-model interface (AutoTVM's CostModel, MetaSchedule's fit/predict/save/load)."""

from __future__ import annotations

import abc
from collections.abc import Sequence

import numpy as np


class CostModel(abc.ABC):
    """Learns from measured candidates which ones are fast.

    `fit(features, scores, groups)`: one row per measured candidate; `scores` is its speed
    relative to the best of its group (best = 1, errors 0); `groups` says which task each row
    belongs to (rows are only compared within a group: a rank loss across tasks would compare
    kernels of different sizes). `predict(features)` returns higher-is-faster scores, comparable
    within one call.
    """

    @abc.abstractmethod
    def fit(
        self, features: np.ndarray, scores: np.ndarray, groups: Sequence[int] | np.ndarray
    ) -> None: ...

    @abc.abstractmethod
    def predict(self, features: np.ndarray) -> np.ndarray: ...

    @property
    @abc.abstractmethod
    def trained(self) -> bool: ...

    def save(self, path: str) -> None:  # noqa: B027 - models without state save nothing
        pass

    def load(self, path: str) -> None:  # noqa: B027
        pass
