"""Random search: unvisited points uniformly at random."""

from __future__ import annotations

from .base import Tuner


class RandomTuner(Tuner):
    name = "random"

    def next_batch(self, size: int) -> list[int]:
        return self.random_unvisited(size)
