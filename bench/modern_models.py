"""Modern-architecture benchmark models, exported to ONNX with seeded random weights.

    python bench/modern_models.py list
    python bench/modern_models.py build [--suite modern|holdout ...] [NAME ...] [--rebuild]

Two suites, batch 1 (a `--dynamic` export takes any batch: `input_feed(batch=N)`). `modern` is the
set mlc is tuned against (vision transformers, ConvNeXt, EfficientNet, MobileNetV2, ResNet-18, a
BERT-like encoder and a GPT-2-like decoder with eager attention); `holdout` holds other
architectures that only check that speedups generalize: nobody tunes against them. Models come from
torchvision and transformers *configs* (random init, `torch.manual_seed(0)`), never from a hub:
nothing is downloaded. They are exported by the TorchScript exporter (`dynamo=False`, opset 17)
into `build/bench-models/<name>-v<N>.onnx` (git-ignored; override the folder with MLC_BENCH_MODELS;
N is BUILD_VERSION) and rebuilt only when missing.

Each file records how to make its inputs in the metadata entry `mlc_bench_inputs` (JSON: per
input, dtype, shape and `normal` | `ones` | `randint` below `high`), which `input_feed` reads.
The benchmark process never imports torch: `ensure_built` runs this file in a subprocess.

Bench dependencies: `pip install -e '.[bench]'` (torch 2.13.0 CPU, torchvision 0.28.0,
transformers 5.24.0). The torchvision wheel's C++ ops library is built for CUDA torch and does not
load; `_stub_torchvision_ops` declares the two ops its import registers fakes for.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from onnx import helper as onnx_helper

OPSET = 17
SEED = 0
BUILD_VERSION = 1
"""Part of the cached file names: bump it when a builder changes, so old exports are not reused."""
INPUTS_KEY = "mlc_bench_inputs"
REPO = pathlib.Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class BenchModel:
    """One benchmark model: its suite, a one-line description and its builder."""

    name: str
    suite: str
    description: str
    builder: Callable[[], tuple[object, dict[str, dict[str, object]]]]
    """Returns (torch module, input specs by name: dtype, shape, fill[, high])."""


def cache_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("MLC_BENCH_MODELS", REPO / "build" / "bench-models"))


def model_path(name: str, dynamic: bool = False) -> pathlib.Path:
    """The cached export; `dynamic`: the one with symbolic batch (and sequence) dims."""
    return cache_dir() / f"{name}{'-dyn' if dynamic else ''}-v{BUILD_VERSION}.onnx"


def dynamic_axes(specs: dict[str, dict[str, object]]) -> dict[str, dict[int, str]]:
    """Symbolic dims of an export with `dynamic`: the batch of every input and output, and the
    sequence of token inputs (rank-2 integer inputs) and of the output of a token model."""
    axes: dict[str, dict[int, str]] = {}
    tokens = False
    for name, spec in specs.items():
        axes[name] = {0: "batch"}
        if len(spec["shape"]) == 2 and str(spec["dtype"]).startswith("int"):  # type: ignore[arg-type]
            axes[name][1] = "seq"
            tokens = True
    axes["output"] = {0: "batch", 1: "seq"} if tokens else {0: "batch"}
    return axes


# ---- builders (torch imported lazily: only the build subprocess needs it) -----------------------


def _image(size: int = 224) -> dict[str, dict[str, object]]:
    return {"x": {"dtype": "float32", "shape": [1, 3, size, size], "fill": "normal"}}


def _video(frames: int, size: int) -> dict[str, dict[str, object]]:
    return {"x": {"dtype": "float32", "shape": [1, 3, frames, size, size], "fill": "normal"}}


def _video_net(arch: str, frames: int, size: int) -> Callable[[], tuple[object, dict]]:
    def build() -> tuple[object, dict]:
        import torchvision.models.video

        return getattr(torchvision.models.video, arch)(), _video(frames, size)

    return build


def _tokens(seq: int, vocab: int) -> dict[str, dict[str, object]]:
    return {
        "input_ids": {"dtype": "int64", "shape": [1, seq], "fill": "randint", "high": vocab},
        "attention_mask": {"dtype": "int64", "shape": [1, seq], "fill": "ones"},
    }


def _stub_torchvision_ops() -> None:
    import torch

    if not hasattr(torch.ops.torchvision, "nms"):
        lib = torch.library.Library("torchvision", "DEF")  # kept alive by torch's registry
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _stub_torchvision_ops.lib = lib  # type: ignore[attr-defined]


def _torchvision(arch: str, **kwargs: object) -> Callable[[], tuple[object, dict]]:
    def build() -> tuple[object, dict]:
        import torchvision.models

        net = getattr(torchvision.models, arch)(**kwargs)
        if arch.startswith("convnext"):
            _unhide_convnext_blocks(net)
        return net, _image()

    return build


def _unhide_convnext_blocks(net: object) -> None:
    """Layer scale 1e-6 at init would make the blocks invisible in the output comparison."""
    import torch

    with torch.no_grad():
        for module in net.modules():  # type: ignore[attr-defined]
            if hasattr(module, "layer_scale"):
                module.layer_scale.fill_(0.5)


def _fill_zero_matrices(net: object) -> None:
    """Zero-initialized weight matrices (torchvision ViT's head) would make the output all zero."""
    import torch

    with torch.no_grad():
        for param in net.parameters():  # type: ignore[attr-defined]
            if param.dim() >= 2 and not param.any():
                param.normal_(0.0, 0.02)


def _calibrate_batch_norms(net: object, specs: dict[str, dict[str, object]]) -> None:
    """Batch-norm statistics from one random batch of 4, so activations stay of order one.

    With init statistics (mean 0, variance 1) MobileNets and EfficientNet scale their output
    down to ~1e-14, where the comparison with onnxruntime means little.
    """
    import torch

    batch_norm = torch.nn.modules.batchnorm._BatchNorm
    norms = [m for m in net.modules() if isinstance(m, batch_norm)]  # type: ignore[attr-defined]
    if not norms:
        return
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # cumulative average: exactly the statistics of the batch
    (spec,) = specs.values()
    generator = torch.Generator().manual_seed(SEED + 1)
    net.train()  # type: ignore[attr-defined]
    with torch.no_grad():
        net(torch.randn([4, *spec["shape"][1:]], generator=generator))  # type: ignore[operator, misc]
    net.eval()  # type: ignore[attr-defined]


def _vit(layers: int, width: int, heads: int) -> Callable[[], tuple[object, dict]]:
    def build() -> tuple[object, dict]:
        from torchvision.models.vision_transformer import VisionTransformer

        return VisionTransformer(224, 16, layers, heads, width, 4 * width), _image()

    return build


def _last_hidden(model: object) -> object:
    """(input_ids, attention_mask) -> last_hidden_state of a transformers model."""
    import torch

    class LastHidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask):  # type: ignore[no-untyped-def]
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, use_cache=False
            ).last_hidden_state

    return LastHidden()


