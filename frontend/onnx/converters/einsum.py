"""Einsum as transposes, reshapes, strided slices (diagonals), reduce_sum and batch_matmul.

The equation is parsed into one label per dim (`...` becomes labels of its own, aligned from
the right so that they broadcast numpy-style); an implicit output (no `->`) is the ellipsis
dims, then the letters used once, in alphabetical order. Each operand first takes the diagonal
of repeated labels (the labels moved last, flattened, and sliced with the stride of the
diagonal) and sums out labels nobody else needs; then the operands are contracted left to
right: shared labels still needed are batch dims, the other shared ones the contracted dim of
one `batch_matmul` (float types; integer operands multiply with broadcasting and reduce_sum).
Versions: 12, and 28, which only added bfloat16.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mlc.dialects.graph.spec import is_float

from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


@dataclass
class Term:
    """One operand while the equation is lowered: its value and a label per dim."""

    value: ir.Value
    labels: list[str]
    shape: list[int]


def parse(ctx: ImportContext, equation: str, ranks: list[int]) -> tuple[list[list[str]], list[str]]:
    """(labels of each input, labels of the output); ellipsis dims are `...0`, `...1`, ..."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ctx.unsupported(f"equation '{equation}' has {len(terms)} operands, not {len(ranks)}")
    letters = [t.replace("...", "") for t in terms]
    if any(c not in string.ascii_letters for t in letters + [rhs.replace("...", "")] for c in t):
        raise ctx.unsupported(f"equation '{equation}' has characters other than letters and ...")
    widths = [r - len(t) if "..." in term else 0 for r, t, term in zip(ranks, letters, terms)]
    for r, t, term, w in zip(ranks, letters, terms, widths):
        if w < 0 or ("..." not in term and len(t) != r):
            raise ctx.unsupported(f"operand '{term}' of '{equation}' does not match rank {r}")
    width = max(widths, default=0)
    inputs = []
    for term, w in zip(terms, widths):
        head, _, tail = term.partition("...")
        inputs.append(list(head) + [f"...{width - w + k}" for k in range(w)] + list(tail))
    ellipsis = [f"...{k}" for k in range(width)]
    if arrow:
        head, dots, tail = rhs.partition("...")
        output = list(head) + (ellipsis if dots else []) + list(tail)
    else:
        counts = [c for t in letters for c in t]
        output = ellipsis + sorted(c for c in set(counts) if counts.count(c) == 1)
    used = {label for labels in inputs for label in labels}
    if len(set(output)) != len(output) or set(output) - used:
        raise ctx.unsupported(f"the output of '{equation}' repeats a label or names an unused one")
    return inputs, output


def _transpose(ctx: ImportContext, term: Term, order: list[str]) -> Term:
    """`term` with its (distinct) labels in `order`."""
    perm = [term.labels.index(label) for label in order]
    if perm == list(range(len(perm))):
        return term
    value = ctx.emit("transpose", term.value, perm=perm)
    return Term(value, list(order), [term.shape[p] for p in perm])


def _reshape(ctx: ImportContext, value: ir.Value, old: list[int], new: list[int]) -> ir.Value:
    return value if old == new else ctx.emit("reshape", value, shape=new)


def _diagonals(ctx: ImportContext, term: Term) -> Term:
    """Take the diagonal of every label repeated within the operand ('ii->i', 'bii->bi')."""
    while len(set(term.labels)) != len(term.labels):
        label = next(x for x in term.labels if term.labels.count(x) > 1)
        at = [i for i, x in enumerate(term.labels) if x == label]
        rest = [i for i in range(len(term.labels)) if i not in at]
        n, r = term.shape[at[0]], len(at)
        if any(term.shape[i] != n for i in at):
            raise ctx.unsupported(f"label '{label}' has different sizes in one operand")
        value = term.value
        if rest + at != list(range(len(at) + len(rest))):
            value = ctx.emit("transpose", value, perm=rest + at)
        flat = [term.shape[i] for i in rest] + [n**r]
        value = ctx.emit("reshape", value, shape=flat)
        step = (n**r - 1) // (n - 1) if n > 1 else 1  # 1 + n + ... + n^(r-1): along the diagonal
        value = ctx.emit("slice", value, starts=[0], ends=[n**r], axes=[len(rest)], steps=[step])
        term = Term(value, [term.labels[i] for i in rest] + [label], flat[:-1] + [n])
    return term


