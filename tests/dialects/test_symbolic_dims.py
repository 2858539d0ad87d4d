"""Symbolic dims (`mlc.symbolic`): arithmetic agrees with integers at every
substitution, prints and parses back, and compares only where the bounds decide."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mlc.symbolic import (
    Dim,
    UndecidableError,
    assume,
    evaluate,
    floordiv,
    free_symbols,
    interval,
    maximum,
    minimum,
    mod,
    parse,
    sym,
)

NAMES = ("batch", "seq", "past")


def _random_tree(rng: random.Random, depth: int):  # type: ignore[no-untyped-def]
    """A random expression as a pair of functions: one over Dims, one over ints."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.6:
            name = rng.choice(NAMES)
            return (lambda env, n=name: sym(n)), (lambda env, n=name: env[n])
        k = rng.randint(-3, 9)
        return (lambda env, k=k: k), (lambda env, k=k: k)
    op = rng.choice(["+", "-", "*", "//", "%", "max", "min"])
    (sa, ia), (sb, ib) = _random_tree(rng, depth - 1), _random_tree(rng, depth - 1)
    if op in ("//", "%"):  # divisors: positive constants or a symbol (sizes are >= 1)
        if rng.random() < 0.5:
            d = rng.randint(1, 8)
            sb, ib = (lambda env, d=d: d), (lambda env, d=d: d)
        else:
            name = rng.choice(NAMES)
            sb, ib = (lambda env, n=name: sym(n)), (lambda env, n=name: env[n])
    sym_fn = {
        "+": lambda x, y: x + y,
        "-": lambda x, y: x - y,
        "*": lambda x, y: x * y,
        "//": floordiv,
        "%": mod,
        "max": maximum,
        "min": minimum,
    }[op]
    int_fn = {"//": lambda x, y: x // y, "%": lambda x, y: x % y, "max": max, "min": min}.get(
        op, sym_fn
    )
    return (lambda env: sym_fn(sa(env), sb(env))), (lambda env: int_fn(ia(env), ib(env)))


@pytest.mark.parametrize("seed", range(200))
def test_symbolic_arithmetic_matches_integers(seed: int) -> None:
    rng = random.Random(seed)
    build, direct = _random_tree(rng, 4)
    expr = build(None)
    text = str(expr)
    back = parse(text)
    assert back == expr, text
    for _ in range(20):
        env = {n: rng.randint(1, 40) for n in NAMES}
        want = direct(env)
        assert evaluate(expr, env) == want, (text, env)
        assert evaluate(back, env) == want, (text, env)
        lo, hi = interval(expr)
        assert lo <= want <= hi, (text, env, lo, hi)


def test_normal_form_and_static_results() -> None:
    b, s = sym("batch"), sym("seq")
    assert isinstance(s - s, int) and s - s == 0
    assert (b * s * 12) // 12 == b * s and (b * s * 768) // (s * 768) == b
    assert s + s == 2 * s and hash(s + s) == hash(2 * s)
    assert (s * 4) % 2 == 0 and floordiv(s, s) == 1
    assert s != 1 and 1 != s and s != "seq"  # a symbol is never a particular size
    assert len({s, s * 1, s + 0, b}) == 2
    assert str((s + 1) // 2 + b * s) == "batch*seq + (seq + 1) // 2"
    assert (s - 1) // 2 // 2 // 2 + 1 == (s - 1) // 8 + 1  # nested halvings of a conv net
    assert free_symbols(maximum(b, s) + (s % 4)) == {"batch", "seq"}
    assert isinstance(b, Dim) and not isinstance(b * 0, Dim)
    # a multi-term size times a constant divides exactly (heads flattened after a strided conv)
    tokens = b * ((s - 1) // 2) + b
    assert (128 * tokens) % (32 * tokens) == 0 and (128 * tokens) // (32 * tokens) == 4
    assert isinstance((128 * tokens + 1) // (32 * tokens), Dim)


def test_comparisons_follow_bounds() -> None:
    s = sym("seq")
    assert s >= 1 and s + 1 > s and not (s < 1) and bool(s)
    assert maximum(s, 1) == s and minimum(s, 0) == 0
    with pytest.raises(UndecidableError, match="cannot decide seq > 4"):
        _ = s > 4
    with assume({"seq": (8, 512)}):
        assert s > 4 and s <= 512 and interval(2 * s) == (16, 1024)
        with pytest.raises(UndecidableError):
            _ = s < 100
    with pytest.raises(UndecidableError, match="only known at run time"):
        int(s)
    with pytest.raises(UndecidableError):
        range(s)  # type: ignore[call-overload]


def test_numpy_object_arrays_compute_shapes() -> None:
    b, s = sym("batch"), sym("seq")
    shape = np.array([b, s, 768], dtype=object)
    assert shape.prod() == b * s * 768
    new = np.concatenate([shape[:2], np.array([12, 64], dtype=object)])
    assert list(new) == [b, s, 12, 64]
    assert list(shape[[1, 0]] * 2) == [2 * s, 2 * b]


def test_bad_text_and_names() -> None:
    for text in ("seq +", "seq ** 2", "f(seq)", "seq.x", "1.5"):
        with pytest.raises(ValueError, match="not a dim expression"):
            parse(text)
    with pytest.raises(ValueError, match="not an identifier"):
        sym("batch size")
    with pytest.raises(KeyError, match="'seq'"):
        evaluate(sym("seq") + 1, {"batch": 1})
    with pytest.raises(ZeroDivisionError):
        floordiv(sym("seq"), 0)
