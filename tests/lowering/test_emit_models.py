"""Whole small models through graph-fuse + graph-to-tp + tp-to-loops: a transformer encoder layer
and an Inception-style CNN, against the reference interpreter and a numpy forward pass."""

from __future__ import annotations

import math

import numpy as np
from mlir import ir
from mlir.dialects import tensor

from helpers.graph_exec import check, rand, run_graph
from mlc.dialects.graph import builders as g

S, H, HEADS = 4, 8, 2  # sequence, hidden, attention heads
D = H // HEADS


def _encoder_params() -> dict[str, np.ndarray]:
    names = {
        "emb": (11, H),
        "pos": (S, H),
        "ln1.s": (H,),
        "ln1.b": (H,),
        "wq": (H, H),
        "wk": (H, H),
        "wv": (H, H),
        "wo": (H, H),
        "bo": (H,),
        "ln2.s": (H,),
        "ln2.b": (H,),
        "w1": (H, 2 * H),
        "b1": (2 * H,),
        "w2": (2 * H, H),
        "b2": (H,),
    }
    return {k: rand(shape, seed=i + 20, scale=0.5) for i, (k, shape) in enumerate(names.items())}


def _heads(x: ir.Value) -> ir.Value:  # [1, S, H] -> [1, HEADS, S, D]
    return g.transpose(g.reshape(x, shape=(1, S, HEADS, D)), perm=(0, 2, 1, 3))


def _encoder(ids: ir.Value, keep: ir.Value, *p: ir.Value) -> list[ir.Value]:
    w = dict(zip(_encoder_params(), p))
    x = g.add(g.gather(w["emb"], ids, axis=0), w["pos"])
    h = g.layer_norm(x, w["ln1.s"], w["ln1.b"], axis=-1)
    q, k, v = (_heads(g.matmul(h, w[n])) for n in ("wq", "wk", "wv"))
    scores = g.mul(
        g.matmul(q, g.transpose(k, perm=(0, 1, 3, 2))),
        g.constant(
            ir.DenseElementsAttr.get_splat(
                ir.RankedTensorType.get([1], ir.F32Type.get()),
                ir.FloatAttr.get_f32(1 / math.sqrt(D)),
            ),
            ir.RankedTensorType.get([1], ir.F32Type.get()),
        ),
    )
    neg = g.mul(
        g.cast(g.not_(keep), to="f32"), g.neg(g.exp(g.cast(g.cast(keep, to="i64"), to="f32")))
    )
    probs = g.softmax(
        g.add(
            scores,
            g.mul(
                g.reshape(neg, shape=(1, 1, 1, S)),
                g.reduce_max(g.abs(g.reshape(neg, shape=(1, S))), axes=(1,), keepdims=1),
            ),
        ),
        axis=-1,
    )
    ctx = g.reshape(g.transpose(g.matmul(probs, v), perm=(0, 2, 1, 3)), shape=(1, S, H))
    x = g.add(x, g.add(g.matmul(ctx, w["wo"]), w["bo"]))
    h = g.layer_norm(x, w["ln2.s"], w["ln2.b"], axis=-1)
    ff = g.add(g.matmul(g.gelu(g.add(g.matmul(h, w["w1"]), w["b1"])), w["w2"]), w["b2"])
    y = g.add(x, ff)
    pooled = g.reduce_mean(y, axes=(1,), keepdims=0)
    return [y, g.argmax(g.log_softmax(pooled, axis=-1), axis=1, keepdims=0)]


