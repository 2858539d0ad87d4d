"""graph-simplify: algebraic graph rewrites (batch-norm folding, identities, merges).

The pass is a pattern set run by MLIR's greedy driver (`mlir.rewrite`), with upstream folding,
constant CSE and region simplification off: only the patterns below change the IR.

| group (option)       | root ops                        | rewrite                                 |
|----------------------|---------------------------------|-----------------------------------------|
| fold-batch-norm      | batch_norm                      | into the single-use conv2d before it    |
| fold-conv-affine     | mul, add, sub                   | per-channel constant into conv2d w / b  |
| decompose-batch-norm | batch_norm                      | mul + add by per-channel constants      |
| merge-affine-chains  | mul, add                        | (x * s + t) * c + d -> x * s' + t'      |
| remove-identities    | reshape, transpose, cast, slice,| the operand (no-op data movement);      |
|                      | pad, ... ; add, sub, mul, div   | `x + 0`, `x * 1` ... with literal 0 / 1 |
| merge-data-movement  | reshape-likes, transpose,       | one op (or none) for two in a row       |
|                      | layout_transform                |                                         |
| cancel-reshapes      | reshape-likes                   | reshape(f(reshape(x))) -> f(x) for      |
|                      |                                 | elementwise f, back to x's shape        |
| expand-small-powers  | pow                             | x ** 3 -> x * x * x; ** 0.5 -> sqrt ... |
| multiply-by-reciprocal | div                           | x / c -> x * (1 / c), c a float literal |
| pool-before-pointwise-conv | avg_pool2d            | pool(conv1x1(x)) -> conv1x1(pool(x))    |

New weights and biases are graph ops on the constants; run graph-fold-constants afterwards to
turn them into parameters (`graph-simplify,graph-fold-constants`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.rewrite import (
    GreedyRewriteConfig,
    GreedySimplifyRegionLevel,
    PatternRewriter,
    RewritePatternSet,
    apply_patterns_and_fold_greedily,
)

from .base import ModulePass, PassContext
from .graph_simplify_affine import AFFINE_ROOTS, merge_affine_chain
from .graph_simplify_common import Pattern
from .graph_simplify_conv import (
    decompose_batch_norm,
    fold_batch_norm_into_conv,
    fold_channel_affine_into_conv,
    trim_padding_taps,
)
from .graph_simplify_identity import (
    IDENTITY_ROOTS,
    NEUTRAL_ROOTS,
    RESHAPE_LIKE,
    merge_layout_transforms,
    merge_reshapes,
    merge_transposes,
    remove_identity,
    remove_neutral_operand,
)
from .graph_simplify_pool import pool_before_pointwise_conv
from .graph_simplify_power import expand_small_power, multiply_by_reciprocal
from .graph_simplify_reshape import compute_between_reshapes


def _adapt(pattern: Pattern):  # type: ignore[no-untyped-def]
    """The bindings' convention: a callable returning a truthy value did *not* match."""

    def run(op: ir.OpView, rewriter: PatternRewriter) -> bool:
        return not pattern(op.operation, rewriter)

    run.__name__ = pattern.__name__
    return run