def _sum_out(ctx: ImportContext, term: Term, keep: set[str]) -> Term:
    axes = [i for i, label in enumerate(term.labels) if label not in keep]
    if not axes:
        return term
    value = ctx.emit("reduce_sum", term.value, axes=axes, keepdims=0)
    kept = [i for i in range(len(term.labels)) if i not in axes]
    return Term(value, [term.labels[i] for i in kept], [term.shape[i] for i in kept])


def _broadcast(ctx: ImportContext, a: Term, b: Term) -> tuple[Term, Term]:
    """Expand size-1 dims of shared labels to the other operand's size (ellipsis broadcast)."""
    sizes = {}
    for term in (a, b):
        for label, n in zip(term.labels, term.shape):
            if sizes.get(label, 1) not in (1, n) and n != 1:
                raise ctx.unsupported(f"label '{label}' has sizes {sizes[label]} and {n}")
            if n != 1:  # the size other than 1 (a symbolic size is never 1)
                sizes[label] = n
    out = []
    for term in (a, b):
        full = [
            sizes[label] if label in a.labels and label in b.labels else n
            for label, n in zip(term.labels, term.shape)
        ]
        value = term.value if full == term.shape else ctx.emit("expand", term.value, shape=full)
        out.append(Term(value, term.labels, full))
    return out[0], out[1]


def _contract(ctx: ImportContext, a: Term, b: Term, needed: set[str], floating: bool) -> Term:
    """The product of two operands summed over their shared labels that are not `needed`."""
    a = _sum_out(ctx, a, needed | set(b.labels))
    b = _sum_out(ctx, b, needed | set(a.labels))
    a, b = _broadcast(ctx, a, b)
    shared = [x for x in a.labels if x in b.labels]
    batch = [x for x in shared if x in needed]
    summed = [x for x in shared if x not in needed]
    a_only = [x for x in a.labels if x not in shared]
    b_only = [x for x in b.labels if x not in shared]
    size = dict(zip(a.labels + b.labels, a.shape + b.shape))
    dims = [[size[x] for x in group] for group in (batch, a_only, b_only, summed)]
    labels = batch + a_only + b_only
    out_shape = dims[0] + dims[1] + dims[2]
    if floating:
        at, bt = (
            _transpose(ctx, a, batch + a_only + summed),
            _transpose(ctx, b, batch + summed + b_only),
        )
        nb, m, n, k = (math.prod(d) for d in dims)
        lhs = _reshape(ctx, at.value, at.shape, [nb, m, k])
        rhs = _reshape(ctx, bt.value, bt.shape, [nb, k, n])
        product = ctx.emit("batch_matmul", lhs, rhs)
        return Term(_reshape(ctx, product, [nb, m, n], out_shape), labels, out_shape)
    # Integers: broadcast to [batch, a_only, b_only, summed], multiply, sum the last group.
    at, bt = (
        _transpose(ctx, a, batch + a_only + summed),
        _transpose(ctx, b, batch + b_only + summed),
    )
    ones_b, ones_a = [1] * len(b_only), [1] * len(a_only)
    lhs = _reshape(ctx, at.value, at.shape, dims[0] + dims[1] + ones_b + dims[3])
    rhs = _reshape(ctx, bt.value, bt.shape, dims[0] + ones_a + dims[2] + dims[3])
    product = Term(ctx.emit("mul", lhs, rhs), labels + summed, out_shape + dims[3])
    return _sum_out(ctx, product, set(labels))


@converter("Einsum", since=12)
@converter("Einsum", since=28)
def einsum(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Einstein summation over any number of operands (see the module docstring)."""
    names = [name for name in node.input if name]
    types = [ctx.type_of(name) for name in names]
    inputs, output = parse(ctx, ctx.attrs.str("equation"), [t.rank for t in types])
    floating = is_float(types[0].dtype)
    terms = [
        _diagonals(ctx, Term(ctx.value(name), labels, list(t.shape)))
        for name, labels, t in zip(names, inputs, types)
    ]
    for i, term in enumerate(terms):
        others = {x for j, t in enumerate(terms) if j != i for x in t.labels}
        terms[i] = _sum_out(ctx, term, others | set(output))
    result = terms[0]
    for i, term in enumerate(terms[1:], start=1):
        later = {x for t in terms[i + 1 :] for x in t.labels}
        result = _contract(ctx, result, term, later | set(output), floating)
    result = _sum_out(ctx, result, set(output))
    return [_transpose(ctx, result, output).value]