def _np_encoder(ids: np.ndarray, keep: np.ndarray, w: dict[str, np.ndarray]) -> list[np.ndarray]:
    from math import erf

    def ln(x: np.ndarray, s: np.ndarray, b: np.ndarray) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(
            ((x - mu) ** 2).mean(-1, keepdims=True) + np.float32(1e-5)
        ) * s + b

    w = {k: v.astype(np.float64) for k, v in w.items()}
    x = w["emb"][ids] + w["pos"]
    h = ln(x, w["ln1.s"], w["ln1.b"])
    q, k, v = ((h @ w[n]).reshape(1, S, HEADS, D).transpose(0, 2, 1, 3) for n in ("wq", "wk", "wv"))
    scores = q @ k.transpose(0, 1, 3, 2) * np.float32(1 / math.sqrt(D)) + np.where(keep, 0.0, -1.0)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    ctx = (e / e.sum(-1, keepdims=True) @ v).transpose(0, 2, 1, 3).reshape(1, S, H)
    x = x + ctx @ w["wo"] + w["bo"]
    a = ln(x, w["ln2.s"], w["ln2.b"]) @ w["w1"] + w["b1"]
    gelu = 0.5 * a * (1 + np.vectorize(erf)(a / math.sqrt(2)))
    y = x + gelu @ w["w2"] + w["b2"]
    return [y.astype(np.float32), np.argmax(y.mean(1), axis=1)]


def test_transformer_encoder_layer() -> None:
    params = _encoder_params()
    ids = np.array([[3, 10, 0, 7]], np.int64)
    keep = np.array([True, True, False, True])
    got, ref = run_graph(_encoder, [ids, keep], params)
    expected = _np_encoder(ids, keep, params)
    check(got[0], ref[0], expected[0], rtol=1e-4, atol=1e-5, what="hidden states")
    check(got[1], ref[1], expected[1], what="argmax of pooled")


def _conv(x: ir.Value, w: ir.Value, pads: int) -> ir.Value:
    return g.relu(g.conv2d(x, w, pads=(pads,) * 4))


def _inception(x: ir.Value, w1: ir.Value, w3: ir.Value, w5: ir.Value, fc: ir.Value) -> ir.Value:
    stem = g.max_pool2d(
        g.lrn(_conv(x, w1, 0), size=3, alpha=1e-2), kernel_shape=(2, 2), strides=(2, 2)
    )
    a, b = (
        _conv(stem, w3, 1),
        _conv(g.pad(stem, pads=(0, 0, 1, 1, 0, 0, 1, 1), mode="reflect"), w5, 0),
    )
    t = [ir.RankedTensorType(v.type) for v in (a, b)]
    cat = tensor.ConcatOp(
        ir.RankedTensorType.get([1, t[0].shape[1] + t[1].shape[1], 3, 3], ir.F32Type.get()),
        1,
        [a, b],
    ).result
    pooled = g.flatten(g.global_avg_pool2d(cat), axis=1)
    return g.softmax(g.dense(pooled, fc, transB=1), axis=1)


def test_inception_style_cnn() -> None:
    x = rand((1, 2, 7, 7), seed=40)
    params = {
        "w1": rand((4, 2, 1, 1), seed=41),
        "w3": rand((3, 4, 3, 3), seed=42),
        "w5": rand((2, 4, 3, 3), seed=43),
        "fc": rand((5, 5), seed=44),
    }
    got, ref = run_graph(_inception, [x], params)
    # numpy forward pass
    x64 = x.astype(np.float64)

    def conv(v: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
        vp = np.pad(v, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        kh, kw = w.shape[2:]
        oh, ow = vp.shape[2] - kh + 1, vp.shape[3] - kw + 1
        out = np.zeros((1, w.shape[0], oh, ow))
        for i in range(oh):
            for j in range(ow):
                out[0, :, i, j] = np.einsum("chw,ochw->o", vp[0, :, i : i + kh, j : j + kw], w)
        return np.maximum(out, 0)

    c = conv(x64, params["w1"], 0)
    sq = np.pad(c * c, ((0, 0), (1, 1), (0, 0), (0, 0)))
    n = c / (1 + np.float32(1e-2) / 3 * (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:])) ** np.float32(0.75)
    stem = n[:, :, :6, :6].reshape(1, 4, 3, 2, 3, 2).max(axis=(3, 5))
    cat = np.concatenate(
        [
            conv(stem, params["w3"], 1),
            conv(np.pad(stem, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect"), params["w5"], 0),
        ],
        1,
    )
    logits = cat.mean(axis=(2, 3)) @ params["fc"].T
    e = np.exp(logits - logits.max())
    check(got[0], ref[0], (e / e.sum()).astype(np.float32), rtol=1e-4, atol=1e-6)
