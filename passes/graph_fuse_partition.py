"""graph-fuse's partition of a function's ops into single-result fusion groups.

Ops are visited once, in block order. An elementwise or injective op joins the group that
produces one of its operands when the group's kind allows it (after a conv/matmul/pool/
reduction: same-shape elementwise ops only, applied to the anchor's output tile) and no value
of the group is already used outside it. A value may have several uses inside a group (x *
sigmoid(x), GELU): the group then stays open until its other users join. Such a value must be
read at its own index by all of them (elementwise users of its shape), so that the kernel
evaluates it once per element and keeps it in a register, never recomputes it.

A greedy choice can still leave a group with two values used outside it (a user of an inner
value could not join: the group was full, or the user joined another group). Such a group is
cut after its longest prefix with a single escaping value, and the rest is partitioned again.
Visiting ops and uses is linear in the function's size; a cut costs the size of its group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mlir import ir

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import FusionKind, op_kind
from mlc.dialects.walk import defining_op

FUSIBLE: tuple[FusionKind, ...] = ("elemwise", "injective")
"""Kinds that may join a group; every other kind starts one (or, when opaque, none)."""


@dataclass(eq=False)
class Group:
    """Ops of one kernel, in block order; the last op's result is its only value used outside."""

    root: FusionKind
    ops: list[ir.Operation] = field(default_factory=list)
    sealed: bool = False
    """A value of the group is used by an op outside it: nothing more may join."""

    @property
    def output(self) -> ir.Value:
        return self.ops[-1].results[0]


def _shape(v: ir.Value) -> tuple[int, ...] | None:
    t = tensor_t(v.type)
    return None if t is None else tuple(t.shape)


def _users(v: ir.Value) -> list[ir.Operation]:
    return [use.owner.operation for use in v.uses]


class Partitioner:
    """Partition of one block's ops into groups of at most `max_size` ops; `diamonds`: whether
    a value with several uses may be shared inside a group."""

    def __init__(self, max_size: int, diamonds: bool = True) -> None:
        self.max_size = max_size
        self.diamonds = diamonds
        self._shared_ok: dict[ir.Value, bool] = {}

    def run(self, ops: Sequence[ir.Operation]) -> list[Group]:
        groups = self._greedy(ops)
        if self.max_size == 1:
            return groups
        return [part for g in groups for part in self._repaired(g)]

    # -- greedy pass -----------------------------------------------------------------------
    def _greedy(self, ops: Sequence[ir.Operation]) -> list[Group]:
        group_of: dict[ir.Operation, Group] = {}
        groups: list[Group] = []
        for op in ops:
            kind = op_kind(op)
            target = None if kind == "opaque" else self._target(op, kind, group_of)
            if target is None and kind != "opaque":
                target = Group(kind)
                groups.append(target)
            for v in op.operands:  # values read by another group escape theirs
                owner = defining_op(v)
                source = group_of.get(owner) if owner is not None else None
                if source is not None and source is not target:
                    source.sealed = True
            if target is not None:
                target.ops.append(op)
                group_of[op] = target
        return groups

    def _target(
        self, op: ir.Operation, kind: FusionKind, group_of: dict[ir.Operation, Group]
    ) -> Group | None:
        """The group `op` joins, if any. A group whose inner (non-output) value `op` reads
        comes first: that group cannot be closed without `op`."""
        if kind not in FUSIBLE or self.max_size == 1:
            return None
        best: Group | None = None
        for v in op.operands:
            owner = defining_op(v)
            group = group_of.get(owner) if owner is not None else None
            if group is None or group.sealed or len(group.ops) >= self.max_size:
                continue
            if not self._may_join(op, kind, group, group_of):
                continue
            if v != group.output:
                return group
            best = best or group
        return best

    def _may_join(
        self,
        op: ir.Operation,
        kind: FusionKind,
        group: Group,
        group_of: dict[ir.Operation, Group],
    ) -> bool:
        if group.root not in FUSIBLE:
            # After a conv/matmul/pool/reduction only same-shape elementwise ops, which the
            # lowering applies to the kernel's output tile (in place when the type is kept; an
            # int8 requantization of an i32 accumulator changes it).
            anchor = _shape(group.ops[0].results[0])
            if kind != "elemwise" or anchor is None or _shape(op.results[0]) != anchor:
                return False
        for v in op.operands:
            owner = defining_op(v)
            if owner is not None and group_of.get(owner) is group and not self._shared_ok_for(v):
                return False
        return True

    def _shared_ok_for(self, v: ir.Value) -> bool:
        """Whether every user of `v` may share it inside one group: a value with one use
        always; with several, only elementwise users of its own shape (each reads it at its
        own index, so it is computed once per element)."""
        ok = self._shared_ok.get(v)
        if ok is None:
            users = _users(v)
            shape = _shape(v)
            ok = (
                len(users) == 1
                or self.diamonds
                and all(
                    op_kind(u) == "elemwise"
                    and len(u.results) == 1
                    and _shape(u.results[0]) == shape
                    for u in users
                )
            )
            self._shared_ok[v] = ok
        return ok

    # -- repair ----------------------------------------------------------------------------
    def _repaired(self, group: Group) -> list[Group]:
        """`group` if only its output is used outside it; else its longest such prefix, then
        the rest partitioned again (each piece repaired in turn)."""
        k = _longest_closed_prefix(group.ops)
        if k == len(group.ops):
            return [group]
        head = Group(group.root, group.ops[:k])
        tail = self._greedy(group.ops[k:])
        return [head] + [part for g in tail for part in self._repaired(g)]


def _longest_closed_prefix(ops: Sequence[ir.Operation]) -> int:
    """The largest k such that of ops[:k] only the last op's result is used after ops[:k]."""
    pending: dict[ir.Value, int] = {}  # value of the prefix -> its uses not in the prefix
    best = 1
    for k, op in enumerate(ops, start=1):
        for v in op.operands:
            if v in pending:
                pending[v] -= 1
                if pending[v] == 0:
                    del pending[v]
        for r in op.results:
            n = len(list(r.uses))
            if n:
                pending[r] = n
        if all(v == op.results[0] for v in pending):
            best = k
    return best
