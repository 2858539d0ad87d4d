"""Integer and bool tensors through graph-to-tp: bools are stored one byte each (0/1, as numpy),
computed on as i1; casts, comparisons, where and logical ops; bool literals in the module."""

from __future__ import annotations

import numpy as np
from mlir import ir

from helpers.graph_exec import check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g


def test_where_with_bool_input_and_compare_output() -> None:
    cond = np.array([[True, False, True], [False, False, True]])
    a, b = rand((2, 3), seed=1), rand((1, 3), seed=2)
    got, ref = run_graph(
        lambda c, x, y: [g.where(c, x, y), g.greater(x, y), g.not_(c)], [cond, a, b]
    )
    check(got[0], ref[0], np.where(cond, a, b), rtol=0, atol=0, what="where")
    check(got[1], ref[1], a > b, what="greater")
    check(got[2], ref[2], ~cond, what="not")


def test_casts_between_float_int_and_bool() -> None:
    x = np.array([[-2.7, -0.0, 0.4], [1.5, 3.0, -1e-3]], np.float32)
    got, ref = run_graph(
        lambda v: [
            g.cast(v, to="i1"),
            g.cast(g.cast(v, to="i1"), to="f32"),
            g.cast(v, to="i64"),
            g.cast(g.cast(v, to="i64"), to="f32"),
            g.cast(g.cast(v, to="i1"), to="i32"),
        ],
        [x],
    )
    nz = x != 0
    check(got[0], ref[0], nz, what="f32->i1")
    check(got[1], ref[1], nz.astype(np.float32), rtol=0, atol=0, what="i1->f32")
    check(got[2], ref[2], np.trunc(x).astype(np.int64), what="f32->i64")
    check(got[3], ref[3], np.trunc(x), rtol=0, atol=0, what="i64->f32")
    check(got[4], ref[4], nz.astype(np.int32), what="i1->i32")


def test_logical_ops_on_bools_stay_bytes() -> None:
    """Buffers of bools are i8 (memref<...xi1> does not lower to LLVM); bodies compute on i1."""
    p, q = rand((8,), seed=3) > 0, rand((8,), seed=4) > 0
    got, ref = run_graph(lambda a, b: [g.and_(a, b), g.xor(a, g.or_(a, b))], [p, q])
    check(got[0], ref[0], p & q, what="and")
    check(got[1], ref[1], p ^ (p | q), what="xor/or")
    text = lower_to_tp(lambda a, b: g.and_(a, b), [p, q])
    assert "xi1>" not in text, "no buffer of i1"
    assert "arith.trunci" in text and "arith.extui" in text


def test_bool_literal_constant() -> None:
    mask = np.array([True, False, False, True])
    x = rand((2, 4), seed=5)

    def body(v: ir.Value) -> ir.Value:
        t = ir.RankedTensorType.get([4], ir.IntegerType.get_signless(1))
        lit = ir.DenseElementsAttr.get(np.packbits(mask, bitorder="little"), type=t)
        return g.where(g.constant(lit, t), v, g.neg(v))

    got, ref = run_graph(body, [x])
    check(got[0], ref[0], np.where(mask, x, -x), rtol=0, atol=0)


def test_int64_arithmetic_and_max() -> None:
    a, b = rand((3, 4), "int64", seed=6), rand((3, 4), "int64", seed=7)
    got, ref = run_graph(
        lambda x, y: [g.max(x, y), g.reduce_max(g.mul(x, y), axes=(1,), keepdims=0)], [a, b]
    )
    check(got[0], ref[0], np.maximum(a, b), what="max")
    check(got[1], ref[1], (a * b).max(axis=1), what="reduce_max of a product")
