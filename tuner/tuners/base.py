"""The tuner contract (AutoTVM's): `next_batch(n)` proposes points of the task's space,
`update(indices, results)` learns from their measurements, `has_next()` says whether unmeasured
points remain. The measurement loop, early stopping and error counting live once, in `tune`.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np

from ..budget import monotonic
from ..runner import Candidate, MeasureResult, OnResult, Runner
from ..task import Task

BatchCallback = Callable[["Tuner", Sequence[tuple[int, MeasureResult]]], None]


class Tuner(abc.ABC):
    """Searches one task's knob space. Seeded: the same seed and measurements give the same
    proposals."""

    name: ClassVar[str] = ""

    def __init__(self, task: Task, *, seed: int = 0) -> None:
        self.task = task
        self.space = task.space
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.visited: set[int] = set()
        self.costs: dict[int, float] = {}
        """Seconds per call of every measured point (infinity for errors)."""
        self.confirmed: set[int] = set()
        """Points measured again after the search (`remeasured`)."""
        self.best_index: int | None = None
        self.best_cost = math.inf
        self.trials = 0
        self.errors = 0
        self._best_trial = 0

    # -- the contract ----------------------------------------------------------------------
    def has_next(self) -> bool:
        return len(self.visited) < len(self.space)

    @abc.abstractmethod
    def next_batch(self, size: int) -> list[int]:
        """Up to `size` unvisited points."""

    def update(self, indices: Sequence[int], results: Sequence[MeasureResult]) -> None:
        for index, result in zip(indices, results):
            self.trials += 1
            self._record(index, result.cost)
            if not result.ok:
                self.errors += 1
        self._learn()

    def load_history(self, measured: Sequence[tuple[int, float]]) -> None:
        """Points of this task measured before (seconds per call; infinity for errors): they are
        not proposed again, and model-based tuners learn from them."""
        for index, cost in measured:
            self._record(index, cost)
        self._learn()

    def remeasured(self, indices: Sequence[int], results: Sequence[MeasureResult]) -> None:
        """A confirmation of points already tried (not trials): its cost replaces theirs. The
        search ranks points by single measurements, so the fastest of many is biased low (on
        a busy machine a 2.4 ms kernel once measured 0.31 ms); a second one is not. From then on
        the best is the fastest confirmed point: a point the search alone measured is one lucky
        sample (on Zen 4, ResNet-50's tuned kernels claimed 1.04-1.23x from the search's figures
        and re-timed at 1.00-1.04x), so it can only win by being confirmed in turn."""
        for index, result in zip(indices, results):
            self.visited.add(index)
            again = index in self.confirmed  # the slowest confirmation stands, as in settle
            self.costs[index] = max(result.cost, self.costs[index]) if again else result.cost
            self.confirmed.add(index)
        index, cost = min(
            ((i, c) for i, c in self.costs.items() if i in self.confirmed), key=lambda item: item[1]
        )
        self.best_index, self.best_cost = (index, cost) if math.isfinite(cost) else (None, cost)

    def fastest_unconfirmed(self) -> int | None:
        """The point the search alone measured fastest, if faster than the best confirmed one."""
        pending = [(c, i) for i, c in self.costs.items() if i not in self.confirmed]
        if not pending:
            return None
        cost, index = min(pending)
        return index if math.isfinite(cost) and cost < self.best_cost else None

    def _record(self, index: int, cost: float) -> None:
        self.visited.add(index)
        cost = min(cost, self.costs.get(index, math.inf))
        self.costs[index] = cost
        if cost < self.best_cost:
            self.best_cost, self.best_index = cost, index
            self._best_trial = self.trials

    def _learn(self) -> None:  # noqa: B027 - a hook, empty for model-free tuners
        """Model-based tuners refit here."""

    # -- helpers ----------------------------------------------------------------------------
    def random_unvisited(self, size: int, exclude: set[int] | None = None) -> list[int]:
        taken = set(self.visited) | (exclude or set())
        n = len(self.space)
        left = n - len(taken)
        size = min(size, left)
        if size <= 0:
            return []
        if left <= 4 * size or n <= 4096:
            pool = np.array([i for i in range(n) if i not in taken])
            return [int(i) for i in self.rng.choice(pool, size=size, replace=False)]
        out: list[int] = []
        while len(out) < size:
            i = int(self.rng.integers(n))
            if i not in taken:
                taken.add(i)
                out.append(i)
        return out

    # -- the loop --------------------------------------------------------------------------
    def tune(
        self,
        runner: Runner,
        *,
        n_trial: int,
        batch_size: int = 8,
        early_stopping: int | None = None,
        deadline: float | None = None,
        on_result: OnResult | None = None,
        callbacks: Sequence[BatchCallback] = (),
        candidate_seconds: float = 0.0,
        reserve: int = 0,
        clock: Callable[[], float] = monotonic,
    ) -> None:
        """Measure up to `n_trial` more points, in batches; stop early after `early_stopping`
        trials without a better point, or at `deadline` (time.monotonic()). Builds are not cut
        short, so a full batch started just before the deadline would overrun it by a whole
        batch: a batch holds only the candidates expected to finish in time, each expected to
        take `candidate_seconds` (until a batch of this call has been timed), and the time of
        `reserve` more candidates is left over for whatever follows the search. `clock` is what
        the deadline is a reading of."""
        start = self.trials
        seconds = candidate_seconds
        while self.has_next() and self.trials - start < n_trial:
            size = min(batch_size, n_trial - (self.trials - start))
            if deadline is not None:
                left = deadline - clock() - reserve * seconds
                fits = int(left / seconds) if seconds > 0 else size
                if left <= 0 or fits < 1:
                    break
                size = min(size, fits)
            batch = self.next_batch(size)
            if not batch:
                break
            began = clock()
            candidates = [Candidate.of(self.task, i) for i in batch]
            results = runner.measure(self.task, candidates, on_result=on_result, deadline=deadline)
            observed = (clock() - began) / len(batch)
            seconds = observed if seconds <= 0 else 0.5 * (seconds + observed)
            done = [(i, r) for i, r in zip(batch, results) if r is not None]
            if not done:
                break
            self.update([i for i, _ in done], [r for _, r in done])
            for callback in callbacks:
                callback(self, done)
            if early_stopping is not None and self.trials - self._best_trial >= early_stopping:
                break

    @property
    def converged(self) -> bool:
        """The space is exhausted (nothing left to try)."""
        return not self.has_next()

    def since_best(self) -> int:
        return self.trials - self._best_trial
