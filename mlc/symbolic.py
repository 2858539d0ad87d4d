"""Symbolic dimensions: shape arithmetic over named sizes (`batch`, `seq`) known only at run time.

A `Dim` is a polynomial with integer coefficients over atoms: symbol names and the opaque terms
`a // d`, `a % d`, `max(a, b)`, `min(a, b)`. Arithmetic normalizes, and a result without symbols
is a plain `int`, so code written for static shapes keeps seeing ints where nothing is symbolic
and shape rules run unchanged on tuples mixing both. Equality is structural (`2*seq` equals
`seq + seq`; `seq` never equals `1`): two dims are the same when the expressions are, which is
how shape rules tie dims together. Order comparisons are decided on intervals: every symbol is
assumed >= 1 (or within the bounds installed with `assume`), and a comparison the intervals
cannot decide raises `UndecidableError` rather than guess. `evaluate` gives the value once the
symbols are known; `parse(str(d)) == d`, so expressions travel as text (manifests, attributes).
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

Monomial = tuple[tuple[object, int], ...]  # ((atom, power), ...) sorted by atom key


class UndecidableError(ValueError):
    """A comparison of symbolic dims that the assumed bounds cannot decide at compile time."""


@dataclass(frozen=True)
class Op:
    """An opaque atom: `kind` is `//`, `%`, `max` or `min` over two operands."""

    kind: str
    a: int | Dim
    b: int | Dim

    def __str__(self) -> str:
        if self.kind in ("max", "min"):
            return f"{self.kind}({self.a}, {self.b})"
        return f"{_paren(self.a)} {self.kind} {_paren(self.b)}"


def _key(atom: object) -> str:
    return atom if isinstance(atom, str) else f"~{atom}"


def _paren(x: int | Dim) -> str:
    s = str(x)
    return f"({s})" if isinstance(x, Dim) and (len(x.terms) > 1 or x.terms[0][1] != 1) else s


class Dim:
    """A symbolic size; build one with `sym(name)` and arithmetic, never directly."""

    __slots__ = ("terms", "_hash")

    def __init__(self, terms: tuple[tuple[Monomial, int], ...]) -> None:
        self.terms = terms
        self._hash = hash(terms)

    # -- construction --------------------------------------------------------------------------
    @staticmethod
    def _make(acc: Mapping[Monomial, int]) -> int | Dim:
        terms = tuple(sorted(((m, c) for m, c in acc.items() if c), key=lambda t: _mkey(t[0])))
        if not terms:
            return 0
        if len(terms) == 1 and terms[0][0] == ():
            return terms[0][1]
        return Dim(terms)

    @staticmethod
    def _terms(x: int | Dim) -> dict[Monomial, int]:
        return dict(x.terms) if isinstance(x, Dim) else ({(): int(x)} if x else {})

    # -- arithmetic ----------------------------------------------------------------------------
    def __add__(self, other: int | Dim) -> int | Dim:
        if not _is_dim(other):
            return NotImplemented
        acc = self._terms(self)
        for m, c in self._terms(other).items():
            acc[m] = acc.get(m, 0) + c
        return self._make(acc)

    __radd__ = __add__

    def __neg__(self) -> int | Dim:
        return self._make({m: -c for m, c in self.terms})

    def __sub__(self, other: int | Dim) -> int | Dim:
        return self + (-other) if _is_dim(other) else NotImplemented

    def __rsub__(self, other: int | Dim) -> int | Dim:
        return (-self) + other if _is_dim(other) else NotImplemented

    def __mul__(self, other: int | Dim) -> int | Dim:
        if not _is_dim(other):
            return NotImplemented
        acc: dict[Monomial, int] = {}
        for m1, c1 in self._terms(self).items():
            for m2, c2 in self._terms(other).items():
                m = _mono_mul(m1, m2)
                acc[m] = acc.get(m, 0) + c1 * c2
        return self._make(acc)

    __rmul__ = __mul__

    def __floordiv__(self, other: int | Dim) -> int | Dim:
        return floordiv(self, other) if _is_dim(other) else NotImplemented

    def __rfloordiv__(self, other: int | Dim) -> int | Dim:
        return floordiv(other, self) if _is_dim(other) else NotImplemented

    def __mod__(self, other: int | Dim) -> int | Dim:
        return mod(self, other) if _is_dim(other) else NotImplemented

    def __rmod__(self, other: int | Dim) -> int | Dim:
        return mod(other, self) if _is_dim(other) else NotImplemented

    # -- comparison ----------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dim) and self.terms == other.terms

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: int | Dim) -> bool:
        return compare(self, "<", other)

    def __le__(self, other: int | Dim) -> bool:
        return compare(self, "<=", other)

    def __gt__(self, other: int | Dim) -> bool:
        return compare(self, ">", other)

    def __ge__(self, other: int | Dim) -> bool:
        return compare(self, ">=", other)

    def __bool__(self) -> bool:
        return compare(self, "!=", 0)

    def __int__(self) -> int:
        raise UndecidableError(f"the size {self} is only known at run time")

    __index__ = __int__

    def __str__(self) -> str:
        text = ""
        for i, (m, c) in enumerate(self.terms):
            # `//` and `%` bind like `*`: an op factor is bare only as a whole term
            alone = c == 1 and len(m) == 1 and m[0][1] == 1
            factors = [
                str(a) if isinstance(a, str) or alone or a.kind in ("max", "min") else f"({a})"
                for a, p in m
                for _ in range(p)
            ]
            size = abs(c)
            term = "*".join(([str(size)] if size != 1 or not factors else []) + factors)
            sign = ("-" if c < 0 else "") if i == 0 else (" - " if c < 0 else " + ")
            text += sign + term
        return text

    __repr__ = __str__


def _is_dim(x: object) -> bool:
    return isinstance(x, (int, Dim)) and not isinstance(x, bool)


def _mkey(m: Monomial) -> tuple[int, str]:
    return (-sum(p for _, p in m), "*".join(f"{_key(a)}^{p}" for a, p in m))


def _mono_mul(m1: Monomial, m2: Monomial) -> Monomial:
    powers: dict[object, int] = dict(m1)
    for a, p in m2:
        powers[a] = powers.get(a, 0) + p
    return tuple(sorted(powers.items(), key=lambda t: _key(t[0])))


def sym(name: str) -> Dim:
    """The symbolic size `name` (an identifier, as ONNX dim_params usually are)."""
    if not name.isidentifier():
        raise ValueError(f"symbolic dim name {name!r} is not an identifier")
    return Dim(((((name, 1),), 1),))


def is_static(x: int | Dim) -> bool:
    return not isinstance(x, Dim)


def floordiv(a: int | Dim, b: int | Dim) -> int | Dim:
    if not isinstance(a, Dim) and not isinstance(b, Dim):
        return a // b
    if isinstance(b, int):
        if b == 0:
            raise ZeroDivisionError(f"{a} // 0")
        if all(c % b == 0 for _, c in a.terms):  # type: ignore[union-attr]
            return Dim._make({m: c // b for m, c in a.terms})  # type: ignore[union-attr]
        whole, rest = _split_multiples(a, b)  # (b*q + r) // b == q + r // b, exactly
        if whole:
            return whole + floordiv(rest, b)
        inner = _lone_op(a)
        if b > 0 and inner is not None and inner.kind == "//" and isinstance(inner.b, int):
            if inner.b > 0:  # (x // k) // b == x // (k * b) for positive k and b
                return floordiv(inner.a, inner.b * b)
    elif a == b:
        return 1
    else:
        q = _exact_quotient(a, b)
        if q is not None:
            return q
    return Dim(((((Op("//", a, b), 1),), 1),))


def _lone_op(x: int | Dim) -> Op | None:
    """The opaque atom `x` is, if `x` is exactly one (coefficient 1, power 1)."""
    if isinstance(x, Dim) and len(x.terms) == 1:
        ((m, c),) = x.terms
        if c == 1 and len(m) == 1 and m[0][1] == 1 and isinstance(m[0][0], Op):
            return m[0][0]
    return None


def _split_multiples(a: Dim, b: int) -> tuple[int | Dim, int | Dim]:
    """(q, r) with a == b*q + r: q from the terms whose coefficients b divides."""
    whole = {m: c // b for m, c in a.terms if c % b == 0}
    return Dim._make(whole), Dim._make({m: c for m, c in a.terms if c % b})


def mod(a: int | Dim, b: int | Dim) -> int | Dim:
    if not isinstance(a, Dim) and not isinstance(b, Dim):
        return a % b
    if isinstance(b, int) and isinstance(a, Dim) and all(c % b == 0 for _, c in a.terms):
        return 0
    if isinstance(b, int) and b and isinstance(a, Dim):
        whole, rest = _split_multiples(a, b)
        if whole:
            return mod(rest, b)
    if a == b or (isinstance(b, Dim) and _exact_quotient(a, b) is not None):
        return 0
    return Dim(((((Op("%", a, b), 1),), 1),))


def _exact_quotient(a: int | Dim, b: Dim) -> int | Dim | None:
    """a / b when b is one monomial dividing every term of a (`batch*seq / seq`), or when a is
    b times a monomial (`(128*n + 128*n*k) / (32*n + 32*n*k)`: 4, from flattened heads)."""
    if len(b.terms) != 1:
        if not isinstance(a, Dim):
            return None
        lead = Dim((b.terms[0],))  # terms sort highest degree first: leads divide if any do
        q = _exact_quotient(Dim((a.terms[0],)), lead)
        return q if q is not None and q * b == a else None
    (bm, bc), acc = b.terms[0], {}
    for m, c in Dim._terms(a).items():
        powers = dict(m)
        for atom, p in bm:
            if powers.get(atom, 0) < p:
                return None
            powers[atom] -= p
        if c % bc:
            return None
        acc[tuple(sorted(((x, p) for x, p in powers.items() if p), key=lambda t: _key(t[0])))] = (
            c // bc
        )
    return Dim._make(acc)


def maximum(a: int | Dim, b: int | Dim) -> int | Dim:
    return _extremum("max", a, b)


def minimum(a: int | Dim, b: int | Dim) -> int | Dim:
    return _extremum("min", a, b)


def _extremum(kind: str, a: int | Dim, b: int | Dim) -> int | Dim:
    if a == b:
        return a
    lo, hi = interval(a - b)
    if lo >= 0 or hi <= 0:  # decided: a >= b or a <= b
        return a if (lo >= 0) == (kind == "max") else b
    x, y = sorted((a, b), key=str)
    return Dim(((((Op(kind, x, y), 1),), 1),))


# -- bounds and intervals ------------------------------------------------------------------------

Bounds = Mapping[str, tuple[int, int | None]]
_BOUNDS: contextvars.ContextVar[Bounds | None] = contextvars.ContextVar(
    "mlc_dim_bounds", default=None
)


@contextlib.contextmanager
def assume(bounds: Bounds) -> Iterator[None]:
    """Within the block, symbol `name` lies in `bounds[name]` (lo, hi or None: unbounded)."""
    token = _BOUNDS.set({**(_BOUNDS.get() or {}), **bounds})
    try:
        yield
    finally:
        _BOUNDS.reset(token)


def interval(x: int | Dim) -> tuple[float, float]:
    """Lowest and highest value of `x` under the assumed bounds (symbols default to >= 1)."""
    if not isinstance(x, Dim):
        return (x, x)
    lo = hi = 0.0
    for m, c in x.terms:
        term = (float(c), float(c))
        for atom, p in m:
            for _ in range(p):
                term = _iv_mul(term, _atom_interval(atom))
        lo, hi = lo + term[0], hi + term[1]
    return lo, hi


def _iv_mul(x: tuple[float, float], y: tuple[float, float]) -> tuple[float, float]:
    products = [0.0 if a == 0 or b == 0 else a * b for a in x for b in y]  # 0 * inf is 0
    return min(products), max(products)


def _atom_interval(atom: object) -> tuple[float, float]:
    if isinstance(atom, str):
        lo, hi = (_BOUNDS.get() or {}).get(atom, (1, None))
        return float(lo), math.inf if hi is None else float(hi)
    assert isinstance(atom, Op)
    (alo, ahi), (blo, bhi) = interval(atom.a), interval(atom.b)
    if atom.kind == "max":
        return max(alo, blo), max(ahi, bhi)
    if atom.kind == "min":
        return min(alo, blo), min(ahi, bhi)
    if blo < 1:  # a divisor that may be <= 0: nothing is known
        return -math.inf, math.inf
    if atom.kind == "%":
        return 0.0, bhi - 1
    lo = alo / (bhi if alo >= 0 else blo)  # a / b over b in [blo, bhi], b >= 1
    hi = ahi / (blo if ahi >= 0 else bhi)
    return _floor(lo), _floor(hi)


def _floor(v: float) -> float:
    return v if math.isinf(v) or math.isnan(v) else float(math.floor(v))


# (true when, false when) on the interval [lo, hi] of a - b
_DECIDE = {
    "<": (lambda lo, hi: hi <= -1, lambda lo, hi: lo >= 0),
    "<=": (lambda lo, hi: hi <= 0, lambda lo, hi: lo >= 1),
    ">": (lambda lo, hi: lo >= 1, lambda lo, hi: hi <= 0),
    ">=": (lambda lo, hi: lo >= 0, lambda lo, hi: hi <= -1),
    "!=": (lambda lo, hi: lo >= 1 or hi <= -1, lambda lo, hi: lo == hi == 0),
}


def compare(a: int | Dim, op: str, b: int | Dim) -> bool:
    """`a op b` decided on intervals; UndecidableError when the bounds allow both answers."""
    lo, hi = interval(a - b)
    true, false = _DECIDE[op]
    if true(lo, hi):
        return True
    if false(lo, hi):
        return False
    raise UndecidableError(
        f"cannot decide {a} {op} {b} at compile time ({a} - {b} lies in [{lo:g}, {hi:g}]); "
        "give the dims bounds or fixed sizes with --input-shapes"
    )


# -- equalities assumed at compile time, checked at run time -------------------------------------

_CHECKS: contextvars.ContextVar[list[tuple[int | Dim, int | Dim]] | None] = contextvars.ContextVar(
    "mlc_dim_checks", default=None
)


@contextlib.contextmanager
def collect_checks() -> Iterator[list[tuple[int | Dim, int | Dim]]]:
    """Collect the equalities `unify` assumes within the block (for the run-time checks)."""
    checks: list[tuple[int | Dim, int | Dim]] = []
    token = _CHECKS.set(checks)
    try:
        yield checks
    finally:
        _CHECKS.reset(token)


def unify(dims: set[int | Dim]) -> int | Dim | None:
    """One size standing for all of `dims`, which a shape rule needs equal (broadcasting):
    the simplest of them, each other one recorded as a run-time check of equality with it
    (`min(512, seq)` and `seq` are equal when seq <= 512). None when two cannot be equal."""
    chosen = min(dims, key=lambda d: (isinstance(d, Dim), _complexity(d), str(d)))
    for d in dims:
        if d != chosen:
            lo, hi = interval(d - chosen)
            if lo > 0 or hi < 0:
                return None
            checks = _CHECKS.get()
            if checks is not None and (d, chosen) not in checks:
                checks.append((d, chosen))
    return chosen


def _complexity(d: int | Dim) -> int:
    return 0 if not isinstance(d, Dim) else len(str(d))


# -- values and text -----------------------------------------------------------------------------


def free_symbols(x: int | Dim) -> set[str]:
    out: set[str] = set()
    if isinstance(x, Dim):
        for m, _ in x.terms:
            for atom, _ in m:
                if isinstance(atom, str):
                    out.add(atom)
                else:
                    out |= free_symbols(atom.a) | free_symbols(atom.b)
    return out


def evaluate(x: int | Dim, env: Mapping[str, int]) -> int:
    """The value of `x` with every symbol given; KeyError names a missing one."""
    if not isinstance(x, Dim):
        return int(x)
    total = 0
    for m, c in x.terms:
        value = c
        for atom, p in m:
            value *= _atom_value(atom, env) ** p
        total += value
    return total


def _atom_value(atom: object, env: Mapping[str, int]) -> int:
    if isinstance(atom, str):
        if atom not in env:
            raise KeyError(f"no value for the symbolic dim '{atom}'")
        return int(env[atom])
    assert isinstance(atom, Op)
    a, b = evaluate(atom.a, env), evaluate(atom.b, env)
    return {"//": lambda: a // b, "%": lambda: a % b, "max": lambda: max(a, b)}.get(
        atom.kind, lambda: min(a, b)
    )()


def parse(text: str) -> int | Dim:
    """The dim `str(d)` printed: integers, names, + - * // %, max(a, b), min(a, b), ()."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise ValueError(f"'{text}' is not a dim expression") from None
    return _build(tree, text)


def _build(node: ast.AST, text: str) -> int | Dim:
    bins = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}
    bins |= {ast.FloorDiv: floordiv, ast.Mod: mod}
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return sym(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_build(node.operand, text)
    if isinstance(node, ast.BinOp) and type(node.op) in bins:
        return bins[type(node.op)](_build(node.left, text), _build(node.right, text))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("max", "min")
        and len(node.args) == 2
        and not node.keywords
    ):
        fn = maximum if node.func.id == "max" else minimum
        return fn(_build(node.args[0], text), _build(node.args[1], text))
    raise ValueError(f"'{text}' is not a dim expression (unexpected {ast.unparse(node)!r})")


__all__ = [
    "Dim",
    "UndecidableError",
    "assume",
    "collect_checks",
    "compare",
    "evaluate",
    "floordiv",
    "free_symbols",
    "interval",
    "is_static",
    "maximum",
    "minimum",
    "mod",
    "parse",
    "sym",
    "unify",
]
