"""Attention as one kernel (graph-fuse's attention step, row fusion head by head): Q·Kᵀ with
scale and mask, softmax and ·V give numpy's numbers for odd sizes, cross-attention, masks with
-inf, several batches and heads, on one and two threads, and the same as three kernels. By
default only heads of >= 512 KiB of scores fuse; the tests fuse every size
(attention-min-bytes=0). tp-chunk-rows runs long sequences' kernels chunk by chunk of query
rows; the tests chunk every size too (min-bytes=0, chunks of a few rows that do not divide the
queries), and check that a long sequence is chunked by default."""

from __future__ import annotations

import re

import numpy as np
import pytest
from mlir import ir
from onnx import TensorProto, helper

import mlc
from mlc.dialects.tp import BlockView
from mlc.dialects.walk import walk
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.runtime import GraphModule


def _attention(b: int, h: int, q_len: int, kv_len: int, d: int, mask: bool):  # type: ignore[no-untyped-def]
    nodes = [
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["s", "scale"], ["scaled"]),
    ]
    scores = "scaled"
    inputs = [
        helper.make_tensor_value_info("q", TensorProto.FLOAT, [b, h, q_len, d]),
        helper.make_tensor_value_info("kt", TensorProto.FLOAT, [b, h, d, kv_len]),
        helper.make_tensor_value_info("v", TensorProto.FLOAT, [b, h, kv_len, d]),
    ]
    if mask:
        nodes.append(helper.make_node("Add", ["scaled", "mask"], ["masked"]))
        inputs.append(
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, [b, 1, q_len, kv_len])
        )
        scores = "masked"
    nodes += [
        helper.make_node("Softmax", [scores], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["out"]),
    ]
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [], [d**-0.5])
    graph = helper.make_graph(
        nodes,
        "attention",
        inputs,
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [b, h, q_len, d])],
        [scale],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _feeds(b: int, h: int, q_len: int, kv_len: int, d: int, mask: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(q_len * 100 + kv_len)
    feeds = {
        "q": rng.standard_normal((b, h, q_len, d)).astype(np.float32) * 2,
        "kt": rng.standard_normal((b, h, d, kv_len)).astype(np.float32),
        "v": rng.standard_normal((b, h, kv_len, d)).astype(np.float32),
    }
    if mask:  # causal where it fits, -inf above the diagonal; one padded key per batch
        m = np.triu(np.full((q_len, kv_len), -np.inf, np.float32), k=1 + kv_len - q_len)
        m = np.broadcast_to(m, (b, 1, q_len, kv_len)).copy()
        m[:, :, :, 0] = np.where(q_len > 1, -1e4, 0)
        feeds["mask"] = m
    return feeds


def _reference(feeds: dict[str, np.ndarray]) -> np.ndarray:
    q, kt, v = (feeds[n].astype(np.float64) for n in ("q", "kt", "v"))
    s = q @ kt / np.sqrt(q.shape[-1]) + feeds.get("mask", 0.0)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


CHUNK_ALL = "min-bytes=0 chunk-bytes=4096"


ANCHORS = "graph-to-tp{online-softmax=false}"
"""Attention anchor by anchor (Q·Kᵀ, the softmax's blocks, ·V), the form tp-chunk-rows and
tp-defer-row-scale work on; by default graph-to-tp emits the online softmax."""


def _pipeline(threads: int, fuse: str, chunk: str = "", online: bool = False) -> str:
    """mlc-default with graph-fuse's options `fuse` and tp-chunk-rows' `chunk`, anchor by
    anchor unless `online`."""
    default = MlcDefaultPipeline(threads=threads).expand()
    if not online:
        default = default.replace("graph-to-tp,", ANCHORS + ",")
    assert "graph-fuse{max-group-size=32}" in default and ",tp-chunk-rows," in default
    default = default.replace(
        ",tp-chunk-rows,", ",tp-chunk-rows{%s}," % chunk if chunk else ",tp-chunk-rows,"
    )
    return "builtin.module(%s)" % default.replace(
        "graph-fuse{max-group-size=32}", "graph-fuse{max-group-size=32 %s}" % fuse
    )


def _run(
    model: object,
    feeds: dict[str, np.ndarray],
    threads: int,
    fuse: str = "attention-min-bytes=0",
    chunk: str = "",
    online: bool = False,
) -> np.ndarray:
    module, params = mlc.from_onnx(model)
    pipeline = _pipeline(threads, fuse, chunk, online)
    gm = GraphModule(mlc.build(module, params, pipeline=pipeline).jit())
    for name, value in feeds.items():
        gm.set_input(name, value)
    gm.run()
    return gm.get_output(0)


def _kernels(model: object, fuse: str = "attention-min-bytes=0") -> list[list[str]]:
    """The graph ops of each kernel graph-fuse{`fuse`} makes."""
    module, params = mlc.from_onnx(model)
    stage = f"builtin.module(graph-simplify,graph-fold-constants,graph-fuse{{{fuse}}})".replace(
        "{}", ""
    )
    mlc.PassManager.parse(stage).run(module, params=params)
    return [
        [o.operation.name for o in op.regions[0].blocks[0].operations]
        for op in module.body.operations
        if "graph.kernel" in op.attributes
    ]


CASES = [
    # b, h, q_len, kv_len, d, mask
    (1, 12, 197, 197, 64, False),  # ViT-B/16
    (2, 3, 50, 50, 16, True),
    (1, 4, 7, 50, 8, True),  # cross-attention: fewer queries than keys
    (3, 2, 33, 5, 24, False),
    (1, 2, 30, 1024, 4, True),  # heads of 4 over 1024 keys: ·V on 4-lane vectors, not gathers
]


@pytest.mark.parametrize("chunk", ["", CHUNK_ALL, "online"], ids=["whole", "chunked", "online"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "case", CASES, ids=lambda c: "x".join(map(str, c[:5])) + ("m" if c[5] else "")
)
def test_attention_kernel_matches_numpy(case: tuple, threads: int, chunk: str) -> None:
    model, feeds = _attention(*case), _feeds(*case)
    (kernel,) = _kernels(model)
    assert kernel.count("graph.matmul") == 2 and "graph.softmax" in kernel
    online = chunk == "online"
    got = _run(model, feeds, threads, chunk="" if online else chunk, online=online)
    np.testing.assert_allclose(got, _reference(feeds), rtol=1e-4, atol=2e-5)


def _schedules(model: object, threads: int = 1) -> dict[str, dict]:
    """Each tp block's schedule after mlc-default's scheduling stage, by block name."""
    module, params = mlc.from_onnx(model)
    graph, tp, _ = MlcDefaultPipeline(threads=threads).stages()
    tp = tp.replace("graph-to-tp,", ANCHORS + ",")
    assert ANCHORS in tp
    mlc.PassManager.parse(f"builtin.module({graph},{tp})").run(module, params=params)
    found = {}
    for op in walk(module.operation):
        if op.name == "tp.block":
            view = BlockView(op)
            found[ir.StringAttr(op.attributes["name"]).value] = view.schedule
    return found


@pytest.mark.parametrize("threads", [1, 2])
def test_long_sequence_runs_in_chunks_of_queries(threads: int) -> None:
    """599 queries over 600 keys (1.4 MiB of scores per head): every block of the kernel
    loops over chunks of query rows right after the heads, and the numbers stay numpy's (599
    is no multiple of the chunk: the last chunk is partial)."""
    case = (1, 2, 599, 600, 8, True)
    model, feeds = _attention(*case), _feeds(*case)
    schedules = _schedules(model, threads)
    products = [s for name, s in schedules.items() if re.fullmatch(r"matmul_\d+", name)]
    assert len(products) == 2
    rows = {s.tile["s2"][0] for s in products}
    assert len(rows) == 1 and 599 % rows.pop()
    for schedule in products:
        assert schedule.order[:3] == ("s0", "s1", "s2.0")
        assert not threads > 1 or schedule.parallel == ("s0", "s1", "s2.0")
    got = _run(model, feeds, threads, fuse="")
    np.testing.assert_allclose(got, _reference(feeds), rtol=1e-4, atol=2e-5)


def test_softmax_scale_applies_to_the_product() -> None:
    """tp-defer-row-scale: the softmax's 1 / sum multiplies ·V's output rows (a block after
    the product) instead of the score matrix, which no block after the exponentials writes
    again (before: `materialize`, the quotient)."""
    case = (1, 2, 599, 600, 8, True)
    names = list(_schedules(_attention(*case)))
    products = [n for n in names if re.fullmatch(r"matmul_\d+", n)]
    assert names[names.index(products[-1]) + 1] == f"{products[-1]}_row_scale"
    after_softmax = names[names.index(next(n for n in names if n.startswith("softmax_exp"))) :]
    assert not [n for n in after_softmax if n.startswith("materialize")]


def test_same_numbers_as_three_kernels() -> None:
    """graph-fuse{attention=false}: Q·Kᵀ, softmax and ·V as three kernels, as before; the
    online softmax sums in another order (rescaled per tile of keys), within float rounding."""
    case = (2, 3, 50, 50, 16, True)
    model, feeds = _attention(*case), _feeds(*case)
    fused = _run(model, feeds, 1)
    apart = _run(model, feeds, 1, "attention=false")
    online = _run(model, feeds, 1, online=True)
    np.testing.assert_allclose(fused, apart, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(online, apart, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fused, _reference(feeds), rtol=1e-4, atol=2e-5)


def test_by_default_only_large_heads_fuse() -> None:
    """512 KiB of scores per head: 384 tokens fuse (590 KiB), 197 do not (155 KiB)."""
    assert len(_kernels(_attention(1, 2, 384, 384, 16, False), "")) == 1
    assert len(_kernels(_attention(1, 2, 197, 197, 16, False), "")) == 3
