"""The graph dialect's shape rules on symbolic dims: every op instance of the dialect's lit
files is re-inferred with one of its sizes made symbolic; where the rule answers, the answer at
that size is the static one, and the rules that cannot answer yet are exactly the listed ones."""

from __future__ import annotations

import pathlib
import random

import pytest
from mlir import ir

import mlc
from mlc.dialects.attrs import from_attr, tensor_t
from mlc.dialects.graph.spec import OPS, TensorT
from mlc.dialects.graph.tensor import slice_extent
from mlc.dialects.walk import ops_named
from mlc.symbolic import Dim, evaluate, sym

LIT = pathlib.Path(__file__).parents[2] / "lit_tests" / "dialects" / "graph"
FILES = ("ops.mlir", "ops_elem.mlir", "vision-ops.mlir", "rnn.mlir")

NOT_YET = {
    # window fits the input: decidable only with bounds (--input-shapes n:[3..])
    "avg_pool2d", "conv_nd", "lp_pool_nd", "max_pool2d", "max_pool_indices", "max_pool_nd",
    "max_unpool",
    # a static attribute (target shape, group count, block size) meets the symbolic size
    "reshape", "group_norm", "col2im", "gru_recurrence",
    # the lit instance ties a layout block or coordinate count to the symbolized size
    "conv2d", "deform_im2col", "roi_align",
}  # fmt: skip
"""Ops whose rule raises on some symbolized instance (a clear error, never a wrong shape)."""


def _instances() -> list[tuple[str, list[TensorT | None], dict[str, object]]]:
    """Every op of the lit files (call inside the Context: some attributes stay IR objects)."""
    found = []
    for name in FILES:
        for chunk in (LIT / name).read_text().split("// -----"):
            module = ir.Module.parse(chunk)  # held: its ops die with it
            for op in ops_named(module.operation, "graph."):
                spec = OPS[op.name.removeprefix("graph.")]
                if spec.name != "constant":
                    types = [tensor_t(v.type) for v in op.operands]
                    attrs = {a.name: from_attr(op.attributes[a.name]) for a in spec.attrs}
                    found.append((spec.name, types, attrs))
    return found


def _replace(t: TensorT, size: int, dim: Dim) -> TensorT:
    return TensorT(tuple(dim if d == size else d for d in t.shape), t.dtype)


def test_shape_rules_agree_with_static_inference() -> None:
    with mlc.Context():
        _check_all_rules()


def _check_all_rules() -> None:
    n, answered, refused = sym("n"), set(), set()
    for name, types, attrs in _instances():
        spec = OPS[name]
        want = spec.infer(types, attrs)  # type: ignore[arg-type]
        first = types[0]
        for axis in (0, -2):  # a batch-like and a sequence-like size of the first operand
            if first is None or first.rank < (1 if axis == 0 else 2) or first.shape[axis] <= 1:
                continue
            size = first.shape[axis]
            symbolic = [None if t is None else _replace(t, size, n) for t in types]
            try:
                got = spec.infer(symbolic, attrs)  # type: ignore[arg-type]
            except (ValueError, TypeError, ArithmeticError):
                refused.add(name)
                continue
            answered.add(name)
            for w, g in zip(want, got, strict=True):
                assert g.dtype == w.dtype and g.rank == w.rank, (name, w, g)
                assert tuple(evaluate(d, {"n": size}) for d in g.shape) == w.shape, (name, w, g)
                assert any(isinstance(d, Dim) for t in symbolic if t for d in t.shape)
    assert refused == NOT_YET, f"newly refused: {refused - NOT_YET}, now fine: {NOT_YET - refused}"
    assert len(answered) >= 100


@pytest.mark.parametrize("seed", range(3))
def test_symbolic_slice_extent_is_python_slicing(seed: int) -> None:
    rng, n, big = random.Random(seed), sym("n"), 2**63 - 1
    for _ in range(100):
        start, end = (rng.choice([rng.randint(-9, 9), big, -big - 1]) for _ in range(2))
        step = rng.choice([1, 2, 3, -1, -2, -3])
        extent = slice_extent(n, start, end, step)
        for size in range(1, 14):
            want = len(range(*slice(start, end, step).indices(size)))
            assert evaluate(extent, {"n": size}) == want, (start, end, step, size, extent)
