"""Grid search: the points of the space in index order (lexicographic in the knobs)."""

from __future__ import annotations

from .base import Tuner


class GridSearchTuner(Tuner):
    name = "gridsearch"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._next = 0

    def next_batch(self, size: int) -> list[int]:
        out: list[int] = []
        while len(out) < size and self._next < len(self.space):
            if self._next not in self.visited:
                out.append(self._next)
            self._next += 1
        return out