def _distilbert() -> tuple[object, dict]:
    from transformers import DistilBertConfig, DistilBertModel

    config = DistilBertConfig(attn_implementation="eager")
    return _last_hidden(DistilBertModel(config)), _tokens(128, config.vocab_size)


def _gpt2_like() -> tuple[object, dict]:
    from transformers import GPT2Config, GPT2Model

    config = GPT2Config(n_layer=4, attn_implementation="eager")
    return _last_hidden(GPT2Model(config)), _tokens(64, config.vocab_size)


def _bert_sdpa() -> tuple[object, dict]:
    from transformers import BertConfig, BertModel

    config = BertConfig(
        num_hidden_layers=4, hidden_size=512, num_attention_heads=8, intermediate_size=2048
    )
    return _last_hidden(BertModel(config, add_pooling_layer=False)), _tokens(128, config.vocab_size)


def _whisper_encoder_like() -> tuple[object, dict]:
    import torch
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    # 1000 mel frames -> 500 tokens after the stride-2 conv (Whisper-tiny width, 4 layers).
    config = WhisperConfig(
        d_model=384,
        encoder_layers=4,
        encoder_attention_heads=6,
        encoder_ffn_dim=1536,
        num_mel_bins=80,
        max_source_positions=500,
    )
    encoder = WhisperEncoder(config)

    class Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, features):  # type: ignore[no-untyped-def]
            return self.encoder(input_features=features).last_hidden_state

    return Wrapper(), {"features": {"dtype": "float32", "shape": [1, 80, 1000], "fill": "normal"}}


