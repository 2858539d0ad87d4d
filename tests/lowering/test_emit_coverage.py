"""graph-to-tp covers every graph op."""

from __future__ import annotations

from mlc.dialects.graph import OPS
from mlc.passes.lowering.tp_emit import ANCHOR, INLINE


def test_every_graph_op_has_a_lowering() -> None:
    missing = sorted(set(OPS) - set(INLINE) - set(ANCHOR) - {"constant"})
    assert missing == []
    assert "tensor.concat" in ANCHOR
