"""Reshape index maps: per-group splitting (reshape_groups) and chains of reshapes, compiled and
run against the reference interpreter and numpy."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.graph_exec import check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g
from mlc.passes.lowering.tp_emit.expr import reshape_groups


@pytest.mark.parametrize(
    ("src", "dst", "groups"),
    [
        (
            (1, 136, 28, 28),
            (1, 4, 34, 28, 28),
            [((0,), (0,)), ((1,), (1, 2)), ((2,), (3,)), ((3,), (4,))],
        ),
        ((2, 3, 4), (6, 4), [((0, 1), (0,)), ((2,), (1,))]),
        ((6, 4), (4, 6), [((0, 1), (0, 1))]),
        ((1, 6), (6,), [((0, 1), (0,))]),
        ((6, 1), (6,), [((0,), (0,))]),  # trailing unit dim: no group, index 0
        ((6,), (2, 3, 1), [((0,), (0, 1))]),
    ],
)
def test_reshape_groups_pair_runs_with_equal_products(src, dst, groups) -> None:  # type: ignore[no-untyped-def]
    got = [(tuple(i), tuple(o)) for i, o in reshape_groups(src, dst)]
    assert got == groups


@pytest.mark.parametrize(
    ("src", "shapes"),
    [
        ((2, 3, 4), [(6, 4), (4, 6), (24,), (2, 12), (3, 8)]),
        ((1, 12, 5, 1), [(1, 3, 4, 5), (12, 5), (1, 60, 1), (2, 30)]),
        ((4, 1, 6), [(2, 2, 6, 1), (24, 1), (1, 4, 6)]),
    ],
)
def test_reshape_chains_match_numpy(src, shapes) -> None:  # type: ignore[no-untyped-def]
    x = rand(src, seed=3)

    def body(v):  # type: ignore[no-untyped-def]
        for s in shapes:
            v = g.reshape(g.neg(v) if len(s) % 2 else v, shape=s)
        return g.relu(v)

    want = x
    for s in shapes:
        want = (-want if len(s) % 2 else want).reshape(s)
    got, ref = run_graph(body, [x])
    check(got[0], ref[0], np.maximum(want, 0))


def test_channel_shuffle_then_blocking_matches_numpy_and_reads_per_channel() -> None:
    x = rand((1, 24, 5, 7), seed=4)

    def body(v):  # type: ignore[no-untyped-def]
        v = g.reshape(
            g.transpose(g.reshape(v, shape=(1, 4, 6, 5, 7)), perm=(0, 2, 1, 3, 4)),
            shape=(1, 24, 5, 7),
        )
        return g.layout_transform(v, src_layout="NCHW", dst_layout="NCHW8c")

    shuffled = x.reshape(1, 4, 6, 5, 7).transpose(0, 2, 1, 3, 4).reshape(1, 24, 5, 7)
    want = shuffled.reshape(1, 3, 8, 5, 7).transpose(0, 1, 3, 4, 2)
    got, ref = run_graph(body, [x])
    check(got[0], ref[0], want, rtol=0, atol=0)
    text = lower_to_tp(body, [x])
    assert "floordiv 35" not in text and "floordiv 140" not in text, text
