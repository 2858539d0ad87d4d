"""The sizes a schedule assumes for the symbols of run-time extents (`tp-default-schedule`).

Every symbol was sampled at one hint (64), so a transformer's blocks over [batch, seq, 768] were
scheduled for 64 sentences of 64 tokens: a dense layer's 12 MiB of input put its rows outside
its column blocks (right for that size), where one sentence of any length runs 1.5-2x faster
with the columns outside. A batch is usually small: the leading dim of an input that has other
run-time dims too (`input_ids [batch, seq]`, a KV cache's `[batch, heads, past, 64]`) or of an
image batch (`[batch, 3, 224, 224]`: MobileNet-V2 at batch 1 ran 5x slower scheduled for 64
images) is sampled at 1. Bounds (`mlc.symbol_bounds`, assumed by the pass manager) clamp every
sample.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

from mlir import ir

from mlc.contract import MANIFEST_ATTR, plain_symbol
from mlc.symbolic import interval, parse, sym


def leading_symbols(module: ir.Operation) -> set[str]:
    """Symbols that are the first dim of a model input with another run-time dim, or of rank 3
    or more (a batch of images or sequences: each item has rows enough for the tiles), from the
    module's manifest (none without one). A matrix's run-time rows ([n, 768]) stay at the hint:
    sampled at 1 they would get a matrix-vector product's schedule."""
    if MANIFEST_ATTR not in module.attributes:
        return set()
    manifest = json.loads(ir.StringAttr(module.attributes[MANIFEST_ATTR]).value)
    found: set[str] = set()
    for spec in manifest.get("inputs", []):
        dims = [parse(d) if isinstance(d, str) else d for d in spec.get("shape", [])]
        names = [plain_symbol(d) if not isinstance(d, int) else None for d in dims]
        runtime = [d for d in dims if not isinstance(d, int)]
        if names and names[0] is not None and (len(runtime) > 1 or len(dims) >= 3):
            found.add(names[0])
    return found


def sample_sizes(symbols: Iterable[str], hint: int, leading: set[str]) -> dict[str, int]:
    """Each symbol's sample: 1 for a leading (batch) one, else `hint`, within its bounds."""
    out = {}
    for name in symbols:
        lo, hi = interval(sym(name))
        size = 1 if name in leading else hint
        size = max(size, int(lo)) if math.isfinite(lo) else size
        out[name] = min(size, int(hi)) if math.isfinite(hi) else size
    return out
