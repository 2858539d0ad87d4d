"""Attention with the softmax online inside ·V (graph-to-tp's attention form, `attention.py`):
numpy's numbers (rtol 1e-4) for 1..12 heads, 1 to 1024 tokens, heads of 32 and 64, sequences
that are no multiple of the tiles of query rows and keys, causal and padding masks (-inf and
-1e4) or none; onnxruntime's for SDPA and BERT exports; no buffer of the scores' size."""

from __future__ import annotations

import numpy as np
import pytest
from lowering.test_attention_kernel import _attention, _pipeline
from mlir import ir

import mlc
from helpers.attention_models import bert_eager_layer, sdpa
from helpers.onnx_testing import rand, run_ort
from mlc.dialects.walk import walk
from mlc.passes.lowering.tp_emit import attention
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.runtime import GraphModule


def _feeds(b: int, h: int, n: int, d: int, mask: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(n * 10 + h)
    feeds = {
        "q": rng.standard_normal((b, h, n, d)).astype(np.float32) * 2,
        "kt": rng.standard_normal((b, h, d, n)).astype(np.float32),
        "v": rng.standard_normal((b, h, n, d)).astype(np.float32),
    }
    if mask:
        m = np.zeros((b, 1, n, n), np.float32)
        if mask == "causal":
            m[:] = np.triu(np.full((n, n), -np.inf, np.float32), k=1)
        else:  # padding: the last keys of the last batch element, and one key at -1e4
            m[-1, :, :, n - max(1, n // 3) :] = -np.inf
            m[0, :, :, 0] = -1e4 if n > 1 else 0.0
        feeds["mask"] = m
    return feeds


def _reference(feeds: dict[str, np.ndarray]) -> np.ndarray:
    q, kt, v = (feeds[n].astype(np.float64) for n in ("q", "kt", "v"))
    s = q @ kt / np.sqrt(q.shape[-1]) + feeds.get("mask", 0.0)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


def _compile(model: object, threads: int, online: bool = True) -> GraphModule:
    module, params = mlc.from_onnx(model)
    pipeline = _pipeline(threads, "attention-min-bytes=0", online=online)
    return GraphModule(mlc.build(module, params, pipeline=pipeline).jit())


CASES = [
    # b, h, n, d, mask, threads
    (1, 1, 1, 64, "", 1),
    (2, 3, 7, 32, "padding", 2),
    (1, 4, 64, 64, "causal", 1),
    (1, 12, 197, 64, "", 2),  # ViT: 197 = 3 chunks of 64 rows + 5, one tile of 128 keys + 69
    (1, 2, 512, 32, "causal", 1),
    (2, 6, 512, 64, "padding", 2),
    (1, 12, 1024, 64, "causal", 1),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c[:4])) + c[4])
def test_online_attention_matches_numpy(case: tuple) -> None:
    b, h, n, d, mask, threads = case
    feeds = _feeds(b, h, n, d, mask)
    gm = _compile(_attention(b, h, n, n, d, bool(mask)), threads)
    for name, value in feeds.items():
        gm.set_input(name, value)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0), _reference(feeds), rtol=1e-4, atol=2e-5)


@pytest.mark.parametrize("mask", ["float", "causal"])
def test_sdpa_export_matches_onnxruntime(mask: str) -> None:
    """torch's SDPA (scale folded into Q and K, an added float or causal mask) at 600 tokens,
    where graph-fuse makes the attention kernel by default."""
    n = 600
    model = sdpa(mask, batch=1, heads=2, q_len=n, kv_len=n)
    feeds = {x: rand(1, 2, n, 8, seed=i) for i, x in enumerate("qkv")}
    if mask == "float":
        feeds["mask"] = rand(1, 1, n, n, seed=4)
    gm = GraphModule(mlc.build(*mlc.from_onnx(model)).jit())
    for name, value in feeds.items():
        gm.set_input(name, value)
    gm.run()
    (want,) = run_ort(model, feeds)
    np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-4, atol=1e-5)


def test_bert_layer_matches_onnxruntime() -> None:
    """The kernel goes on past ·V (the heads transposed back and merged): the attention form
    writes a temporary and the rest is lowered as usual; 20 padded tokens of 512."""
    seq = 512
    model = bert_eager_layer(batch=1, seq=seq, dim=64, heads=2)
    mask = np.ones((1, seq), np.int64)
    mask[0, seq - 20 :] = 0
    feeds = {
        "input_ids": np.random.default_rng(6).integers(0, 100, (1, seq)),
        "attention_mask": mask,
    }
    gm = GraphModule(mlc.build(*mlc.from_onnx(model)).jit())
    for name, value in feeds.items():
        gm.set_input(name, value)
    gm.run()
    (want,) = run_ort(model, feeds)
    np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-3, atol=1e-5)


def _written(model: object, online: bool) -> tuple[list[str], int]:
    """The names of the tp blocks after mlc-default's tp stage (every attention fused) and the
    largest buffer one of them writes, in elements."""
    module, params = mlc.from_onnx(model)
    graph, tp, _ = MlcDefaultPipeline(threads=1).stages()
    graph = graph.replace(
        "graph-fuse{max-group-size=32}", "graph-fuse{max-group-size=32 attention-min-bytes=0}"
    )
    if not online:
        tp = tp.replace("graph-to-tp,", "graph-to-tp{online-softmax=false},")
    mlc.PassManager.parse(f"builtin.module({graph},{tp})").run(module, params=params)
    blocks = [op for op in walk(module.operation) if op.name == "tp.block"]
    names = [ir.StringAttr(b.attributes["name"]).value for b in blocks]
    return names, max(int(np.prod(ir.MemRefType(b.operands[0].type).shape)) for b in blocks)


def test_no_score_matrix_is_written() -> None:
    """Online: every buffer a block writes is at most a tile of scores (rows x keys); anchor by
    anchor, Q·Kᵀ writes a head's scores (all the queries or a chunk of them x all the keys)."""
    n = 600
    model = _attention(1, 2, n, n, 8, True)
    names, largest = _written(model, True)
    assert not [x for x in names if x.startswith("softmax")]
    assert any(x.startswith("attention_values") for x in names)
    assert largest <= attention.ROWS * attention.KEYS
    names, largest = _written(model, False)
    assert any(x.startswith("softmax_exp") for x in names) and largest >= n * n // 4
