"""An XGBoost cost model with a pairwise rank loss (AutoTVM's XGBoostCostModel, loss "rank").

Rank loss: the model only has to order candidates, not predict their time, and pairs are only
formed within a group (`qid`: one task), so measurements of many kernels train one model
(transfer learning) without their very different latencies confusing it. Trained on one thread
with a fixed seed: the same data gives the same model (tests rely on it), and the tuner does
not take a core from the candidate being timed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mlc.errors import MissingDependencyError

from .base import CostModel

PARAMS = {
    "objective": "rank:pairwise",
    # pairs drawn from the whole group, not just around its top (xgboost's default for ranking
    # is tuned for search results: on a measured kernel it ranked visibly worse)
    "lambdarank_pair_method": "mean",
    "lambdarank_num_pair_per_sample": 8,
    "max_depth": 5,
    "eta": 0.3,
    "min_child_weight": 1,
    "subsample": 1.0,
    "lambda": 1.0,
    "nthread": 1,
    "tree_method": "hist",
}
ROUNDS = 60


def _xgboost() -> Any:
    try:
        import xgboost
    except ImportError:
        raise MissingDependencyError("xgboost", extra="tune") from None
    return xgboost


class XGBoostCostModel(CostModel):
    def __init__(self, seed: int = 0, rounds: int = ROUNDS) -> None:
        self.xgb = _xgboost()
        self.seed = seed
        self.rounds = rounds
        self.booster: Any = None

    def fit(
        self, features: np.ndarray, scores: np.ndarray, groups: Sequence[int] | np.ndarray
    ) -> None:
        groups = np.asarray(groups)
        if len(features) < 2 or np.ptp(scores) == 0:
            return  # nothing to rank yet
        order = np.argsort(groups, kind="stable")  # qid must be sorted
        data = self.xgb.DMatrix(
            features[order], label=scores[order], qid=groups[order], missing=np.nan
        )
        params = dict(PARAMS, seed=self.seed)
        self.booster = self.xgb.train(params, data, num_boost_round=self.rounds)

    def predict(self, features: np.ndarray) -> np.ndarray:
        if self.booster is None:
            return np.zeros(len(features))
        return self.booster.predict(self.xgb.DMatrix(features, missing=np.nan))

    @property
    def trained(self) -> bool:
        return self.booster is not None

    def save(self, path: str) -> None:
        if self.booster is not None:
            self.booster.save_model(path)

    def load(self, path: str) -> None:
        self.booster = self.xgb.Booster()
        self.booster.load_model(path)
