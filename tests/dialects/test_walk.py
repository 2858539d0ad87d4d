"""The IR walk helpers every pass and the per-pass verification use: pre-order, the root
excluded, collected before the caller sees the first op (so it may erase while iterating)."""

from __future__ import annotations

from mlir import ir

import mlc
from mlc.dialects.walk import nested_ops, ops_named, walk

NESTED = """
func.func @f(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    %b = scf.if %t -> (f32) {
      %s = arith.addf %a, %a : f32
      scf.yield %s : f32
    } else {
      scf.yield %a : f32
    }
    scf.yield %b : f32
  }
  return %r : f32
}
func.func @g() {
  return
}
"""


def _reference(op: ir.Operation) -> list[str]:
    """Pre-order names by plain recursion over regions, blocks and ops."""
    names: list[str] = []
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                names.append(child.operation.name)
                names += _reference(child.operation)
    return names


def _module() -> ir.Module:
    return ir.Module.parse(NESTED, mlc.Context())


def test_walk_is_pre_order_without_the_root():
    module = _module()
    names = [op.name for op in walk(module.operation)]
    assert names == _reference(module.operation)
    assert names[:2] == ["func.func", "arith.constant"]
    assert "builtin.module" not in names
    func = nested_ops(module.operation)[0]
    assert [op.name for op in nested_ops(func)] == _reference(func)
    assert "func.func" not in [op.name for op in nested_ops(func)]


def test_ops_named_takes_one_prefix_or_several():
    module = _module()
    assert [op.name for op in ops_named(module.operation, "scf.")] == [
        "scf.for", "scf.if", "scf.yield", "scf.yield", "scf.yield"
    ]  # fmt: skip
    both = ops_named(module.operation, ("func.", "arith.addf"))
    assert [op.name for op in both] == [
        "func.func",
        "arith.addf",
        "func.return",
        "func.func",
        "func.return",
    ]


def test_walk_may_erase_while_iterating():
    module = _module()
    for op in walk(module.operation):
        if op.name == "scf.for":  # its nested ops are already collected, never visited erased
            op.result.replace_all_uses_with(op.operands[3])
            op.erase()
    assert [op.name for op in walk(module.operation)].count("scf.yield") == 0