@dataclass(frozen=True)
class GraphSimplifyPass(ModulePass):
    """Fold batch norms and per-channel scales into convolutions, drop no-op data movement."""

    name: ClassVar[str] = "graph-simplify"
    symbolic_dims: ClassVar[bool] = True

    fold_batch_norm: bool = True
    """Fold a batch_norm into the conv2d feeding it when the conv has no other user and its
    weight, bias and the norm's statistics are constants."""

    fold_conv_affine: bool = True
    """Fold a mul / add / sub by a per-channel constant ([1,C,1,1], [C,1,1], [1] ...) that follows
    a single-use conv2d into the conv's weight and bias."""

    decompose_batch_norm: bool = True
    """Rewrite every other batch_norm with constant statistics as x * s + t (per-channel
    constants; elementwise and fusable)."""

    trim_conv_taps: bool = True
    """Drop the outer kernel rows / columns of a conv2d that read padding only, for every output
    position (an atrous conv whose dilation outgrows its feature map)."""

    merge_affine_chains: bool = True
    """Merge chains of mul / add by constants: (x * a) * b, (x + a) + b and (x + a) * b become
    one mul and / or one add of x by constants
    ((x * s + t) * c + d -> x * (s * c) + (t * c + d))."""

    remove_identities: bool = True
    """Remove data movement that does nothing (same-shape reshape/expand, identity transpose,
    same-type cast, full slice, zero pad, unit tile ...) and `x + 0`, `x - 0`, `x * 1`, `x / 1`
    with literal zeros / ones."""

    merge_data_movement: bool = True
    """Merge consecutive reshape-like ops into one reshape, a transpose of a transpose into one
    transpose, and two layout transforms into one (each dropped when it becomes the identity)."""

    cancel_reshapes: bool = True
    """Compute elementwise ops between a reshape and the reshape back on the original shape,
    without both (GPT-2's [T, C] -> [1, T, C] views around its GELU): the ops then fuse with the
    product before them. Operands that broadcast must do so alike on both shapes."""

    expand_small_powers: bool = True
    """Rewrite `x ** c` with a literal c in {±1, ±2, ±3, ±4} as multiplications (of 1 / x
    when c < 0), with c = ±0.5 as a square root (and its reciprocal): a general power is an
    exp/log sequence per element."""

    multiply_by_reciprocal: bool = True
    """Rewrite `x / c` with a float literal c as `x * (1 / c)` where 1 / c is a normal float and
    only continuous functions take the quotient in (erf, exp, matmul ..., directly or through
    mul / add / sub): a multiply instead of a vector division, within 1.5 ulp of the quotient
    (exact when c is a power of two). Quotients that are rounded, compared, cast or returned
    keep the division."""

    pool_before_pointwise_conv: bool = True
    """Average-pool before a 1x1 stride-1 unpadded conv2d instead of after it, when the pool
    has no padding and floor rounding (every window full): the two commute, and the conv runs
    on the pooled pixels (a quarter of the multiply-adds for DenseNet's 2x2 transitions)."""

    def patterns(self) -> list[tuple[str, Pattern, int]]:
        """(root op, pattern, benefit) for the enabled groups."""
        out: list[tuple[str, Pattern, int]] = []
        if self.fold_batch_norm:
            out.append(("graph.batch_norm", fold_batch_norm_into_conv, 2))
        if self.decompose_batch_norm:
            out.append(("graph.batch_norm", decompose_batch_norm, 1))
        if self.fold_conv_affine:
            out += [
                (root, fold_channel_affine_into_conv, 2)
                for root in ("graph.mul", "graph.add", "graph.sub")
            ]
        if self.trim_conv_taps:
            out.append(("graph.conv2d", trim_padding_taps, 1))
        if self.merge_affine_chains:
            out += [(root, merge_affine_chain, 1) for root in AFFINE_ROOTS]
        if self.remove_identities:
            out += [(root, remove_identity, 1) for root in IDENTITY_ROOTS]
            out += [(root, remove_neutral_operand, 1) for root in NEUTRAL_ROOTS]
        if self.merge_data_movement:
            out += [(root, merge_reshapes, 1) for root in RESHAPE_LIKE]
            out += [
                ("graph.transpose", merge_transposes, 1),
                ("graph.layout_transform", merge_layout_transforms, 1),
            ]
        if self.cancel_reshapes:
            out += [(root, compute_between_reshapes, 1) for root in RESHAPE_LIKE]
        if self.expand_small_powers:
            out.append(("graph.pow", expand_small_power, 1))
        if self.multiply_by_reciprocal:
            out.append(("graph.div", multiply_by_reciprocal, 1))
        if self.pool_before_pointwise_conv:
            out.append(("graph.avg_pool2d", pool_before_pointwise_conv, 1))
        return out

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        patterns = self.patterns()
        if not patterns:
            return
        pattern_set = RewritePatternSet()
        for root, pattern, benefit in patterns:
            pattern_set.add(root, _adapt(pattern), benefit)
        config = GreedyRewriteConfig()
        config.enable_folding = False
        config.enable_constant_cse = False
        config.region_simplification_level = GreedySimplifyRegionLevel.DISABLED
        apply_patterns_and_fold_greedily(module, pattern_set.freeze(), config)
