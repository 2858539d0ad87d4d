"""mlc-math-approx: f32 transcendental math ops as inline polynomial approximations.

LLVM turns a vector `math.exp` into one libm call per lane and `math.erf`/`math.tanh` into
libm calls (convert-math-to-libm); upstream's polynomial approximations are not reachable from
the Python bindings. This pass replaces each f32 op (scalar, or vector of any shape) with
arith/math ops that stay vectors: fma, bit casts, integer shifts, compares and selects.

| op          | method                                             | special values      |
|-------------|----------------------------------------------------|---------------------|
| exp, expm1  | k ln2 + r, expm1(r) polynomial, 2^k by exponent bits | overflow, denormals |
| exp {mlc.nonpositive} | the same for x <= 0: one 2^k, no clamps      | denormal results are 0 |
| log, log1p  | 2^e m, log1p(m - 1) polynomial                      | 0, < 0, inf, denormals |
| tanh        | x P(x^2) / Q(x^2), x clamped to +-9.01, |y| <= 1    | saturates at 1      |
| erf         | x P(x^2) / Q(x^2), x clamped to +-3.92             | saturates at 1      |
| sin, cos    | k pi/2 + r, sin/cos polynomials by quadrant         | libm branch, |x| > 2^20 |
| powf        | float64 exp(y log|x|); y = 1-8 as multiplications  | C99 pow rules       |

With `vector-ldexp` exp scales by 2^k with one llvm.ldexp instead (the same bits).

Every result matches numpy's within a few ulp over the whole f32 range, including +-inf, NaN,
signed zeros and denormals (tests/passes/test_math_approx_accuracy.py measures it). f64 ops
are left to libm; run math-extend-to-supported-types first to bring f16/bf16 ops to f32.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.walk import walk

from ..base import ModulePass, PassContext
from . import exp_log, power, tanh_erf, trig
from .builder import Builder, element_type

Approximation = Callable[[Builder, ir.Operation], ir.Value]

APPROXIMATIONS: dict[str, Approximation] = {
    "exp": lambda b, op: (
        exp_log.exp_nonpositive if exp_log.NONPOSITIVE_ATTR in op.attributes else exp_log.exp
    )(b, op.operands[0]),
    "expm1": lambda b, op: exp_log.expm1(b, op.operands[0]),
    "log": lambda b, op: exp_log.log(b, op.operands[0]),
    "log1p": lambda b, op: exp_log.log1p(b, op.operands[0]),
    "tanh": lambda b, op: tanh_erf.tanh(b, op.operands[0]),
    "erf": lambda b, op: tanh_erf.erf(b, op.operands[0]),
    "sin": lambda b, op: trig.sin(b, op.operands[0], op),
    "cos": lambda b, op: trig.cos(b, op.operands[0], op),
    "powf": lambda b, op: power.powf(b, op.operands[0], op.operands[1]),
}
SUPPORTED = tuple(APPROXIMATIONS)


@dataclass(frozen=True)
class MathApproxPass(ModulePass):
    """Replace f32 exp/expm1/log/log1p/tanh/erf/sin/cos/powf by inline vector polynomials."""

    name: ClassVar[str] = "mlc-math-approx"
    symbolic_dims: ClassVar[bool] = True
    emits_mlc_dialects: ClassVar[bool] = False

    ops: tuple[str, ...] = SUPPORTED
    """The math ops to replace, by name without `math.` (exp, expm1, log, log1p, tanh, erf, sin,
    cos, powf); the others are left for convert-math-to-llvm / convert-math-to-libm."""
    vector_ldexp: bool = False
    """exp scales by 2^k with one `llvm.ldexp` (AVX-512: vscalefps) instead of building 2^k
    from exponent bits (the same bits, ~8 vector ops fewer). Only for targets that have the
    instruction: elsewhere LLVM makes it one libm call per lane."""

    def __post_init__(self) -> None:
        unknown = [o for o in self.ops if o not in APPROXIMATIONS]
        if unknown:
            raise ValueError(
                f"ops: no approximation for {', '.join(unknown)} "
                f"(supported: {', '.join(SUPPORTED)})"
            )

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        wanted = {f"math.{o}": APPROXIMATIONS[o] for o in self.ops}
        targets = [
            op
            for op in walk(module)
            if op.name in wanted and _is_f32(op) and trig.EXACT_ATTR not in op.attributes
        ]
        for op in targets:
            with ir.InsertionPoint(op), op.location:
                result = wanted[op.name](Builder(op.results[0].type, self.vector_ldexp), op)
            op.results[0].replace_all_uses_with(result)
            op.erase()


def _is_f32(op: ir.Operation) -> bool:
    return isinstance(element_type(op.results[0].type), ir.F32Type)
