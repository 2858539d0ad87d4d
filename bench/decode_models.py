"""Decoders exported with a KV cache (`past_key_values` in, `present` out), seeded random weights.

    python bench/decode_models.py list
    python bench/decode_models.py build [NAME ...] [--rebuild]

Each model is a transformers config (random init, `torch.manual_seed(0)`; nothing downloaded)
exported to `build/bench-models/<name>-v<N>.onnx` (the folder of bench/modern_models.py, same
MLC_BENCH_MODELS override) with the signature bench/bench_decode.py's `greedy_decode` drives:

    input_ids [batch, seq]  attention_mask [batch, past + seq]  position_ids [batch, seq]
    past_key_values.{i}.key|value [batch, heads, past, head_dim]
    -> logits [batch, seq, vocab], present.{i}.key|value [batch, heads, past + seq, head_dim]

The route that works with transformers 5.24 and torch 2.13: a wrapper module takes the cache as
flat tensors, builds a `DynamicCache` from them inside `forward` (one `update` per layer) and
returns the updated cache's tensors flat; the TorchScript exporter (`dynamo=False`, opset 17)
traces it with `dynamic_axes` naming every dim. The trace runs at past 3 and seq 2 so that no
size is 0 or 1 (the tracer would bake those in); the exported graph still runs with an empty
past (past 0) in onnxruntime. Weights are drawn with std 0.2 (transformers' default 0.02 makes
every greedy step pick the same token, so a token-for-token check would mean little). The file is
byte-identical on rebuild. Checked: onnxruntime's greedy loop on the export gives the tokens of
transformers' `generate(do_sample=False)` on the same model (batch 2, prompt 8, 32 tokens).
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

from modern_models import OPSET, SEED, _stub_torchvision_ops, cache_dir

BUILD_VERSION = 1
"""Part of the cached file names: bump it when a builder changes."""
TRACE_PAST, TRACE_SEQ = 3, 2


@dataclass(frozen=True)
class DecodeModel:
    name: str
    description: str
    config: Callable[[], object]
    """Returns a transformers GPT2Config."""


def _gpt2(layers: int, width: int, heads: int, vocab: int) -> Callable[[], object]:
    def config() -> object:
        from transformers import GPT2Config

        return GPT2Config(
            n_layer=layers,
            n_embd=width,
            n_head=heads,
            vocab_size=vocab,
            n_positions=1024,
            initializer_range=0.2,  # at 0.02 the greedy loop repeats one token
            bos_token_id=0,
            eos_token_id=0,
            attn_implementation="eager",
        )

    return config


MODELS: dict[str, DecodeModel] = {
    m.name: m
    for m in [
        DecodeModel(
            "gpt2_decoder",
            "GPT-2 4 layers, width 512, 8 heads, vocab 8000, eager attention, KV cache",
            _gpt2(4, 512, 8, 8000),
        ),
        DecodeModel(
            "gpt2_decoder_small",
            "GPT-2 2 layers, width 256, 4 heads, vocab 1000, eager attention, KV cache",
            _gpt2(2, 256, 4, 1000),
        ),
    ]
}


def model_path(name: str) -> pathlib.Path:
    return cache_dir() / f"{name}-v{BUILD_VERSION}.onnx"


def _with_flat_cache(model: object, layers: int) -> object:
    """(input_ids, attention_mask, position_ids, k0, v0, k1, ...) -> (logits, k0', v0', ...)."""
    import torch
    from transformers import DynamicCache

    class FlatCache(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, position_ids, *past):  # type: ignore[no-untyped-def]
            cache = DynamicCache()
            for i in range(layers):
                cache.update(past[2 * i], past[2 * i + 1], i)
            out = self.model(
                input_ids=input_ids,
                attention_mask=attention_mask,
                position_ids=position_ids,
                past_key_values=cache,
                use_cache=True,
            )
            present = out.past_key_values
            flat = []
            for i in range(layers):
                flat += [present.layers[i].keys, present.layers[i].values]
            return (out.logits, *flat)

    return FlatCache()


def io_names(layers: int) -> tuple[list[str], list[str], dict[str, dict[int, str]]]:
    """Input names, output names and the exporter's dynamic_axes."""
    past = [f"past_key_values.{i}.{kind}" for i in range(layers) for kind in ("key", "value")]
    present = [f"present.{i}.{kind}" for i in range(layers) for kind in ("key", "value")]
    axes: dict[str, dict[int, str]] = {
        "input_ids": {0: "batch", 1: "seq"},
        "attention_mask": {0: "batch", 1: "past + seq"},
        "position_ids": {0: "batch", 1: "seq"},
        "logits": {0: "batch", 1: "seq"},
    }
    axes.update({name: {0: "batch", 2: "past"} for name in past})
    axes.update({name: {0: "batch", 2: "past + seq"} for name in present})
    inputs = ["input_ids", "attention_mask", "position_ids", *past]
    return inputs, ["logits", *present], axes


def export(name: str) -> pathlib.Path:
    """Build `name` with seeded weights and export it to the cache (in this process)."""
    import warnings

    import torch

    _stub_torchvision_ops()  # transformers imports torchvision, whose C++ ops do not load
    from transformers import GPT2LMHeadModel

    torch.manual_seed(SEED)
    config = MODELS[name].config()
    model = GPT2LMHeadModel(config).eval()
    layers, heads = config.n_layer, config.n_head  # type: ignore[attr-defined]
    head_dim = config.n_embd // heads  # type: ignore[attr-defined]
    generator = torch.Generator().manual_seed(SEED)
    batch, total = 2, TRACE_PAST + TRACE_SEQ
    args = (
        torch.randint(0, config.vocab_size, (batch, TRACE_SEQ), generator=generator),  # type: ignore[attr-defined]
        torch.ones(batch, total, dtype=torch.int64),
        torch.arange(TRACE_PAST, total).expand(batch, TRACE_SEQ).contiguous(),
        *(
            torch.randn(batch, heads, TRACE_PAST, head_dim, generator=generator)
            for _ in range(2 * layers)
        ),
    )
    inputs, outputs, axes = io_names(layers)
    path = model_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _with_flat_cache(model, layers),
            args,
            str(tmp),
            dynamo=False,
            opset_version=OPSET,
            input_names=inputs,
            output_names=outputs,
            dynamic_axes=axes,
        )
    tmp.replace(path)
    return path


def ensure_built(names: list[str]) -> None:
    """Export the missing models in a subprocess (keeps torch out of the caller's process)."""
    missing = [n for n in names if n in MODELS and not model_path(n).is_file()]
    if missing:
        subprocess.run([sys.executable, __file__, "build", *missing], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list")
    build = sub.add_parser("build")
    build.add_argument("names", nargs="*")
    build.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    if args.command == "list":
        for m in MODELS.values():
            print(f"{m.name:20s} {m.description}")
        return 0
    names = args.names or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; see `list`")
    for name in names:
        if args.rebuild or not model_path(name).is_file():
            print(f"exporting {name} -> {export(name)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
