"""mlc-math-approx against numpy over the whole f32 range: a million random bit patterns (every
class of float: denormals, huge, inf, NaN), a million points dense in the interesting range, and
the special values, through the vector<8xf32> loop and the scalar loop of a JIT kernel.

The error is measured against the float64 result, in units of the f32 spacing there (so a
correctly rounded result is within 0.5 ulp). Measured on this stack (max ulp, vector = scalar):
exp 1.01, expm1 1.44, log 0.90, log1p 1.20, tanh 4.77 and erf 5.73 (one rational fit
each: speed over the last ulps), sin 1.6, cos 1.6, powf 0.50; the bounds below leave half an
ulp of slack or more. 6.5 ulp is a relative error below 7.8e-7, well inside the 1e-5
onnxruntime's and ONNX's tests allow.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.math_kernels import reference, run, ulp_error
from mlc.testing import call, jit_kernels

APPROX = "builtin.module(lower-to-llvm)"
LIBM = "builtin.module(lower-to-llvm{approx-math=false})"
LDEXP = "builtin.module(lower-to-llvm{vector-ldexp=true})"
N = 1 << 20

# op: (dense range, max ulp)
UNARY = {
    "exp": ((-105.0, 90.0), 1.5),
    "expm1": ((-20.0, 90.0), 2.0),
    "log": ((0.0, 16.0), 1.5),
    "log1p": ((-1.0, 16.0), 2.0),
    "tanh": ((-10.0, 10.0), 5.5),
    "erf": ((-5.0, 5.0), 6.5),
    "sin": ((-200.0, 200.0), 2.0),
    "cos": ((-200.0, 200.0), 2.0),
}
SPECIAL = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        -np.nan,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        1e-45,
        -1e-45,
        1e-40,
        2.0**-126,
        -(2.0**-126),
        3.4028235e38,
        -3.4028235e38,
        88.72283,
        88.72284,
        89.0,
        -87.33655,
        -103.2789,
        -103.97208,
        -104.0,
        2.0**20,
        2.0**20 + 1,
        -(2.0**24),
        9.01,
        3.92,
        0.875,
        -0.875,
        1e-8,
        -1e-8,
    ],
    np.float32,
)


def random_bits(seed: int) -> np.ndarray:
    bits = np.random.default_rng(seed).integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    return bits.view(np.float32)


def pad8(x: np.ndarray, multiple: int = 8) -> np.ndarray:
    """Zeros appended up to a whole number of vectors (the kernels have no remainder loop)."""
    return np.concatenate([x, np.zeros(-len(x) % multiple, np.float32)])


def check(
    op: str, got: np.ndarray, inputs: tuple[np.ndarray, ...], max_ulp: float
) -> dict[str, float]:
    exact = reference(op, *inputs)
    err = ulp_error(got, exact)
    worst = int(np.argmax(err))
    where = ", ".join(f"{x[worst]!r}" for x in inputs)
    assert err[worst] <= max_ulp, (
        f"{op}({where}) = {got[worst]!r}, exact {exact[worst]!r}: {err[worst]:.2f} ulp"
    )
    # Same NaNs, same infinities, same signed zeros as numpy.
    np.testing.assert_array_equal(np.isnan(got), np.isnan(exact), err_msg=f"{op}: NaN mismatch")
    zero = exact == 0
    np.testing.assert_array_equal(
        np.signbit(got[zero]), np.signbit(exact[zero]), err_msg=f"{op}: sign of 0"
    )
    finite = (np.abs(exact) >= 2.0**-126) & (
        np.abs(exact) <= np.finfo(np.float32).max
    )  # normal f32
    with np.errstate(all="ignore"):
        rel = np.abs(got[finite] - exact[finite]) / np.abs(exact[finite])
    return {
        "ulp": float(err[worst]),
        "rel": float(rel.max()),
        "abs": float(np.abs(got[finite] - exact[finite]).max()),
    }


@pytest.mark.parametrize("op", list(UNARY))
def test_unary_whole_range(op: str) -> None:
    (lo, hi), max_ulp = UNARY[op]
    x = pad8(
        np.concatenate(
            [random_bits(seed=len(op)), np.linspace(lo, hi, N, dtype=np.float32), SPECIAL, -SPECIAL]
        )
    )
    stats = check(op, run(op, APPROX, x), (x,), max_ulp)
    # The scalar path is the same code on f32: a sample is enough.
    sample = pad8(np.concatenate([x[::16], SPECIAL]))
    check(op, run(op, APPROX, sample, scalar=True), (sample,), max_ulp)
    print(f"{op}: max {stats['ulp']:.2f} ulp, rel {stats['rel']:.3g}, abs {stats['abs']:.3g}")


@pytest.mark.parametrize("lanes", [4, 16])
def test_other_vector_widths_give_the_same_bits(lanes: int) -> None:
    """The rewrite is elementwise: 4 or 16 lanes compute exactly what 8 lanes do."""
    x = pad8(
        np.concatenate(
            [random_bits(seed=5)[:4096], np.linspace(-20, 20, 4096, dtype=np.float32), SPECIAL]
        ),
        multiple=16,
    )
    for op in ("exp", "log1p", "erf", "sin"):
        np.testing.assert_array_equal(
            run(op, APPROX, x, lanes=lanes), run(op, APPROX, x), err_msg=op
        )


def test_exp_of_nonpositive_operands() -> None:
    """`math.exp {mlc.nonpositive}` (a softmax's exp(x - max)): over every x <= 0 and NaN, within
    1.5 ulp down to x = ln FLT_MIN, +0 below (denormal results flushed), NaN for NaN;
    exp(0) and exp(-0) are exactly 1."""
    bits = random_bits(seed=11)
    x = np.concatenate(
        [
            -np.abs(bits[~np.isnan(bits)]),
            np.linspace(-110.0, 0.0, N, dtype=np.float32),
            -np.abs(SPECIAL),
            np.float32([np.nan, -np.nan, -87.33654, -87.33655, -87.33656]),
        ]
    )
    x = pad8(x)
    for got, xs in (
        (run("exp", APPROX, x, attrs="{mlc.nonpositive}"), x),
        (run("exp", APPROX, x[::16], scalar=True, attrs="{mlc.nonpositive}"), x[::16]),
    ):
        exact = reference("exp", xs)
        flushed = xs < np.float32(-126 * np.log(2.0))  # exp(x) < FLT_MIN
        assert ulp_error(got[~flushed], exact[~flushed]).max() <= 1.5
        np.testing.assert_array_equal(got[flushed], 0.0)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(xs))
        assert np.all(got[xs == 0] == 1.0)


@pytest.mark.parametrize("attrs", ["", "{mlc.nonpositive}"])
def test_exp_by_ldexp_gives_the_same_bits(attrs: str) -> None:
    """vector-ldexp scales by 2^k with llvm.ldexp (vscalefps on AVX-512, libm's ldexpf per lane
    elsewhere) instead of two exponent-bit halves: both round once, so every result is the same
    float, denormals, overflow and NaN included; through 8 and 16 lanes and the scalar loop."""
    x = np.concatenate(
        [random_bits(seed=13), np.linspace(-105.0, 90.0, N, dtype=np.float32), SPECIAL, -SPECIAL]
    )
    if attrs:
        x = -np.abs(x)
    x = pad8(x, multiple=16)
    for lanes in (8, 16):
        _same_floats(
            run("exp", LDEXP, x, lanes=lanes, attrs=attrs),
            run("exp", APPROX, x, lanes=lanes, attrs=attrs),
        )
    sample = x[::64]
    _same_floats(
        run("exp", LDEXP, sample, scalar=True, attrs=attrs),
        run("exp", APPROX, sample, scalar=True, attrs=attrs),
    )


def _same_floats(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit, but any NaN for a NaN (payloads are not specified)."""
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


def test_sin_cos_beyond_the_fast_range_use_libm_exactly() -> None:
    """Lanes with |x| > 2^20 take the libm branch and match libm bit for bit; the other lanes of
    the same vectors keep the polynomial's result."""
    rng = np.random.default_rng(7)
    x = np.exp(rng.uniform(np.log(2.0**20), np.log(3e38), 4096)).astype(np.float32)
    x[::2] *= -1
    mixed = np.empty(8192, np.float32)
    mixed[0::2], mixed[1::2] = x, np.linspace(-4, 4, 4096, dtype=np.float32)
    huge = np.abs(mixed) > 2.0**20
    for op in ("sin", "cos"):
        got = run(op, APPROX, mixed)
        np.testing.assert_array_equal(got[huge], run(op, LIBM, mixed)[huge])
        assert ulp_error(got[~huge], reference(op, mixed[~huge])).max() <= UNARY[op][1]


POW_SPECIAL = np.array(
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -2.0,
        0.5,
        -0.5,
        3.0,
        -3.0,
        0.75,
        2.5,
        np.inf,
        -np.inf,
        np.nan,
        1e-45,
        -1e-45,
        1e30,
        -1e30,
    ],
    np.float32,
)


