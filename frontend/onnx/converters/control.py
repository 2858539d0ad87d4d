"""Control flow: If, Loop and Scan, by inlining their sub-graphs at import (`subgraph.py`).

* If: a condition known at import inlines the chosen branch only. Otherwise both branches are
  inlined and each output is `where(cond, then, else)`, which needs both branches to give it
  the same type (mlc compiles static shapes).
* Loop: unrolled. The trip count and the initial condition must be known at import, and so must
  every condition the body computes (they decide how many iterations there are). Without a
  condition input the ONNX spec ignores the body's condition while onnxruntime stops on it:
  such a body must keep it constant true. Scan outputs are stacked along a new first axis.
* Scan: unrolled over the scan axis (its length is static). Scan-8 (batch axis first, optional
  sequence_lens) runs the body per batch row; sequence_lens must be absent or all full length.

At most `MAX_ITERATIONS` iterations are unrolled per node. Versions: If and Loop 1 ... 25, Scan
8, 9 ... 25 (after Scan-9 and Loop-1 only element types were added).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph.spec import TensorT

from ..dtypes import mlir_type_of_array
from ..subgraph import inline
from .common import norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

    Value = np.ndarray | ir.Value

MAX_ITERATIONS = 1024
"""Iterations mlc unrolls for one Loop or Scan node (each one is a copy of the body)."""
_LATER = (11, 13, 16, 19, 21, 23, 24, 25)


def _type(ctx: ImportContext, v: Value) -> TensorT:
    if isinstance(v, np.ndarray):
        return TensorT(v.shape, mlir_type_of_array(v, f"a value of {ctx.where}"))
    t = tensor_t(v.type)
    assert t is not None
    return t


def _value(ctx: ImportContext, v: Value, name: str) -> ir.Value:
    return ctx.constant(v, f"{ctx.node_name}.{name}") if isinstance(v, np.ndarray) else v


def _if(ctx: ImportContext, node: onnx.NodeProto) -> list[Value]:
    then_branch, else_branch = ctx.attrs.graph("then_branch"), ctx.attrs.graph("else_branch")
    cond = ctx.const(node, 0)
    if cond is not None:
        if cond.size != 1:
            raise ctx.unsupported(f"the condition has {cond.size} elements (one is needed)")
        taken = bool(cond.reshape(-1)[0])
        return inline(ctx, then_branch if taken else else_branch, [], "then" if taken else "else")
    if ctx.type(node, 0).size != 1:
        raise ctx.unsupported(f"the condition {ctx.type(node, 0)} must hold one element")
    then_outs = inline(ctx, then_branch, [], "then")
    else_outs = inline(ctx, else_branch, [], "else")
    if len(then_outs) != len(else_outs):
        raise ctx.unsupported("the branches return different numbers of outputs")
    scalar = ctx.emit("reshape", ctx.operand(node, 0), shape=[])
    results: list[Value] = []
    for k, (a, b) in enumerate(zip(then_outs, else_outs)):
        ta, tb = _type(ctx, a), _type(ctx, b)
        if ta != tb:
            raise ctx.unsupported(
                f"the condition is not known at import and output #{k} differs between the "
                f"branches ({ta} vs {tb}); mlc compiles static shapes, so both branches are "
                "computed and selected from, which needs equal types (make the condition a "
                "constant to keep one branch)"
            )
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b):
            results.append(a)
            continue
        results.append(
            ctx.emit("where", scalar, _value(ctx, a, f"then{k}"), _value(ctx, b, f"else{k}"))
        )
    return results


for _since in (1, *_LATER):
    converter("If", since=_since)(_if)


def _stack(ctx: ImportContext, values: Sequence[Value], axis: int) -> Value:
    """`values` (equal types) stacked along a new `axis` (numpy.stack)."""
    if all(isinstance(v, np.ndarray) for v in values):
        return np.stack(values, axis=axis)  # type: ignore[arg-type]
    rank = _type(ctx, values[0]).rank + 1
    axis = norm_axis(ctx, axis, rank)
    parts = [ctx.emit("unsqueeze", _value(ctx, v, "scan"), axes=[axis]) for v in values]
    return parts[0] if len(parts) == 1 else ctx.concat(parts, axis)


def _take(ctx: ImportContext, v: Value, axis: int, index: int) -> Value:
    """v[..., index, ...] along `axis`, without that axis."""
    if isinstance(v, np.ndarray):
        return np.take(v, index, axis=axis)
    one = ctx.emit("slice", v, starts=[index], ends=[index + 1], axes=[axis], steps=[1])
    return ctx.emit("squeeze", one, axes=[axis])


def _check_trips(ctx: ImportContext, trips: int) -> None:
    if trips > MAX_ITERATIONS:
        raise ctx.unsupported(
            f"{trips} iterations exceed the {MAX_ITERATIONS} mlc unrolls (it inlines the body "
            "once per iteration)"
        )


def _loop(ctx: ImportContext, node: onnx.NodeProto) -> list[Value]:
    body = ctx.attrs.graph("body")
    max_trips = ctx.const_input(node, 0, "the trip count M")
    cond_in = ctx.const_input(node, 1, "the initial loop condition")
    if max_trips is None and cond_in is None:
        raise ctx.unsupported("has neither a trip count nor a condition (an endless loop)")
    limit = MAX_ITERATIONS if max_trips is None else int(max_trips.reshape(-1)[0])
    keep_going = True if cond_in is None else bool(cond_in.reshape(-1)[0])
    carried = [_input(ctx, node, i) for i in range(2, len(node.input))]
    scans: list[list[Value]] = [[] for _ in range(len(body.output) - 1 - len(carried))]
    trip = 0
    while keep_going and trip < limit:
        _check_trips(ctx, trip + 1)
        outs = inline(ctx, body, [np.array(trip, np.int64), np.array(keep_going), *carried], "body")
        carried = outs[1 : 1 + len(carried)]
        for k, v in enumerate(outs[1 + len(carried) :]):
            scans[k].append(v)
        trip += 1
        keep_going = _condition(ctx, outs[0], trip, given=cond_in is not None)
    if scans and trip == 0:
        raise ctx.unsupported("runs no iteration, so its scan outputs have no known shape")
    return carried + [_stack(ctx, s, 0) for s in scans]


def _condition(ctx: ImportContext, cond: Value, trip: int, given: bool) -> bool:
    """The body's condition after `trip` iterations, which must be known at import."""
    if not isinstance(cond, np.ndarray) and not given:
        raise ctx.unsupported(
            "has no condition input and its body's condition depends on run-time values: the "
            "ONNX spec ignores that condition while onnxruntime stops the loop on it"
        )
    if not isinstance(cond, np.ndarray):
        raise ctx.unsupported(
            f"the condition the body computes in iteration {trip - 1} depends on run-time values, "
            "so the number of iterations (and the shapes of the scan outputs) is unknown; mlc "
            "compiles static shapes"
        )
    value = bool(cond.reshape(-1)[0])
    if not given and not value:
        raise ctx.unsupported(
            "has no condition input but its body returns false: the ONNX spec ignores that "
            "condition while onnxruntime stops the loop; give the condition input to decide"
        )
    return value


