"""Genetic search (AutoTVM's GATuner): a population of points, the fittest (fastest) kept and
bred by uniform crossover of their knob values, with random mutations of single knobs."""

from __future__ import annotations

import numpy as np

from ..task import Task
from .base import Tuner


class GATuner(Tuner):
    name = "ga"

    def __init__(
        self,
        task: Task,
        *,
        seed: int = 0,
        pop_size: int = 32,
        mutation: float = 0.15,
    ) -> None:
        super().__init__(task, seed=seed)
        self.pop_size = max(2, min(pop_size, len(self.space)))
        """The fastest `pop_size` measured points are the parents."""
        self.mutation = mutation
        """Probability that a child's knob takes a random value."""

    def _fitness(self) -> tuple[list[int], np.ndarray]:
        measured = [i for i, c in self.costs.items() if np.isfinite(c)]
        measured.sort(key=lambda i: self.costs[i])
        pop = measured[: self.pop_size]
        fit = np.array([1.0 / self.costs[i] for i in pop])
        return pop, fit / fit.sum() if len(fit) else fit

    def next_batch(self, size: int) -> list[int]:
        pop, prob = self._fitness()
        if len(pop) < 2:
            return self.random_unvisited(size)
        out: list[int] = []
        taken = set(self.visited)
        knobs = [len(k.values) for k in self.space.knobs]
        for _ in range(size * 20):
            if len(out) == size:
                break
            a, b = self.rng.choice(len(pop), size=2, p=prob)
            ra, rb = self.space.points[pop[a]], self.space.points[pop[b]]
            child = np.where(self.rng.random(len(knobs)) < 0.5, ra, rb)
            for j, n in enumerate(knobs):
                if n > 1 and self.rng.random() < self.mutation:
                    child[j] = self.rng.integers(n)
            index = self.space.lookup(child)
            if index is not None and index not in taken:
                taken.add(index)
                out.append(index)
        if len(out) < size:  # illegal or seen children: fill at random
            out += self.random_unvisited(size - len(out), exclude=set(out))
        return out
