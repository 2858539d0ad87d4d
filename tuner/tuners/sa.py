"""Simulated annealing over a knob space, guided by a cost model (AutoTVM's
SimulatedAnnealingOptimizer): chains walk to neighbouring points (one knob changed), accepting a
worse score with probability exp((new - old) / T) as T falls to 0; the best unvisited points
seen are kept."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

import numpy as np

from ..space import ConfigSpace


def anneal(
    space: ConfigSpace,
    score: Callable[[Sequence[int]], np.ndarray],
    *,
    keep: int,
    visited: set[int],
    starts: Sequence[int],
    rng: np.random.Generator,
    chains: int = 64,
    steps: int = 60,
    patience: int = 15,
) -> list[int]:
    """The `keep` best-scoring unvisited points found, best first."""
    n = len(space)
    points = list(starts)[:chains]
    while len(points) < min(chains, n):
        points.append(int(rng.integers(n)))
    current = np.array(points)
    scores = score(current)
    best: list[tuple[float, int]] = []
    seen: set[int] = set()

    def offer(indices: np.ndarray, values: np.ndarray) -> bool:
        improved = False
        for i, s in zip(indices.tolist(), values.tolist()):
            if i in visited or i in seen:
                continue
            seen.add(i)
            if len(best) < keep:
                heapq.heappush(best, (s, i))
                improved = True
            elif s > best[0][0]:
                heapq.heapreplace(best, (s, i))
                improved = True
        return improved

    offer(current, scores)
    spread = float(np.std(scores)) or 1.0
    knobs = [len(k.values) for k in space.knobs]
    movable = [j for j, m in enumerate(knobs) if m > 1]
    idle = 0
    for step in range(steps):
        if not movable:
            break
        temperature = spread * (1.0 - step / steps)
        proposal = current.copy()
        for c in range(len(current)):
            row = space.points[current[c]].copy()
            j = movable[int(rng.integers(len(movable)))]
            row[j] = rng.integers(knobs[j])
            index = space.lookup(row)
            if index is not None:
                proposal[c] = index
        new = score(proposal)
        accept = (new >= scores) | (
            rng.random(len(new)) < np.exp(np.minimum(new - scores, 0.0) / max(temperature, 1e-9))
        )
        current = np.where(accept, proposal, current)
        scores = np.where(accept, new, scores)
        idle = 0 if offer(proposal, new) else idle + 1
        if idle >= patience:
            break
    return [i for _, i in sorted(best, reverse=True)]
