"""Model-based search (AutoTVM's XGBTuner): an XGBoost cost model with a rank loss, trained on
every measurement of the task (and on records of other tasks: transfer learning), proposes each
batch: simulated annealing finds the best-predicted unvisited points, a diversity filter picks
a batch among them that covers many knob values, and a few random points keep exploring.

Features are those of `mlc.tuner.features`: knob values and the loop nest they produce. Until
the model has something to rank (two different measurements, or transferred records), batches
are random.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..cost_model import CostModel, create
from ..features import FeatureCache
from ..task import Task
from .base import Tuner
from .sa import anneal

EXHAUSTIVE = 20_000
"""Spaces up to this size are scored whole (features are cached per point); larger ones are
searched by simulated annealing."""

Example = tuple[Sequence[float], float, int]
"""A measurement of another task: (features, seconds per call, group id)."""


class XGBTuner(Tuner):
    name = "xgb"

    def __init__(
        self,
        task: Task,
        *,
        seed: int = 0,
        cost_model: CostModel | None = None,
        diversity: float = 3.0,
        epsilon: float = 0.1,
        warmup: int = 16,
        history: Sequence[Example] = (),
    ) -> None:
        super().__init__(task, seed=seed)
        self.model = cost_model or create("xgb", seed=seed)
        self.diversity = diversity
        """The batch is picked among the best `diversity x batch size` predicted points."""
        self.epsilon = epsilon
        """Share of each batch chosen at random (exploration)."""
        self.warmup = warmup
        """Points measured at random before the model proposes (unless other tasks' records
        trained it already)."""
        self.features = FeatureCache(task.facts, task.space)
        self.history = list(history)
        if self.history:
            self._learn()

    # -- the model ---------------------------------------------------------------------------
    def _learn(self) -> None:
        rows, scores, groups = [], [], []
        by_group: dict[int, list[tuple[Sequence[float], float]]] = {}
        for feats, cost, group in self.history:
            by_group.setdefault(group + 1, []).append((feats, cost))
        by_group[0] = [(self.features(i), c) for i, c in self.costs.items()]
        for group, items in by_group.items():
            finite = [c for _, c in items if np.isfinite(c)]
            if not finite:
                continue
            best = min(finite)
            for feats, cost in items:
                rows.append(feats)
                scores.append(best / cost if np.isfinite(cost) else 0.0)
                groups.append(group)
        if rows:
            self.model.fit(np.array(rows, dtype=np.float64), np.array(scores), np.array(groups))

    def predict(self, indices: Sequence[int]) -> np.ndarray:
        rows = np.array([self.features(int(i)) for i in indices], dtype=np.float64)
        return self.model.predict(rows)

    # -- proposals ---------------------------------------------------------------------------
    def next_batch(self, size: int) -> list[int]:
        if not self.model.trained or (not self.history and len(self.costs) < self.warmup):
            # Until the model knows something: half the batch one knob away from the best
            # point so far (the default, at first), half anywhere.
            near = self._neighbors_of_best(size // 2)
            return near + self.random_unvisited(size - len(near), exclude=set(near))
        explore = int(round(size * self.epsilon))
        keep = max(size, int(size * self.diversity))
        if len(self.space) <= EXHAUSTIVE:
            free = np.array([i for i in range(len(self.space)) if i not in self.visited])
            scores = self.predict(free)
            top = [int(free[k]) for k in np.argsort(-scores, kind="stable")[:keep]]
        else:
            starts = sorted(self.costs, key=lambda i: self.costs[i])[: keep // 2]
            top = anneal(
                self.space,
                self.predict,
                keep=keep,
                visited=self.visited,
                starts=starts,
                rng=self.rng,
            )
        picked = self._diverse(top, size - explore)
        picked += self.random_unvisited(size - len(picked), exclude=set(picked))
        return picked

    def _neighbors_of_best(self, size: int) -> list[int]:
        if self.best_index is None or size <= 0:
            return []
        free = [i for i in self.space.neighbors(self.best_index) if i not in self.visited]
        if len(free) <= size:
            return free
        return [int(i) for i in self.rng.choice(free, size=size, replace=False)]

    def _diverse(self, ranked: list[int], size: int) -> list[int]:
        """Greedy pick among `ranked` (best first): predicted rank plus how many knob values the
        point adds to those already picked (AutoTVM's submodular pick)."""
        if len(ranked) <= size:
            return ranked
        rows = self.space.points[ranked]
        seen: list[set[int]] = [set() for _ in range(rows.shape[1])]
        rank_score = 1.0 - np.arange(len(ranked)) / len(ranked)
        chosen: list[int] = []
        free = list(range(len(ranked)))
        for _ in range(size):
            gains = [
                rank_score[k]
                + sum(int(rows[k, j]) not in seen[j] for j in range(rows.shape[1]))
                / max(rows.shape[1], 1)
                for k in free
            ]
            k = free.pop(int(np.argmax(gains)))
            chosen.append(ranked[k])
            for j in range(rows.shape[1]):
                seen[j].add(int(rows[k, j]))
        return chosen
