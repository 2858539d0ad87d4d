"""Fit the minimax polynomials of the `mlc-math-approx` pass and write their coefficients.

    .venv/bin/python scripts/fit_math_approx.py          # prints each fit, rewrites
                                                         # passes/math_approx/coefficients.py

Each approximation is `sum(c[j] * x**powers[j])` on an interval, minimizing the largest weighted
error `w(x) * (p(x) - g(x))` with the Remez exchange algorithm (float64 on a dense grid, then the
coefficients rounded to the evaluation precision). The weights turn the error of the polynomial
into the relative (or absolute) error of the function it is part of; see each `Fit`. A
`RationalFit` is `P(z) / Q(z)` minimizing the largest relative error (`lawson_rational`).

The float64 fits (LOG_ATANH_F64, EXPM1_F64) land on slightly different coefficients from run
to run (an ill-conditioned basis); the committed ones passed the accuracy tests.
"""

from __future__ import annotations

import math
import pathlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

Fn = Callable[[np.ndarray], np.ndarray]
OUT = pathlib.Path(__file__).resolve().parent.parent / "passes" / "math_approx" / "coefficients.py"


def series(coeffs: Callable[[int], float], terms: int) -> Fn:
    """sum_k coeffs(k) * x**k: a target near 0, where the closed form cancels."""
    return lambda x: sum(coeffs(k) * x**k for k in range(terms))


def near_zero(closed: Fn, small: Fn, cut: float) -> Fn:
    return lambda x: np.where(np.abs(x) < cut, small(x), closed(np.where(np.abs(x) < cut, cut, x)))


@dataclass(frozen=True)
class Fit:
    name: str
    target: Fn
    """g: the function the polynomial approximates."""
    weight: Fn
    lo: float
    hi: float
    powers: tuple[int, ...]
    dtype: str = "f32"
    doc: str = ""


def _expm1_tail() -> Fn:
    # (expm1(r) - r) / r**2 = sum r**k / (k + 2)!
    return near_zero(
        lambda r: (np.expm1(r) - r) / r**2, series(lambda k: 1 / math.factorial(k + 2), 12), 1e-2
    )


def _log1p_tail() -> Fn:
    # (log1p(f) - f + f**2 / 2) / f**3 = sum (-1)**k f**k / (k + 3)
    return near_zero(
        lambda f: (np.log1p(f) - f + f * f / 2) / f**3,
        series(lambda k: (-1) ** k / (k + 3), 30),
        2e-2,
    )


