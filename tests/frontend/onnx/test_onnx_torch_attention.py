"""Attention exported by torch.onnx.export (TorchScript exporter): F.scaled_dot_product_attention
and a BERT-style layer with eager attention, compiled by mlc and matching onnxruntime; skipped
without torch (`pip install torch==2.13.0`)."""

from __future__ import annotations

import io
import warnings
from typing import Any

import numpy as np
import onnx
import pytest

from helpers.onnx_testing import import_model, op_names, run_compiled, run_ort
from mlc.errors import UnsupportedOpError

torch = pytest.importorskip("torch")


def _export(module: Any, args: tuple[Any, ...], opset: int) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module.eval(), args, buffer, dynamo=False, opset_version=opset)
    return onnx.load_from_string(buffer.getvalue())


def _check(model: onnx.ModelProto, args: tuple[Any, ...]) -> None:
    feeds = {i.name: a.numpy() for i, a in zip(model.graph.input, args)}
    for got, want in zip(run_compiled(model, feeds), run_ort(model, feeds)):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)


class _Sdpa(torch.nn.Module):
    def __init__(self, causal: bool) -> None:
        super().__init__()
        self.causal = causal

    def forward(self, q: Any, k: Any, v: Any, mask: Any = None) -> Any:
        f = torch.nn.functional.scaled_dot_product_attention
        return f(q, k, v, attn_mask=mask, is_causal=self.causal)


@pytest.mark.parametrize("mask", ["none", "float", "causal", "bool"])
def test_scaled_dot_product_attention(mask: str) -> None:
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 4, 6, 16), torch.randn(2, 4, 6, 16), torch.randn(2, 4, 6, 16)
    args: tuple[Any, ...] = (q, k, v)
    if mask == "float":
        args += (torch.randn(2, 1, 6, 6),)
    if mask == "bool":
        allowed = torch.rand(2, 1, 6, 6) > 0.3
        allowed[0, 0, 3] = False  # a fully masked query row
        args += (allowed,)
    model = _export(_Sdpa(mask == "causal"), args, 17)
    try:
        module, _ = import_model(model)
    except UnsupportedOpError as e:
        if mask == "bool" and "IsNaN" in str(e):
            pytest.skip("IsNaN has no converter yet")
        raise
    assert op_names(module).count("graph.matmul") == 2
    _check(model, args)


class _BertLayer(torch.nn.Module):
    """Embeddings (token types taken from their buffer with torch.gather, as transformers does)
    and a self-attention layer written out (eager attention) with an additive padding mask."""

    def __init__(self, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.words = torch.nn.Embedding(100, dim)
        self.positions = torch.nn.Embedding(512, dim)
        self.types = torch.nn.Embedding(2, dim)
        self.register_buffer("position_ids", torch.arange(512).expand((1, -1)))
        self.register_buffer("token_type_ids", torch.zeros((1, 512), dtype=torch.long))
        self.norm = torch.nn.LayerNorm(dim, eps=1e-12)
        self.qkv = torch.nn.ModuleList(torch.nn.Linear(dim, dim) for _ in range(3))
        self.out = torch.nn.Linear(dim, dim)

    def forward(self, input_ids: Any, attention_mask: Any) -> Any:
        batch, seq = input_ids.shape
        position_ids = self.position_ids[:, :seq]
        buffered = self.token_type_ids.expand(batch, -1)
        type_ids = torch.gather(buffered, dim=1, index=position_ids.expand(batch, -1))
        x = self.words(input_ids) + self.types(type_ids) + self.positions(position_ids)
        x = self.norm(x)
        q, k, v = (
            lin(x).view(batch, seq, self.heads, self.head_dim).transpose(1, 2) for lin in self.qkv
        )
        scores = q @ k.transpose(-1, -2) / self.head_dim**0.5
        extended = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float).min
        probs = torch.softmax(scores + extended, dim=-1)
        context = (probs @ v).transpose(1, 2).reshape(batch, seq, -1)
        return self.norm(self.out(context) + x)


def test_bert_layer_with_eager_attention() -> None:
    torch.manual_seed(0)
    ids = torch.randint(0, 100, (1, 128))
    mask = torch.ones(1, 128, dtype=torch.long)
    mask[0, 100:] = 0
    model = _export(_BertLayer(), (ids, mask), 17)
    assert "GatherElements" in {n.op_type for n in model.graph.node}
    module, _ = import_model(model)
    assert "graph.gather_elements" not in op_names(module)  # folded: its inputs are constants
    _check(model, (ids, mask))