for _since in (1, *_LATER):
    converter("Loop", since=_since)(_loop)


def _scan_body(
    ctx: ImportContext,
    body: onnx.GraphProto,
    states: list[Value],
    scan_inputs: list[Value],
    axes: list[int],
    reverse: list[bool],
) -> tuple[list[Value], list[list[Value]]]:
    """Run `body` over the scan inputs' common axis; final states and per-step scan outputs."""
    lengths = {_type(ctx, x).shape[a] for x, a in zip(scan_inputs, axes)}
    if len(lengths) != 1:
        raise ctx.unsupported(f"the scan inputs have different lengths {sorted(lengths)}")
    steps = lengths.pop()
    _check_trips(ctx, steps)
    outputs: list[list[Value]] = [[] for _ in range(len(body.output) - len(states))]
    for t in range(steps):
        elems = [
            _take(ctx, x, a, steps - 1 - t if rev else t)
            for x, a, rev in zip(scan_inputs, axes, reverse)
        ]
        outs = inline(ctx, body, [*states, *elems], "body")
        states = outs[: len(states)]
        for k, v in enumerate(outs[len(states) :]):
            outputs[k].append(v)
    if steps == 0 and outputs:
        raise ctx.unsupported("scans an empty axis, so its scan outputs have no known shape")
    return states, outputs