def _sin_tail() -> Fn:
    # (sin(r) - r) / r**3 = sum (-1)**(k+1) r**(2k) / (2k + 3)!
    s = series(lambda k: 0.0 if k % 2 else (-1) ** (k // 2 + 1) / math.factorial(k + 3), 24)
    return near_zero(lambda r: (np.sin(r) - r) / r**3, s, 5e-2)


def _cos_tail() -> Fn:
    # (cos(r) - 1 + r**2 / 2) / r**4 = sum (-1)**k r**(2k) / (2k + 4)!
    s = series(lambda k: 0.0 if k % 2 else (-1) ** (k // 2) / math.factorial(k + 4), 24)
    return near_zero(lambda r: (np.cos(r) - 1 + r * r / 2) / r**4, s, 5e-2)


def _atanh_tail() -> Fn:
    # (2 atanh(s) - 2s) / s**3 = sum 2 s**(2k) / (2k + 3)
    s = series(lambda k: 0.0 if k % 2 else 2 / (k + 3), 30)
    return near_zero(lambda v: (2 * np.arctanh(v) - 2 * v) / v**3, s, 5e-2)


def _expm1_weight(r: np.ndarray) -> np.ndarray:
    # r**2 / |expm1(r)| (-> |r| at 0): the error of P as a relative error of expm1.
    safe = np.where(r == 0, 1.0, r)
    return np.abs(r) * np.abs(safe / np.expm1(safe))


_erf = np.vectorize(math.erf, otypes=[float])
_erfc = np.vectorize(math.erfc, otypes=[float])
LN2 = math.log(2.0)
SQRT2 = math.sqrt(2.0)
ERF_ONE = 3.92
"""erf clamps |x| here (erf rounds to 1 in f32 from 3.92 on); written to coefficients.py."""
TANH_ONE = 9.01
"""tanh clamps |x| here (tanh rounds to 1 in f32 from 9.01 on); written to coefficients.py."""

FITS = [
    # exp and expm1 share one kernel: expm1(r) ~ r + r**2 * P(r) on |r| <= ln2 / 2 (plus slack for
    # the rounding of r). The weight makes the error of P the relative error of expm1.
    Fit(
        "EXPM1",
        _expm1_tail(),
        _expm1_weight,
        -0.3466 * 1.002,
        0.3466 * 1.002,
        tuple(range(5)),
        doc="expm1(r) ~ r + r**2 * P(r), |r| <= ln2/2",
    ),
    # log(x) = e*ln2 + log1p(f), f = m - 1 with m in [sqrt(1/2), sqrt(2)).
    Fit(
        "LOG1P",
        _log1p_tail(),
        lambda f: np.abs(f**3 / np.log1p(f)),
        1 / SQRT2 - 1 - 1e-6,
        SQRT2 - 1 + 1e-6,
        tuple(range(8)),
        doc="log1p(f) ~ f - f**2/2 + f**3 * P(f), f in [sqrt(1/2) - 1, sqrt(2) - 1)",
    ),
    Fit(
        "SIN",
        _sin_tail(),
        lambda r: np.abs(r**3 / np.sin(r)),
        1e-6,
        math.pi / 4 * 1.001,
        (0, 2, 4),
        doc="sin(r) ~ r + r**3 * P(r**2), |r| <= pi/4 (powers of r listed)",
    ),
    Fit(
        "COS",
        _cos_tail(),
        lambda r: r**4 / np.cos(r),
        1e-6,
        math.pi / 4 * 1.001,
        (0, 2, 4),
        doc="cos(r) ~ 1 - r**2/2 + r**4 * P(r**2), |r| <= pi/4 (powers of r listed)",
    ),
    # powf runs in float64: log(m) = 2 atanh(s), s = (m - 1) / (m + 1), and exp's expm1 kernel,
    # accurate enough that y * log(x) keeps the float32 result within an ulp.
    Fit(
        "LOG_ATANH_F64",
        _atanh_tail(),
        lambda s: np.abs(s) ** 3,
        1e-6,
        0.1716 * 1.001,
        (0, 2, 4, 6, 8),
        "f64",
        doc="log(m) ~ 2s + s**3 * P(s**2), |s| <= 0.1716 (powers of s listed; float64)",
    ),
    Fit(
        "EXPM1_F64",
        _expm1_tail(),
        _expm1_weight,
        -0.3466 * 1.002,
        0.3466 * 1.002,
        tuple(range(7)),
        "f64",
        doc="expm1(r) ~ r + r**2 * P(r), |r| <= ln2/2 (float64)",
    ),
]


@dataclass(frozen=True)
class RationalFit:
    """g(z) ~ P(z) / Q(z) with Q(0) = 1, minimizing the largest relative error on [lo, hi]."""

    name: str
    target: Fn
    lo: float
    hi: float
    degrees: tuple[int, int]
    doc: str = ""
    clamp: float | None = None
    """The |x| the evaluation clamps to (written as `<name>_ONE`)."""


def _erf_over_x(z: np.ndarray) -> np.ndarray:
    # erf(x) / x at x = sqrt(z): 2/sqrt(pi) (1 - z/3 + z**2/10 - ...) near 0.
    x = np.sqrt(np.maximum(z, 1e-300))
    series = 2 / math.sqrt(math.pi) * (1 - z / 3 + z * z / 10 - z**3 / 42)
    return np.where(z < 1e-6, series, _erf(x) / x)


def _tanh_over_x(z: np.ndarray) -> np.ndarray:
    x = np.sqrt(np.maximum(z, 1e-300))
    return np.where(z < 1e-6, 1 - z / 3 + 2 * z * z / 15, np.tanh(x) / x)


# erf(x) = x P(x**2) / Q(x**2) for |x| <= ERF_ONE: one division instead of the two branches of
# a piecewise fit (x P(x**2) near 0, 1 - exp(...) beyond), ~3x fewer instructions per element.
# Relative error of erf = relative error of P / Q.
RATIONAL_FITS = [
    RationalFit(
        "ERF",
        _erf_over_x,
        0.0,
        ERF_ONE * ERF_ONE,
        (6, 4),
        doc="erf(x) ~ x * P(x**2) / Q(x**2), |x| <= ERF_ONE (ERF_P, then ERF_Q with Q(0) = 1)",
        clamp=ERF_ONE,
    ),
    # tanh the same way (odd, saturating): ~18 instructions against ~25 for t / (t + 2) with
    # t = expm1(2|x|); degrees (5, 4) are the lowest whose f32 evaluation stays within 5 ulp
    # and gives exactly 1 at the clamp ((4, 4): 0.99999994 for every large x).
    RationalFit(
        "TANH",
        _tanh_over_x,
        0.0,
        TANH_ONE * TANH_ONE,
        (5, 4),
        doc="tanh(x) ~ x * P(x**2) / Q(x**2), |x| <= TANH_ONE (TANH_P, then TANH_Q, Q(0) = 1)",
        clamp=TANH_ONE,
    ),
]


def lawson_rational(
    fit: RationalFit, iterations: int = 1500, grid: int = 40_001
) -> tuple[np.ndarray, np.ndarray, float]:
    """Minimax P, Q of `fit` (float64, lowest power first) and their largest relative error.

    Linearized least squares of (P - g Q) / (g Q_prev) with Lawson's weights: each round
    multiplies a point's weight by its error, which drives the fit to equal ripple (the
    rational Remez exchange is fragile from a poor start; this converges from any)."""
    m, n = fit.degrees
    z = np.linspace(fit.lo, fit.hi, grid)
    t = z / fit.hi  # powers of z / hi keep the system well conditioned
    g = fit.target(z)
    basis = np.concatenate(
        [t[:, None] ** np.arange(m + 1), -g[:, None] * t[:, None] ** np.arange(1, n + 1)], 1
    )
    weights, q_prev = np.full(grid, 1.0 / grid), np.ones(grid)
    best = (np.zeros(m + 1), np.zeros(n + 1), math.inf)
    for _ in range(iterations):
        row = np.sqrt(weights) / (q_prev * g)
        sol = np.linalg.lstsq(basis * row[:, None], g * row, rcond=None)[0]
        p, q = sol[: m + 1], np.concatenate([[1.0], sol[m + 1 :]])
        q_prev = np.polynomial.polynomial.polyval(t, q)
        err = np.polynomial.polynomial.polyval(t, p) / q_prev / g - 1
        worst = float(np.max(np.abs(err)))
        if worst < best[2]:
            best = (p / fit.hi ** np.arange(m + 1), q / fit.hi ** np.arange(n + 1), worst)
        weights = weights * np.abs(err)
        weights /= weights.sum()
    return best


def remez(fit: Fit, iterations: int = 30, grid: int = 200_000) -> tuple[np.ndarray, float]:
    """Minimax coefficients of `fit` and their largest weighted error (float64)."""
    n = len(fit.powers)
    xs = np.linspace(fit.lo, fit.hi, grid)
    basis = np.stack([xs**p for p in fit.powers], axis=1)
    g, w = fit.target(xs), fit.weight(xs)
    # Start from the Chebyshev extrema mapped to the interval.
    k = np.arange(n + 1)
    nodes = np.searchsorted(
        xs, (fit.lo + fit.hi) / 2 - (fit.hi - fit.lo) / 2 * np.cos(np.pi * k / n)
    )
    nodes = np.clip(nodes, 0, grid - 1)
    best = (np.zeros(n), math.inf)
    for _ in range(iterations):
        # w * (p - g) = +-E at the nodes, alternating.
        a = np.concatenate([basis[nodes] * w[nodes, None], ((-1.0) ** k)[:, None]], axis=1)
        sol = np.linalg.solve(a, g[nodes] * w[nodes])
        c = sol[:n]
        err = w * (basis @ c - g)
        worst = float(np.max(np.abs(err)))
        if worst < best[1]:
            best = (c, worst)
        nodes = _alternating_extrema(err, n + 1)
        if nodes is None or abs(worst - abs(sol[n])) <= 1e-3 * worst:
            break
    return best


def _alternating_extrema(err: np.ndarray, count: int) -> np.ndarray | None:
    """`count` indices of alternating-sign local extrema of err, keeping the largest."""
    sign = np.sign(err)
    # One extremum per run of equal sign.
    cuts = np.flatnonzero(np.diff(sign) != 0) + 1
    runs = np.split(np.arange(err.size), cuts)
    idx = [int(r[np.argmax(np.abs(err[r]))]) for r in runs if r.size]
    while len(idx) > count:  # drop the smaller end, or merge the smallest pair
        if abs(err[idx[0]]) < abs(err[idx[-1]]):
            idx.pop(0)
        else:
            idx.pop()
    return np.array(idx) if len(idx) == count else None


def fit_rounded(fit: Fit) -> tuple[list[float], float]:
    """Minimax coefficients representable in fit.dtype: round the lowest free coefficient, refit
    the others to absorb its rounding error, repeat (the leading one matters most)."""
    c, err = remez(fit)
    if fit.dtype == "f64":
        return [float(v) for v in c], err
    fixed: list[float] = []
    while True:
        fixed.append(float(np.float32(c[0])))
        if len(fixed) == len(fit.powers):
            return fixed, err
        done = fit.powers[: len(fixed)]
        coeffs = tuple(fixed)
        rest = replace(
            fit,
            powers=fit.powers[len(fixed) :],
            target=lambda x, f=fit.target, p=done, k=coeffs: (
                f(x) - sum(cj * x**pj for cj, pj in zip(k, p))
            ),
        )
        c, err = remez(rest)


def main() -> int:
    lines = [
        '"""Polynomial coefficients of mlc-math-approx, lowest power first: minimax fits by the',
        "Remez exchange algorithm, rational ones by Lawson iterations (generated by",
        'scripts/fit_math_approx.py; do not edit)."""',
        "",
    ]
    for fit in FITS:
        coeffs, err = fit_rounded(fit)
        xs = np.linspace(fit.lo, fit.hi, 200_001)
        poly = sum(cj * xs**p for cj, p in zip(coeffs, fit.powers))
        err_rounded = float(np.max(np.abs(fit.weight(xs) * (poly - fit.target(xs)))))
        print(
            f"{fit.name}: {len(coeffs)} coefficients, weighted error {err:.3g} "
            f"(2^{math.log2(err):.1f}), after rounding {err_rounded:.3g}"
        )
        lines.append(f"# {fit.doc}")
        lines.append(f"# weighted error {err_rounded:.3g} (2^{math.log2(err_rounded):.1f})")
        lines.append(f"{fit.name} = (")
        lines.extend(f"    {v!r}," for v in coeffs)
        lines.append(")")
        lines.append("")
    for rfit in RATIONAL_FITS:
        p, q, err = lawson_rational(rfit)
        p32, q32 = [float(np.float32(v)) for v in p], [float(np.float32(v)) for v in q]
        zs = np.linspace(rfit.lo, rfit.hi, 200_001)
        poly = np.polynomial.polynomial.polyval
        err_rounded = float(np.max(np.abs(poly(zs, p32) / poly(zs, q32) / rfit.target(zs) - 1)))
        print(
            f"{rfit.name}: degrees {rfit.degrees}, relative error {err:.3g} "
            f"(2^{math.log2(err):.1f}), after rounding {err_rounded:.3g}"
        )
        lines.append(f"# {rfit.doc}")
        lines.append(f"# relative error {err_rounded:.3g} (2^{math.log2(err_rounded):.1f})")
        for suffix, coeffs in (("_P", p32), ("_Q", q32)):
            lines.append(f"{rfit.name}{suffix} = (")
            lines.extend(f"    {v!r}," for v in coeffs)
            lines.append(")")
        if rfit.clamp is not None:
            lines.append(f"{rfit.name}_ONE = {rfit.clamp!r}")
        lines.append("")
    if "--dry-run" not in sys.argv:
        OUT.write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
