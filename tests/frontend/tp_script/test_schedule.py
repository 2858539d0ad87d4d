"""The interactive Schedule: every step edits the block's schedule attribute, each scheduled
version computes what numpy computes, and illegal steps name the loop."""

from __future__ import annotations

import numpy as np
import pytest

from mlc import tp as T

N = 64


@T.script
def mm_relu(
    A: T.Buffer((64, 64), "float32"),
    B: T.Buffer((64, 64), "float32"),
    C: T.Buffer((64, 64), "float32"),
):
    Y = T.alloc_buffer((64, 64), "float32")
    for i, j, k in T.grid(64, 64, 64):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(64, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


def _check(func: T.PrimFunc | T.Schedule, threads: int = 1) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N, N), dtype=np.float32)
    b = rng.standard_normal((N, N), dtype=np.float32)
    c = np.full((N, N), np.nan, np.float32)
    T.build(func, threads=threads)(a, b, c)
    np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


def test_each_step_matches_numpy() -> None:
    sch = T.Schedule(mm_relu)
    i, j, k = sch.get_loops("Y")
    j0, j1 = sch.split(j, [None, 8])
    _check(sch)
    sch.reorder(j0, k, j1)
    _check(sch)
    sch.vectorize(j1)
    _check(sch)
    i0, i1 = sch.split(i, [None, 4])
    sch.reorder(i0, j0, i1, k, j1)
    sch.unroll(i1)
    _check(sch)
    sch.parallel(i0)
    _check(sch)
    _check(sch, threads=2)  # the parallel loop on OpenMP threads
    ci, cj = sch.get_loops("C")
    sch.vectorize(sch.split(cj, [8, 8])[1])
    _check(sch)
    y = next(op for op in sch.func.func.regions[0].blocks[0].operations if "Y" in str(op))
    assert T.ScheduleKnobs.from_attr(y.attributes["schedule"]) == T.ScheduleKnobs(
        tile={"i": (4,), "j": (8,)},
        order=("i.0", "j.0", "i.1", "k", "j.1"),
        unroll={"i.1": 4},
        vectorize="j.1",
        parallel=("i.0",),
    )
    assert sch.show().splitlines()[:6] == [
        "block 'Y':",
        "  for i.0 in range(16):  # parallel",
        "    for j.0 in range(8):",
        "      for i.1 in range(4):  # unroll 4",
        "        for k in range(64):  # reduce",
        "          for j.1 in range(8):  # vectorized",
    ]
    assert sch.trace().splitlines()[:3] == [
        "i, j, k = sch.get_loops('Y')",
        "j0, j1 = sch.split(j, [None, 8])",
        "sch.reorder(j0, k, j1)",
    ]
    assert "T.schedule(tile={'i': [4], 'j': [8]}" in sch.func.script()
    assert mm_relu.func.attributes["sym_name"] is not None  # the original is untouched
    assert "T.schedule" not in mm_relu.script()


def test_nested_split_renames_loops_and_keeps_handles() -> None:
    sch = T.Schedule(mm_relu)
    _, j, _ = sch.get_loops("Y")
    j0, j1 = sch.split(j, [None, 16])
    j1a, j1b = sch.split(j1, [4, 4])
    assert [repr(lp) for lp in (j0, j1a, j1b)] == [
        "LoopRV(Y:j.0)",
        "LoopRV(Y:j.1)",
        "LoopRV(Y:j.2)",
    ]
    _check(sch)


@pytest.mark.parametrize(
    "step, message",
    [
        (lambda s, i, j, k: s.vectorize(j), "vectorized loop 'j' must be the innermost loop"),
        (lambda s, i, j, k: s.parallel(k), "parallel loop 'k' must be a spatial loop"),
        (lambda s, i, j, k: s.parallel(j), "must be the outermost loops in order"),
        (lambda s, i, j, k: s.split(j, [None, None]), "at most one of them None"),
        (lambda s, i, j, k: s.split(j, [3, 8]), "loop 'j' runs 64 times"),
        (lambda s, i, j, k: s.unroll(i, 0), "unroll factor of 'i' must be >= 1"),
        (lambda s, i, j, k: s.split(j, [0, None]), "factors are positive integers"),
        (lambda s, i, j, k: s.reorder(i, s.get_loops("C")[0]), "must belong to one block"),
    ],
)
def test_illegal_steps_name_the_loop(step: object, message: str) -> None:
    sch = T.Schedule(mm_relu)
    before = sch.func.script()
    with pytest.raises(T.ScheduleError) as info:
        step(sch, *sch.get_loops("Y"))  # type: ignore[operator]
    assert message in str(info.value)
    assert sch.func.script() == before  # a refused step changes nothing


def test_stale_and_misordered_loops() -> None:
    sch = T.Schedule(mm_relu)
    _, j, _ = sch.get_loops("Y")
    j0, j1 = sch.split(j, [None, 8])
    with pytest.raises(T.ScheduleError, match="loop 'j' of block 'Y' was split by an earlier"):
        sch.vectorize(j)
    with pytest.raises(T.ScheduleError, match=r"the loops of axis 'j' must stay outermost first"):
        sch.reorder(j1, j0)
    with pytest.raises(T.ScheduleError, match=r"must multiply to its trip count 8, got \[3, 3\]"):
        sch.split(j1, [3, 3])
    with pytest.raises(T.ScheduleError, match=r"no block 'Z' in @mm_relu \(blocks: Y, C\)"):
        sch.get_loops("Z")