def _scan(ctx: ImportContext, node: onnx.NodeProto) -> list[Value]:
    body = ctx.attrs.graph("body")
    m = ctx.attrs.int("num_scan_inputs")
    inputs = [_input(ctx, node, i) for i in range(len(node.input))]
    states, scan_inputs = inputs[: len(inputs) - m], inputs[len(inputs) - m :]
    k = len(body.output) - len(states)
    axes = ctx.attrs.ints("scan_input_axes", None) or [0] * m
    in_dirs = ctx.attrs.ints("scan_input_directions", None) or [0] * m
    out_axes = ctx.attrs.ints("scan_output_axes", None) or [0] * k
    out_dirs = ctx.attrs.ints("scan_output_directions", None) or [0] * k
    if len(axes) != m or len(in_dirs) != m or len(out_axes) != k or len(out_dirs) != k:
        raise ctx.unsupported("needs one scan axis and direction per scan input and output")
    axes = [norm_axis(ctx, a, _type(ctx, x).rank) for a, x in zip(axes, scan_inputs)]
    finals, outputs = _scan_body(ctx, body, states, scan_inputs, axes, [bool(d) for d in in_dirs])
    stacked = [
        _stack(ctx, outs[::-1] if rev else outs, axis)
        for outs, axis, rev in zip(outputs, out_axes, out_dirs)
    ]
    return finals + stacked


for _since in (9, *_LATER[:1], *_LATER[2:]):
    converter("Scan", since=_since)(_scan)


@converter("Scan", since=8)
def scan_v8(ctx: ImportContext, node: onnx.NodeProto) -> list[Value]:
    """Scan-8: every input has a batch axis first and the scan axis second; the body sees one
    batch row at a time."""
    body = ctx.attrs.graph("body")
    m = ctx.attrs.int("num_scan_inputs")
    lens = ctx.const_input(node, 0, "sequence_lens")
    inputs = [_input(ctx, node, i) for i in range(1, len(node.input))]
    states, scan_inputs = inputs[: len(inputs) - m], inputs[len(inputs) - m :]
    dirs = ctx.attrs.ints("directions", None) or [0] * m
    if len(dirs) != m:
        raise ctx.unsupported(f"directions {dirs} must give one direction per scan input")
    batch = _type(ctx, (states + scan_inputs)[0]).shape[0]
    steps = _type(ctx, scan_inputs[0]).shape[1] if scan_inputs else 0
    if lens is not None and np.any(lens != steps):
        raise ctx.unsupported(
            f"sequence_lens {lens.tolist()} shorter than the scan axis ({steps}) are not supported"
        )
    _check_trips(ctx, batch * steps)
    finals: list[list[Value]] = [[] for _ in states]
    outputs: list[list[Value]] = []
    for b in range(batch):
        row_states = [_take(ctx, s, 0, b) for s in states]
        row_inputs = [_take(ctx, x, 0, b) for x in scan_inputs]
        done, outs = _scan_body(ctx, body, row_states, row_inputs, [0] * m, [bool(d) for d in dirs])
        for k, v in enumerate(done):
            finals[k].append(v)
        outputs.append([_stack(ctx, o, 0) for o in outs])
    per_output = list(zip(*outputs)) if outputs else []
    return [_stack(ctx, f, 0) for f in finals] + [_stack(ctx, list(o), 0) for o in per_output]


def _input(ctx: ImportContext, node: onnx.NodeProto, i: int) -> Value:
    c = ctx.const(node, i)
    if c is not None:
        return c
    v = ctx.operand(node, i)
    if v is None:
        raise ctx.unsupported(f"input #{i} is absent")
    return v