def _mlp_mixer_like() -> tuple[object, dict]:
    """Mixer-S/16-like: 8 layers, 512 channels, token MLP 256, channel MLP 2048."""
    from torch import nn

    class MixerLayer(nn.Module):
        def __init__(self, tokens: int, width: int) -> None:
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.token_mlp = nn.Sequential(
                nn.Linear(tokens, 256), nn.GELU(), nn.Linear(256, tokens)
            )
            self.channel_mlp = nn.Sequential(
                nn.Linear(width, 2048), nn.GELU(), nn.Linear(2048, width)
            )

        def forward(self, x):  # type: ignore[no-untyped-def]
            x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
            return x + self.channel_mlp(self.norm2(x))

    class Mixer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Conv2d(3, 512, 16, stride=16)
            self.layers = nn.Sequential(*[MixerLayer(196, 512) for _ in range(8)])
            self.norm, self.head = nn.LayerNorm(512), nn.Linear(512, 1000)

        def forward(self, x):  # type: ignore[no-untyped-def]
            x = self.layers(self.stem(x).flatten(2).transpose(1, 2))
            return self.head(self.norm(x).mean(dim=1))

    return Mixer(), _image()


MODELS: dict[str, BenchModel] = {
    m.name: m
    for m in [
        BenchModel(
            "vit_s16_like",
            "modern",
            "ViT 4 layers, width 384, 6 heads, patch 16, 224",
            _vit(4, 384, 6),
        ),
        BenchModel("vit_b_16", "modern", "torchvision vit_b_16", _torchvision("vit_b_16")),
        BenchModel(
            "convnext_tiny",
            "modern",
            "torchvision convnext_tiny (layer scale 0.5)",
            _torchvision("convnext_tiny"),
        ),
        BenchModel(
            "efficientnet_b0",
            "modern",
            "torchvision efficientnet_b0",
            _torchvision("efficientnet_b0"),
        ),
        BenchModel(
            "mobilenet_v2", "modern", "torchvision mobilenet_v2", _torchvision("mobilenet_v2")
        ),
        BenchModel("resnet18", "modern", "torchvision resnet18", _torchvision("resnet18")),
        BenchModel(
            "distilbert", "modern", "DistilBERT base, seq 128, eager attention", _distilbert
        ),
        BenchModel(
            "gpt2_like", "modern", "GPT-2 4 layers, width 768, seq 64, eager attention", _gpt2_like
        ),
        BenchModel(
            "regnet_y_400mf",
            "holdout",
            "torchvision regnet_y_400mf",
            _torchvision("regnet_y_400mf"),
        ),
        BenchModel(
            "mobilenet_v3_large",
            "holdout",
            "torchvision mobilenet_v3_large",
            _torchvision("mobilenet_v3_large"),
        ),
        BenchModel(
            "deit_tiny_like",
            "holdout",
            "ViT 12 layers, width 192, 3 heads, patch 16",
            _vit(12, 192, 3),
        ),
        BenchModel(
            "mlp_mixer_like", "holdout", "Mixer-S/16-like, 8 layers, width 512", _mlp_mixer_like
        ),
        BenchModel(
            "bert_sdpa", "holdout", "BERT 4 layers, width 512, seq 128, SDPA attention", _bert_sdpa
        ),
        BenchModel(
            "whisper_encoder_like",
            "holdout",
            "Whisper-tiny-like encoder, 4 layers, 500 tokens",
            _whisper_encoder_like,
        ),
        BenchModel(
            "resnext50_32x4d",
            "holdout",
            "torchvision resnext50_32x4d",
            _torchvision("resnext50_32x4d"),
        ),
        BenchModel(
            "shufflenet_v2",
            "holdout",
            "torchvision shufflenet_v2_x1_0 (58-channel branches: neither 16 nor 8 divides them)",
            _torchvision("shufflenet_v2_x1_0"),
        ),
        BenchModel(
            "inception_v3",
            "holdout",
            "torchvision inception_v3 at 224 (1x7 and 7x1 convs, unpadded stride 2)",
            _torchvision("inception_v3", aux_logits=False, init_weights=True),
        ),
        BenchModel("mnasnet1_0", "holdout", "torchvision mnasnet1_0", _torchvision("mnasnet1_0")),
        BenchModel(
            "r3d_18",
            "holdout",
            "torchvision video r3d_18 on 8 frames of 64x64 (3x3x3 convs, a 3x7x7 stem)",
            _video_net("r3d_18", 8, 64),
        ),
    ]
}


def suite_names(suite: str) -> list[str]:
    return [m.name for m in MODELS.values() if m.suite == suite]


