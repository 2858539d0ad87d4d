"""graph-fuse's partition of a function's ops into single-result fusion groups, in two steps.

1. Chains, in block order: an elementwise or injective op joins the group of an operand that
   is the group's output and has no other use, when the group's kind allows it (after a
   conv/matmul/pool/reduction: same-shape elementwise ops, applied to the anchor's output
   tile; right after a matmul also transposes and reshapes, which the lowering writes the
   product through, then elementwise ops of their shape). Any other op starts a group; opaque
   ops (constants) join none.
2. Diamonds, from the last group to the first: a group whose output is used only by other
   groups (x and sigmoid(x) -> mul, GELU's branches) merges with all of them when the union
   still has a single value used outside it (its last op's result), at most `max_size` ops,
   one anchor at most (the first op), and every value that becomes internal is read by
   elementwise ops of its own shape: at its own index, so the kernel evaluates it once per
   element (in a register) and never recomputes it. Consumers are settled before their
   producers, so one pass finds chains of diamonds (SiLU after SiLU after a conv).

Both steps visit each op and each use a bounded number of times: linear in the function's size
for a fixed `max_size`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mlir import ir

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import FusionKind, op_kind
from mlc.dialects.walk import defining_op
from mlc.symbolic import Dim

FUSIBLE: tuple[FusionKind, ...] = ("elemwise", "injective")
"""Kinds that may join a group; every other kind starts one (or, when opaque, none)."""


@dataclass(eq=False)
class Group:
    """Ops of one kernel, in block order; the last op's result is its only value used outside.
    `root`: the kind of the op that started it (a group with a conv/matmul/pool/reduction has
    one, which no other op of the group feeds)."""

    root: FusionKind
    ops: list[ir.Operation] = field(default_factory=list)

    @property
    def output(self) -> ir.Value:
        return self.ops[-1].results[0]


def _shape(v: ir.Value) -> tuple[int, ...] | None:
    t = tensor_t(v.type)
    return None if t is None else tuple(t.shape)


def _users(v: ir.Value) -> list[ir.Operation]:
    return [use.owner.operation for use in v.uses]


MATMULS = ("graph.matmul", "graph.batch_matmul")
OUTPUT_REMAPS = ("graph.transpose", "graph.reshape")
"""Injective ops that move every element of their operand exactly once (a bijection)."""


def _only_user(v: ir.Value) -> ir.Operation | None:
    users = _users(v)
    return users[0] if len(users) == 1 else None


def _last_axis_softmax(op: ir.Operation) -> bool:
    shape = _shape(op.results[0])
    if op.name != "graph.softmax" or shape is None or len(shape) < 3:
        return False
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    return axis in (-1, len(shape) - 1)


def _head_bytes(scores: ir.Value) -> int | Dim:
    """Bytes of one head's score matrix (the last two dims)."""
    t = tensor_t(scores.type)
    assert t is not None
    width = max(ir.Type.parse(t.dtype).width // 8, 1)  # type: ignore[attr-defined]
    return t.shape[-1] * t.shape[-2] * width


def _large_heads(scores: ir.Value, min_bytes: int) -> bool:
    """Whether one head's score matrix has at least `min_bytes`; sizes known only at run time
    stay unmerged (three kernels, each scheduled for any size)."""
    size = _head_bytes(scores)
    return isinstance(size, int) and size >= min_bytes


def _same_batch(scores: ir.Value, product: ir.Value) -> bool:
    """Both results have the same batch dims (all but the last two) and more than one batch:
    the blocks can share those loops."""
    a, b = _shape(scores), _shape(product)
    if a is None or b is None or len(a) != len(b) or a[:-1] != b[:-1]:
        return False
    batches = 1
    for n in a[:-2]:
        batches *= n
    return batches > 1


class Partitioner:
    """Partition of one block's ops into groups of at most `max_size` ops; `diamonds`: whether
    groups merge across values with several uses (step 2); `attention`: step 3 for one head's
    scores of at least that many bytes (None: no step 3)."""

    def __init__(self, max_size: int, diamonds: bool = True, attention: int | None = 0) -> None:
        self.max_size = max_size
        self.diamonds = diamonds
        self.attention = attention
        self._position: dict[ir.Operation, int] = {}
        self._identity: dict[ir.Value, bool] = {}

    def run(self, ops: Sequence[ir.Operation]) -> list[Group]:
        self._position = {op: i for i, op in enumerate(ops)}
        groups = self._chains(ops)
        if self.diamonds and self.max_size > 1:
            groups = self._merge_diamonds(groups)
        if self.attention is not None and self.max_size > 1:
            groups = self._merge_attention(groups, self.attention)
        return groups

    # -- step 1: chains --------------------------------------------------------------------
    def _chains(self, ops: Sequence[ir.Operation]) -> list[Group]:
        group_of: dict[ir.Operation, Group] = {}
        groups: list[Group] = []
        for op in ops:
            kind = op_kind(op)
            if kind == "opaque":
                continue
            target = self._chain_target(op, kind, group_of)
            if target is None:
                target = Group(kind)
                groups.append(target)
            target.ops.append(op)
            group_of[op] = target
        return groups

    def _chain_target(
        self, op: ir.Operation, kind: FusionKind, group_of: dict[ir.Operation, Group]
    ) -> Group | None:
        if kind not in FUSIBLE or self.max_size == 1:
            return None
        for v in op.operands:
            owner = defining_op(v)
            group = group_of.get(owner) if owner is not None else None
            if group is None or group.output != v or len(list(v.uses)) != 1:
                continue
            if len(group.ops) >= self.max_size:
                continue
            if group.root in FUSIBLE or self._epilogue_op(op, group):
                return group
        return None

    @staticmethod
    def _epilogue_op(op: ir.Operation, group: Group) -> bool:
        """Whether `op` may join the conv/matmul/pool/reduction of `group`: an elementwise op
        of its output's shape, which the lowering applies to the kernel's output tile (in place
        when the type is kept; an int8 requantization of an i32 accumulator changes it); or,
        right after a matmul, a transpose or reshape of its output (graph-pack-weights' panels
        back to rows): the lowering writes the product through it, and the elementwise ops
        after it are the epilogue."""
        return Partitioner._epilogue_prefix([op], group) == 1

    @staticmethod
    def _epilogue_prefix(ops: list[ir.Operation], group: Group) -> int:
        """How many of `ops` (in order) may follow `group` as its epilogue (`_epilogue_op`):
        output remaps first, then elementwise ops of the remapped shape."""
        anchor = next(o for o in group.ops if op_kind(o) not in FUSIBLE)
        after = group.ops[group.ops.index(anchor) + 1 :]
        remapping = all(o.name in OUTPUT_REMAPS for o in after) and anchor.name in MATMULS
        last = next((o for o in reversed(after) if o.name in OUTPUT_REMAPS), anchor)
        shape = _shape(last.results[0])
        for i, op in enumerate(ops):
            if op.name in OUTPUT_REMAPS and remapping:
                shape = _shape(op.results[0])
            elif op_kind(op) == "elemwise" and shape is not None and _shape(op.results[0]) == shape:
                remapping = False
            else:
                return i
        return len(ops)

    # -- step 2: diamonds ------------------------------------------------------------------
    def _merge_diamonds(self, groups: list[Group]) -> list[Group]:
        group_of = {op: g for g in groups for op in g.ops}
        live = set(groups)
        for producer in sorted(groups, key=self._end, reverse=True):
            if producer not in live:
                continue
            consumers = self._consumers(producer, group_of)
            plan = None if consumers is None else self._plan(producer, consumers)
            if plan is None:
                continue
            merged, rests = plan
            for g in [producer, *consumers]:
                live.discard(g)
            for g in [merged, *rests]:
                live.add(g)
                for op in g.ops:
                    group_of[op] = g
        return sorted(live, key=lambda g: self._position[g.ops[0]])

    def _end(self, group: Group) -> int:
        return self._position[group.ops[-1]]

    @staticmethod
    def _consumers(producer: Group, group_of: dict[ir.Operation, Group]) -> list[Group] | None:
        """The groups using `producer`'s output; None when an op in no group (a return, an
        opaque op) uses it too."""
        out: list[Group] = []
        for user in _users(producer.output):
            group = group_of.get(user)
            if group is None or group is producer:
                return None
            if group not in out:
                out.append(group)
        return out or None

    def _plan(self, producer: Group, consumers: list[Group]) -> tuple[Group, list[Group]] | None:
        """The merged group and what stays of the consumers, or None when they cannot merge.
        After an anchor, a consumer contributes its leading epilogue ops and keeps the rest
        (the layout transform after a conv's SiLU stays a kernel of its own, as before)."""
        late = self._late_operand(producer, consumers)
        if any(g.root not in FUSIBLE for g in consumers) and not late:
            return None  # an anchor starts its kernel: no prologue before it
        members: list[list[ir.Operation]] = [producer.ops]
        rests: list[Group] = []
        for g in consumers:
            k = len(g.ops)
            if producer.root not in FUSIBLE:
                k = self._epilogue_prefix(g.ops, producer)
            if k == 0:
                return None
            members.append(g.ops[:k])
            if k < len(g.ops):
                rests.append(Group(op_kind(g.ops[k]), g.ops[k:]))
        ops = sorted((op for m in members for op in m), key=self._position.__getitem__)
        if len(ops) > self.max_size:
            return None
        inside = set(ops)
        if any(not set(_users(op.results[0])) <= inside for op in ops[:-1]):
            return None  # one result leaves the group: the last op's
        # What each member passed to the others is now evaluated inside one expression.
        boundaries = {m[-1].results[0] for m in members} - {ops[-1].results[0]}
        if not all(self._read_in_place(v) for v in boundaries):
            return None
        return Group(consumers[0].root if late else producer.root, ops), rests

    def _late_operand(self, producer: Group, consumers: list[Group]) -> bool:
        """Whether elementwise `producer` comes after the anchor of its one consumer in block
        order and is of its epilogue's shape: it becomes part of the epilogue (a residual
        branch's dequantize_linear, which graph-stay-quantized moves next to its add: the
        kernel reads the uint8 tensor, not a float copy another kernel wrote)."""
        if producer.root not in FUSIBLE or len(consumers) != 1:
            return False
        (consumer,) = consumers
        if consumer.root in FUSIBLE:
            return False
        if self._position[producer.ops[0]] < self._position[consumer.ops[0]]:
            return False
        return self._epilogue_prefix(producer.ops, consumer) == len(producer.ops)

    # -- step 3: attention -----------------------------------------------------------------
    def _merge_attention(self, groups: list[Group], min_bytes: int) -> list[Group]:
        group_of = {op: g for g in groups for op in g.ops}
        merged: dict[Group, Group] = {}  # a group -> the attention group it joined
        for scores in groups:
            if scores in merged or scores.ops[0].name not in MATMULS:
                continue
            softmax = _only_user(scores.output)
            norm = group_of.get(softmax) if softmax is not None else None
            if norm is None or norm.ops[0] != softmax or not _last_axis_softmax(softmax):
                continue
            product = _only_user(norm.output)
            out = group_of.get(product) if product is not None else None
            if (
                out is None
                or out.ops[0] != product
                or product.name not in MATMULS
                or product.operands[0] != norm.output
                or product.operands[1] == norm.output
                or not _same_batch(scores.output, product.results[0])
                or not _large_heads(scores.output, min_bytes)
                or len(scores.ops) + len(norm.ops) + len(out.ops) > self.max_size
            ):
                continue
            ops = sorted(scores.ops + norm.ops + out.ops, key=self._position.__getitem__)
            group = Group(scores.root, ops)
            for g in (scores, norm, out):
                merged[g] = group
        result: list[Group] = []
        for g in groups:
            g = merged.get(g, g)
            if g not in result:
                result.append(g)
        return sorted(result, key=lambda g: self._position[g.ops[0]])

    def _read_in_place(self, v: ir.Value) -> bool:
        """Whether every user of `v` is an elementwise op of `v`'s shape (reads it at the
        element it computes)."""
        ok = self._identity.get(v)
        if ok is None:
            shape = _shape(v)
            ok = shape is not None and all(
                op_kind(u) == "elemwise" and _shape(u.results[0]) == shape for u in _users(v)
            )
            self._identity[v] = ok
        return ok