def test_powf_whole_range_and_c99_special_cases() -> None:
    rng = np.random.default_rng(3)
    sx, sy = (a.ravel() for a in np.meshgrid(POW_SPECIAL, POW_SPECIAL))
    x = pad8(
        np.concatenate(
            [
                random_bits(seed=11)[: N // 2],
                rng.uniform(0, 8, N // 2).astype(np.float32),
                rng.uniform(-8, 8, N // 4).astype(np.float32),
                sx,
            ]
        )
    )
    y = pad8(
        np.concatenate(
            [
                random_bits(seed=12)[: N // 2],
                rng.uniform(-40, 40, N // 2).astype(np.float32),
                rng.integers(-20, 20, N // 4).astype(np.float32),
                sy,
            ]
        )
    )
    stats = check("powf", run("powf", APPROX, x, y), (x, y), 1.0)
    check("powf", run("powf", APPROX, x[::16], y[::16], scalar=True), (x[::16], y[::16]), 1.0)
    print(f"powf: max {stats['ulp']:.2f} ulp, rel {stats['rel']:.3g}")


CONST_POWER = """
func.func @vec(%a: memref<?xf32>, %b: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %y = arith.constant dense<{n}.0> : vector<8xf32>
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c8 {{
    %x = vector.load %a[%i] : memref<?xf32>, vector<8xf32>
    %p = math.powf %x, %y : vector<8xf32>
    vector.store %p, %b[%i] : memref<?xf32>, vector<8xf32>
  }}
  return
}}
"""


@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_powf_by_a_small_integer_constant_is_multiplications(n: int) -> None:
    """LpPool's |x|^p: no exp/log for a constant exponent 3-8, and the same results as pow
    (signed zeros, infinities, NaN, overflow, denormals)."""
    engine, module = jit_kernels(CONST_POWER.format(n=n), APPROX)
    assert "llvm.fdiv" not in str(module)  # the log of exp(y log|x|) divides
    x = pad8(np.concatenate([random_bits(seed=20 + n)[: N // 4], SPECIAL]))
    got = np.empty_like(x)
    call(engine, "vec", x, got)
    check("powf", got, (x, np.full_like(x, n)), 0.51)


def test_approximation_is_off_with_approx_math_false() -> None:
    """The libm pipeline still works and agrees (tanh within the approximation's bound)."""
    x = np.linspace(-12, 12, 4096, dtype=np.float32)
    libm, approx = run("tanh", LIBM, x), run("tanh", APPROX, x)
    assert not np.array_equal(libm, approx)  # two different implementations
    assert ulp_error(approx, reference("tanh", x)).max() <= UNARY["tanh"][1]
    assert ulp_error(libm, reference("tanh", x)).max() <= 2.0  # glibc tanhf: 1.8
