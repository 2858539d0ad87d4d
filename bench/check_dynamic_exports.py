"""Independent dynamic-shape check (issue 28): small torch/transformers/torchvision models
exported with symbolic batch/sequence (or batch/H/W) dims, each compiled ONCE into a package
without --input-shapes and run at several sizes from that package against onnxruntime.

    python bench/check_dynamic_exports.py [NAME ...] [--rebuild] [--keep DIR]
    python bench/check_dynamic_exports.py list

None of these architectures is in modern_models.py's dynamic set; weights are random
(`torch.manual_seed(0)`), nothing is downloaded. Exports (TorchScript exporter, opset 17) are
cached in `build/dyn-check/` (override with MLC_DYN_CHECK); torch is only imported by the
`export` subprocess. Prints one Markdown row per (model, size): max |mlc - ort| / max |ort|,
PASS at rel <= 1e-3, or the first line of the error.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable

import numpy as np

REPO = pathlib.Path(__file__).resolve().parent.parent
OPSET = 17
RTOL = 1e-3
TEXT_SIZES = [(1, 1), (1, 7), (3, 61), (1, 130), (2, 13), (1, 300)]
"""seq 300 is past the 256-row position tables of some models: onnxruntime fails there, and
mlc must refuse the size with a clear error (a ShapeError naming the dim), not clamp."""
FRAMES = [(1, 16), (1, 62), (2, 200), (1, 1000)]  # mel frames: 8, 31, 100, 500 tokens (> 448)
VISION_BATCHES = [(1, 64, 64), (3, 64, 64)]
VISION_HW = [(1, 64, 64), (2, 97, 61), (1, 128, 96)]


def cache_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("MLC_DYN_CHECK", REPO / "build" / "dyn-check"))


# ---- builders: (module, input names, dynamic axes, example inputs); torch imported lazily ----


def _text_inputs(vocab: int):  # type: ignore[no-untyped-def]
    import torch

    g = torch.Generator().manual_seed(0)
    ids = torch.randint(2, vocab, (2, 9), generator=g)
    mask = torch.ones(2, 9, dtype=torch.int64)
    mask[1, 6:] = 0
    return ids, mask


def _hidden_of(model):  # type: ignore[no-untyped-def]
    import torch

    class LastHidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask):  # type: ignore[no-untyped-def]
            return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    return LastHidden()


def _text(make: Callable[[], tuple[object, int]]):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        model, vocab = make()
        axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
        axes["output"] = {0: "batch", 1: "seq"}
        return _hidden_of(model), ["input_ids", "attention_mask"], axes, _text_inputs(vocab)

    return build


def _small(cls_config, cls_model, **kw):  # type: ignore[no-untyped-def]
    def make():  # type: ignore[no-untyped-def]
        config = cls_config(attn_implementation="eager", **kw)
        return cls_model(config), config.vocab_size

    return make


def _bert():  # type: ignore[no-untyped-def]
    from transformers import BertConfig, BertModel

    c = BertConfig(
        vocab_size=1000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=512, max_position_embeddings=256, attn_implementation="eager",
    )  # fmt: skip
    return BertModel(c, add_pooling_layer=False), c.vocab_size


def _roberta():  # type: ignore[no-untyped-def]
    from transformers import RobertaConfig, RobertaModel

    c = RobertaConfig(
        vocab_size=1000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=512, max_position_embeddings=260, attn_implementation="eager",
    )  # fmt: skip
    return RobertaModel(c, add_pooling_layer=False), c.vocab_size


def _gpt2():  # type: ignore[no-untyped-def]
    from transformers import GPT2Config, GPT2Model

    c = GPT2Config(
        vocab_size=1000, n_embd=128, n_layer=2, n_head=4, n_positions=256,
        attn_implementation="eager", use_cache=False,
    )  # fmt: skip
    return GPT2Model(c), c.vocab_size


def _t5():  # type: ignore[no-untyped-def]
    from transformers import T5Config, T5EncoderModel

    c = T5Config(
        vocab_size=1000, d_model=128, d_kv=32, d_ff=256, num_layers=2, num_heads=4,
        attn_implementation="eager",
    )  # fmt: skip
    return T5EncoderModel(c), c.vocab_size


def _llama():  # type: ignore[no-untyped-def]
    from transformers import LlamaConfig, LlamaModel

    c = LlamaConfig(
        vocab_size=1000, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        attn_implementation="eager", use_cache=False,
    )  # fmt: skip
    return LlamaModel(c), c.vocab_size


def _mistral():  # type: ignore[no-untyped-def]
    from transformers import MistralConfig, MistralModel

    c = MistralConfig(
        vocab_size=1000, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=1, max_position_embeddings=512,
        sliding_window=None, attn_implementation="eager", use_cache=False,
    )  # fmt: skip
    return MistralModel(c), c.vocab_size


def _bart_encoder():  # type: ignore[no-untyped-def]
    from transformers import BartConfig, BartModel

    c = BartConfig(
        vocab_size=1000, d_model=128, encoder_layers=2, decoder_layers=1,
        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=256,
        decoder_ffn_dim=256, max_position_embeddings=256, attn_implementation="eager",
    )  # fmt: skip
    return BartModel(c).get_encoder(), c.vocab_size


def _whisper_like():  # type: ignore[no-untyped-def]
    """Whisper's encoder front (two conv1d + GELU, the second stride 2, then sinusoid-free
    learned positions sliced to the run-time frame count) and two WhisperEncoderLayers."""
    import torch
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoderLayer

    c = WhisperConfig(
        d_model=128, encoder_attention_heads=4, encoder_ffn_dim=256, num_mel_bins=40,
        attn_implementation="eager",
    )  # fmt: skip

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = torch.nn.Conv1d(40, 128, 3, padding=1)
            self.conv2 = torch.nn.Conv1d(128, 128, 3, stride=2, padding=1)
            self.positions = torch.nn.Embedding(448, 128)
            self.layers = torch.nn.ModuleList([WhisperEncoderLayer(c) for _ in range(2)])
            self.norm = torch.nn.LayerNorm(128)

        def forward(self, features):  # type: ignore[no-untyped-def]
            x = torch.nn.functional.gelu(self.conv1(features))
            x = torch.nn.functional.gelu(self.conv2(x)).permute(0, 2, 1)
            x = x + self.positions.weight[: x.shape[1]]
            for layer in self.layers:
                x = layer(x, attention_mask=None)
                x = x[0] if isinstance(x, tuple) else x
            return self.norm(x)

    g = torch.Generator().manual_seed(0)
    axes = {"features": {0: "batch", 2: "frames"}, "output": {0: "batch", 1: "tokens"}}
    return Encoder(), ["features"], axes, (torch.randn(1, 40, 30, generator=g),)


def _vision(arch: str, hw: bool):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import modern_models
        import torch
        import torchvision.models

        net = getattr(torchvision.models, arch)()
        spec = {"x": {"dtype": "float32", "shape": [1, 3, 64, 64], "fill": "normal"}}
        modern_models._calibrate_batch_norms(net, spec)
        axes = {"x": {0: "batch", 2: "height", 3: "width"} if hw else {0: "batch"}}
        axes["output"] = {0: "batch"}
        g = torch.Generator().manual_seed(0)
        return net, ["x"], axes, (torch.randn(2, 3, 64, 64, generator=g),)

    return build


MODELS = {
    "bert_eager": (_text(_bert), "text"),
    "roberta": (_text(_roberta), "text"),
    "gpt2_mask": (_text(_gpt2), "text"),
    "t5_encoder": (_text(_t5), "text"),
    "bart_encoder": (_text(_bart_encoder), "text"),
    "llama": (_text(_llama), "text"),
    "mistral": (_text(_mistral), "text"),
    "whisper_like": (_whisper_like, "audio"),
    "resnet18": (_vision("resnet18", False), "vision"),
    "mobilenet_v3_small": (_vision("mobilenet_v3_small", False), "vision"),
    "efficientnet_b0": (_vision("efficientnet_b0", False), "vision"),
    "resnet18_hw": (_vision("resnet18", True), "vision_hw"),
    "mobilenet_v3_small_hw": (_vision("mobilenet_v3_small", True), "vision_hw"),
    "efficientnet_b0_hw": (_vision("efficientnet_b0", True), "vision_hw"),
}


def path_of(name: str) -> pathlib.Path:
    return cache_dir() / f"{name}.onnx"


def export(name: str) -> None:
    import warnings

    import torch

    sys.path.insert(0, str(REPO / "bench"))
    import modern_models

    modern_models._stub_torchvision_ops()  # transformers imports torchvision
    torch.manual_seed(0)
    net, names, axes, example = MODELS[name][0]()
    net.eval()
    path = path_of(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            net, example, str(path), dynamo=False, opset_version=OPSET,
            input_names=names, output_names=["output"], dynamic_axes=axes,
        )  # fmt: skip


# ---- the check (no torch in this process) -----------------------------------------------------


def _sizes(kind: str) -> list[tuple[int, ...]]:
    return {"text": TEXT_SIZES, "audio": FRAMES, "vision": VISION_BATCHES, "vision_hw": VISION_HW}[
        kind
    ]


def feeds(kind: str, size: tuple[int, ...], seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "text":
        batch, seq = size
        mask = np.ones((batch, seq), np.int64)
        for b in range(1, batch):  # right padding on all rows but the first
            mask[b, max(1, seq - 3 * b) :] = 0
        return {"input_ids": rng.integers(2, 1000, (batch, seq)), "attention_mask": mask}
    if kind == "audio":
        return {"features": rng.standard_normal((size[0], 40, size[1])).astype(np.float32)}
    batch, h, w = size
    return {"x": rng.standard_normal((batch, 3, h, w)).astype(np.float32)}


def check(name: str, keep: pathlib.Path | None) -> list[str]:
    import onnxruntime as ort

    import mlc
    from mlc.runtime import GraphModule, load_module

    kind = MODELS[name][1]
    model = path_of(name)
    rows = []
    out_dir = keep or pathlib.Path(tempfile.mkdtemp(prefix="dyncheck-"))
    package = out_dir / f"{name}.tar"
    start = time.perf_counter()
    try:
        mlc.compile_model(model, package, options=mlc.BuildOptions())
        gm = GraphModule(load_module(package))
    except Exception as e:  # noqa: BLE001 - reported in the table
        traceback.print_exc(file=sys.stderr)
        return [f"| {name} | compile | FAIL | {_first_line(e)} |"]
    compile_s = time.perf_counter() - start
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    for size in _sizes(kind):
        feed = feeds(kind, size, seed=sum(size))
        label = "x".join(map(str, size))
        try:
            (expected,) = session.run(None, feed)
        except Exception as e:  # noqa: BLE001 - past a table: mlc must refuse it too
            rows.append(_refused(name, label, gm, feed, e))
            continue
        try:
            gm.run(**feed)
            got = gm.get_output(0)
            if got.shape != expected.shape:
                rows.append(f"| {name} | {label} | FAIL | shape {got.shape} != {expected.shape} |")
                continue
            rel = float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30))
            verdict = "PASS" if rel <= RTOL else "FAIL"
            rows.append(f"| {name} | {label} | {verdict} | rel {rel:.1e} |")
        except Exception as e:  # noqa: BLE001
            rows.append(f"| {name} | {label} | FAIL | {_first_line(e)} |")
    rows[0] = rows[0][:-1] + f"(compiled once in {compile_s:.0f} s) |"
    return rows


def _refused(name: str, label: str, gm, feed: dict, ort_error: Exception) -> str:  # type: ignore[no-untyped-def]
    from mlc.runtime.shapes import ShapeError

    try:
        gm.run(**feed)
    except ShapeError as e:
        return f"| {name} | {label} | PASS | refused: {_first_line(e)} |"
    except Exception as e:  # noqa: BLE001
        return f"| {name} | {label} | FAIL | unclear error {_first_line(e)} |"
    why = _first_line(ort_error)[:80]
    return f"| {name} | {label} | FAIL | ran (wrong answer) where onnxruntime fails: {why} |"


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:200].replace("|", "/")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="models (default: all); 'list' lists them")
    parser.add_argument("--rebuild", action="store_true", help="export again")
    parser.add_argument("--keep", type=pathlib.Path, help="keep the packages in this folder")
    parser.add_argument("--export-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.names == ["list"]:
        for name, (_, kind) in MODELS.items():
            print(f"{name:24} {kind}: sizes {_sizes(kind)}")
        return 0
    names = args.names or list(MODELS)
    if args.export_only:
        for name in names:
            export(name)
        return 0
    missing = [n for n in names if args.rebuild or not path_of(n).is_file()]
    if missing:
        subprocess.run([sys.executable, __file__, "--export-only", *missing], check=True)
    print("| model | size | result | max rel. error vs onnxruntime / error |")
    print("|---|---|---|---|")
    failed = 0
    for name in names:
        for row in check(name, args.keep):
            failed += "| FAIL |" in row
            print(row, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
