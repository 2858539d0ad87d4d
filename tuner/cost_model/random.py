"""A cost model that knows nothing: random scores (a baseline for the model-based search)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import CostModel


class RandomCostModel(CostModel):
    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def fit(
        self, features: np.ndarray, scores: np.ndarray, groups: Sequence[int] | np.ndarray
    ) -> None:
        pass

    def predict(self, features: np.ndarray) -> np.ndarray:
        return self.rng.random(len(features))

    @property
    def trained(self) -> bool:
        return True
