"""graph-fuse on random graphs of elementwise ops with many shared values, matmuls, transposes
and reductions: every op lands in exactly one kernel (nothing computed twice, nothing lost), no
kernel exceeds max-group-size, each kernel has one result, and the compiled model computes
what the reference interpreter does."""

from __future__ import annotations

import random

import numpy as np
import pytest
from mlir import ir

import mlc
from helpers.graph_exec import SCHEDULED, build_main, check, rand, run_graph
from mlc.dialects.graph import KERNEL_ATTR
from mlc.dialects.graph import builders as g
from mlc.dialects.walk import top_level_funcs
from mlc.passes.graph_fuse import GraphFusePass

N = 8
UNARY = ("tanh", "sigmoid", "neg", "abs", "relu")
BINARY = ("add", "mul", "sub", "max")


def random_graph(seed: int, size: int = 24):  # type: ignore[no-untyped-def]
    """A body for `build_main` over x [N, N], y [N, N], w [N, N]: `size` ops, each reading
    recent values (so values get several users), some results returned on top of the sinks."""

    def body(x: ir.Value, y: ir.Value, w: ir.Value) -> list[ir.Value]:
        rng = random.Random(seed)
        pool = [x, y]
        for _ in range(size):
            pick = rng.random()
            a, b = rng.choice(pool[-5:]), rng.choice(pool[-5:])
            if pick < 0.1:
                v = g.matmul(a, w)
            elif pick < 0.15:
                v = g.transpose(a, perm=(1, 0))
            elif pick < 0.2:
                v = g.add(a, g.reduce_sum(b, axes=(1,), keepdims=1))
            elif pick < 0.5:
                v = g.make(rng.choice(UNARY), a)
            else:
                v = g.make(rng.choice(BINARY), a, b)
            pool.append(v)
        sinks = [v for v in pool[2:] if not list(v.uses)]
        extra = [v for v in rng.sample(pool[2:], 2) if v not in sinks]
        return sinks + extra

    return body


def _kernel_sizes(module: ir.Module) -> tuple[list[int], int]:
    """Graph ops per call of a kernel in @main, and the graph ops left in @main."""
    funcs = {ir.StringAttr(f.attributes["sym_name"]).value: f for f in top_level_funcs(module)}
    main = funcs["main"]
    sizes, left = [], 0
    for op in main.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.call":
            kernel = funcs[ir.FlatSymbolRefAttr(op.attributes["callee"]).value]
            assert KERNEL_ATTR in kernel.attributes
            body = [o.operation for o in kernel.regions[0].blocks[0].operations]
            assert body[-1].name == "func.return" and len(body[-1].operands) == 1
            sizes.append(len(body) - 1)
        elif op.name.startswith("graph.") and op.name != "graph.constant":
            left += 1
    return sizes, left


@pytest.mark.parametrize("max_size", [2, 3, 5, 32])
@pytest.mark.parametrize("seed", range(12))
def test_every_op_in_one_kernel(seed: int, max_size: int) -> None:
    inputs = [rand((N, N), seed=1), rand((N, N), seed=2), rand((N, N), seed=3)]
    with mlc.Context(), ir.Location.unknown():
        module = build_main(random_graph(seed), inputs)
        before = sum(
            1
            for op in module.body.operations[0].regions[0].blocks[0].operations
            if op.operation.name.startswith("graph.")
        )
        mlc.PassManager.parse(f"builtin.module(graph-fuse{{max-group-size={max_size}}})").run(
            module
        )
        sizes, left = _kernel_sizes(module.operation)
    assert left == 0
    assert sum(sizes) == before  # each op in exactly one kernel: none duplicated or dropped
    assert max(sizes) <= max_size


def test_diamonds_make_fewer_kernels() -> None:
    """Over the random graphs, sharing values inside groups saves kernels."""
    inputs = [rand((N, N), seed=1), rand((N, N), seed=2), rand((N, N), seed=3)]
    counts = {}
    for diamonds in (False, True):
        total = 0
        for seed in range(12):
            with mlc.Context(), ir.Location.unknown():
                module = build_main(random_graph(seed), inputs)
                fn = module.body.operations[0].operation
                total += len(GraphFusePass(diamonds=diamonds).partition(fn))
        counts[diamonds] = total
    assert counts[True] < counts[False], counts


@pytest.mark.parametrize("seed,max_size", [(0, 32), (1, 3), (2, 32), (3, 4), (4, 32)])
def test_random_graphs_compute_the_same(seed: int, max_size: int) -> None:
    inputs = [rand((N, N), seed=1), rand((N, N), seed=2), rand((N, N), seed=3, scale=0.3)]
    pipeline = SCHEDULED.replace("graph-fuse", f"graph-fuse{{max-group-size={max_size}}}")
    got, ref = run_graph(random_graph(seed), inputs, pipeline=pipeline)
    assert len(got) == len(ref)
    for k, (a, b) in enumerate(zip(got, ref)):
        check(a, b, b, rtol=1e-5, atol=1e-5, what=f"output {k}")


def test_options_checked() -> None:
    with pytest.raises(ValueError, match="max-group-size must be >= 1"):
        GraphFusePass(max_group_size=0)
    assert np.isfinite(rand((2,))).all()