def export(name: str, dynamic: bool = False) -> pathlib.Path:
    """Build `name` with seeded weights and export it to the cache (in this process)."""
    import warnings

    import onnx
    import torch

    _stub_torchvision_ops()
    torch.manual_seed(SEED)
    net, specs = MODELS[name].builder()
    net.eval()  # type: ignore[attr-defined]
    _fill_zero_matrices(net)
    _calibrate_batch_norms(net, specs)
    generator = torch.Generator().manual_seed(SEED)
    args = tuple(_example(spec, generator) for spec in specs.values())
    path = model_path(name, dynamic)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    # Not under no_grad: nn.MultiheadAttention would take its fused fast path, which has no
    # ONNX export.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            net,
            args,
            str(tmp),
            dynamo=False,
            opset_version=OPSET,
            input_names=list(specs),
            output_names=["output"],
            dynamic_axes=dynamic_axes(specs) if dynamic else None,
        )
    model = onnx.load(str(tmp))
    entry = model.metadata_props.add()
    entry.key, entry.value = INPUTS_KEY, json.dumps(specs)
    onnx.save(model, str(tmp))
    tmp.replace(path)
    return path


def _example(spec: dict[str, object], generator: object):  # type: ignore[no-untyped-def]
    import torch

    shape = tuple(spec["shape"])  # type: ignore[arg-type]
    if spec["fill"] == "randint":
        return torch.randint(0, int(spec["high"]), shape, generator=generator)  # type: ignore[arg-type]
    if spec["fill"] == "ones":
        return torch.ones(shape, dtype=getattr(torch, str(spec["dtype"])))
    return torch.randn(shape, generator=generator)  # type: ignore[arg-type]


def ensure_built(names: list[str], dynamic: bool = False) -> None:
    """Export the missing models in a subprocess (keeps torch out of the caller's process)."""
    missing = [n for n in names if n in MODELS and not model_path(n, dynamic).is_file()]
    if missing:
        flags = ["--dynamic"] if dynamic else []
        subprocess.run([sys.executable, __file__, "build", *flags, *missing], check=True)


def input_feed(model: object, seed: int = 0, batch: int = 1) -> dict[str, np.ndarray]:
    """Inputs for an ONNX ModelProto: from its `mlc_bench_inputs` entry, else N(0, 1) floats.

    `batch` replaces the leading dim of every input (the recorded specs are batch 1; without
    specs it replaces a symbolic leading dim), for a dynamic export (`model_path(dynamic=True)`).
    """
    rng = np.random.default_rng(seed)
    props = {p.key: p.value for p in model.metadata_props}  # type: ignore[attr-defined]
    if INPUTS_KEY in props:
        feed = {}
        for name, spec in json.loads(props[INPUTS_KEY]).items():
            shape = [batch, *spec["shape"][1:]] if batch != 1 else spec["shape"]
            if spec["fill"] == "randint":
                feed[name] = rng.integers(0, spec["high"], shape).astype(spec["dtype"])
            elif spec["fill"] == "ones":
                feed[name] = np.ones(shape, spec["dtype"])
            else:
                feed[name] = rng.standard_normal(shape).astype(spec["dtype"])
        return feed
    initializers = {i.name for i in model.graph.initializer}  # type: ignore[attr-defined]
    feed = {}
    for value in model.graph.input:  # type: ignore[attr-defined]
        if value.name not in initializers:
            dims = value.type.tensor_type.shape.dim
            shape = [d.dim_value or (batch if i == 0 else 1) for i, d in enumerate(dims)]
            dtype = np.dtype(onnx_helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type))
            if dtype.kind == "f":
                feed[value.name] = rng.standard_normal(shape).astype(dtype)
            else:  # token ids, masks: small values every vocabulary and table accepts
                feed[value.name] = rng.integers(0, 2, shape).astype(dtype)
    return feed


def names_to_build(names: list[str], suites: list[str]) -> list[str]:
    """The named models, then every model of each suite (in order, once); all without either."""
    if not names and not suites:
        return list(MODELS)
    chosen = list(names)
    for suite in suites:
        chosen += [n for n in suite_names(suite) if n not in chosen]
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list")
    build = sub.add_parser("build")
    build.add_argument("names", nargs="*")
    build.add_argument("--suite", choices=["modern", "holdout"], action="append", help="repeatable")
    build.add_argument("--rebuild", action="store_true")
    build.add_argument(
        "--dynamic", action="store_true", help="symbolic batch (and sequence) dims: NAME-dyn-vN"
    )
    args = parser.parse_args()
    if args.command == "list":
        for m in MODELS.values():
            print(f"{m.name:22s} {m.suite:8s} {m.description}")
        return 0
    names = names_to_build(args.names, args.suite or [])
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; see `list`")
    for name in names:
        if args.rebuild or not model_path(name, args.dynamic).is_file():
            print(f"exporting {name} -> {export(name, args.dynamic)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
