"""Greedy decoding with a KV cache: onnxruntime against mlc, tokens per second (issue 28).

    python bench/bench_decode.py [--model gpt2_decoder | FILE.onnx] [--prompt 8] [--steps 32]
                                 [--batch 1] [--rounds 3] [--threads 1]

The model is a decoder exported with `past_key_values` (bench/decode_models.py): inputs
`input_ids [batch, seq]`, `attention_mask [batch, past+seq]`, `position_ids [batch, seq]`,
`past_key_values.{i}.key|value [batch, heads, past, head_dim]`; outputs `logits` and
`present.{i}.key|value [batch, heads, past+seq, head_dim]`. `greedy_decode` feeds a prompt of P
tokens with an empty cache, then `steps` single tokens, each step's presents becoming the next
step's past, and takes the argmax of the last position's logits. It drives any runner: a callable
from a feed (name -> array) to the outputs by name; `onnxruntime_runner` and
`graph_module_runner` (mlc's `GraphModule`: `set_input` / `run` / `get_output` by name) make one.

mlc compiles the model once with symbolic dims (`mlc.from_onnx(model, symbolic_dims=True)`);
while it cannot, its row is the one-line error. Rounds alternate the peers (the first rotated
each round); the table reports the minimum over rounds, and whether mlc's tokens agree with
onnxruntime's at every step.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

Runner = Callable[[Mapping[str, np.ndarray]], dict[str, np.ndarray]]
"""A feed (input name -> array) to the outputs (output name -> array)."""

_PAST = re.compile(r"past_key_values\.(\d+)\.(key|value)$")


@dataclass(frozen=True)
class DecoderSignature:
    """What the loop needs to know of a decoder's inputs, read from its ONNX graph."""

    layers: int
    heads: int
    head_dim: int
    has_attention_mask: bool
    has_position_ids: bool
    dtype: np.dtype = np.dtype(np.float32)

    @classmethod
    def of(cls, model: object) -> DecoderSignature:
        """The signature of an ONNX ModelProto with `past_key_values.{i}.key|value` inputs."""
        from onnx import helper

        inputs = {v.name: v for v in model.graph.input}  # type: ignore[attr-defined]
        pasts = [(int(m[1]), inputs[n]) for n in inputs if (m := _PAST.match(n))]
        if not pasts:
            raise ValueError("not a decoder with a KV cache: no past_key_values.{i}.key input")
        tensor = pasts[0][1].type.tensor_type
        dims = tensor.shape.dim
        return cls(
            layers=max(i for i, _ in pasts) + 1,
            heads=dims[1].dim_value,
            head_dim=dims[3].dim_value,
            has_attention_mask="attention_mask" in inputs,
            has_position_ids="position_ids" in inputs,
            dtype=np.dtype(helper.tensor_dtype_to_np_dtype(tensor.elem_type)),
        )

    def past_names(self, prefix: str = "past_key_values") -> list[str]:
        return [f"{prefix}.{i}.{kind}" for i in range(self.layers) for kind in ("key", "value")]


@dataclass
class DecodeResult:
    tokens: np.ndarray
    """[batch, steps] int64: the greedy token of each step (the prompt's next token first)."""
    logits: list[np.ndarray]
    """Per step, the last position's logits [batch, vocab]."""
    prompt_seconds: float
    step_seconds: list[float]
    """Wall time of each single-token step (the runner's call, argmax included)."""

    @property
    def tokens_per_second(self) -> float:
        """Decode steps (after the prompt) per second, per sequence of the batch."""
        return len(self.step_seconds) / sum(self.step_seconds)


def greedy_decode(
    run: Runner, signature: DecoderSignature, prompt: np.ndarray, steps: int = 32
) -> DecodeResult:
    """Feed `prompt` [batch, P] with an empty cache, then `steps - 1` generated tokens one by
    one (so `steps` tokens come out), each call's presents as the next call's past."""
    batch = prompt.shape[0]
    past = {
        name: np.zeros((batch, signature.heads, 0, signature.head_dim), signature.dtype)
        for name in signature.past_names()
    }
    ids = prompt.astype(np.int64)
    tokens, logits, seconds = [], [], []
    prompt_seconds = 0.0
    for step in range(steps):
        past_len = next(iter(past.values())).shape[2]
        feed = {"input_ids": ids, **past}
        if signature.has_attention_mask:
            feed["attention_mask"] = np.ones((batch, past_len + ids.shape[1]), np.int64)
        if signature.has_position_ids:
            positions = np.arange(past_len, past_len + ids.shape[1], dtype=np.int64)
            feed["position_ids"] = np.broadcast_to(positions, ids.shape).copy()
        start = time.perf_counter()
        out = run(feed)
        last = out["logits"][:, -1, :]
        token = last.argmax(axis=-1).astype(np.int64)
        elapsed = time.perf_counter() - start
        if step == 0:
            prompt_seconds = elapsed
        else:
            seconds.append(elapsed)
        tokens.append(token)
        logits.append(np.array(last))
        past = {name: out[name.replace("past_key_values", "present")] for name in past}
        want = past_len + ids.shape[1]
        for name, value in past.items():
            if value.shape != (batch, signature.heads, want, signature.head_dim):
                raise ValueError(f"step {step}: {name} has shape {value.shape}, past+seq is {want}")
        ids = token[:, None]
    return DecodeResult(np.stack(tokens, axis=1), logits, prompt_seconds, seconds)


def onnxruntime_runner(model: object, threads: int = 1) -> Runner:
    """A runner of an onnxruntime session of the ModelProto `model` (bench/peers.py's options)."""
    from peers import ort_session

    session = ort_session(model, threads)
    names = [o.name for o in session.get_outputs()]

    def run(feed: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        return dict(zip(names, session.run(names, dict(feed)), strict=True))

    return run


def graph_module_runner(gm: object) -> Runner:
    """A runner of an mlc `GraphModule`: set every input by name, run, read every output."""
    names = list(gm.get_output_info())  # type: ignore[attr-defined]

    def run(feed: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        gm.set_input(**feed)  # type: ignore[attr-defined]
        gm.run()  # type: ignore[attr-defined]
        return {name: gm.get_output(name) for name in names}  # type: ignore[attr-defined]

    return run


def compile_with_mlc(model: object, threads: int = 1) -> Runner:
    """Compile `model` once with symbolic dims and wrap it as a runner (raises mlc's error)."""
    import mlc
    from mlc.runtime import GraphModule

    module, params = mlc.from_onnx(model, shape_dict=cache_bounds(model), symbolic_dims=True)
    lib = mlc.build(module, params, threads=threads) if threads != 1 else mlc.build(module, params)
    return graph_module_runner(GraphModule(lib.jit()))


def cache_bounds(model: object) -> dict[str, list[int | str]]:
    """shape_dict for the cache inputs: their past length may be 0 (the prompt's step), which
    the compiler must assume (sizes are otherwise assumed >= 1); other dims stay symbolic."""
    bounds: dict[str, list[int | str]] = {}
    for value in model.graph.input:  # type: ignore[attr-defined]
        dims = value.type.tensor_type.shape.dim
        if any(d.dim_param == "past" for d in dims):
            bounds[value.name] = [
                d.dim_value if not d.dim_param else ("0.." if d.dim_param == "past" else "1..")
                for d in dims
            ]
    return bounds


def vocab_size(model: object) -> int:
    """The last dim of the `logits` output when static, else the largest Gather table's rows."""
    for value in model.graph.output:  # type: ignore[attr-defined]
        if value.name == "logits":
            dim = value.type.tensor_type.shape.dim[-1]
            if dim.dim_value:
                return int(dim.dim_value)
    raise ValueError("the decoder's `logits` output has no static vocabulary size")


def load_decoder(name: str) -> object:
    """A model of bench/decode_models.py (exported on first use, in a subprocess) or a file."""
    import decode_models
    import onnx

    if name in decode_models.MODELS:
        decode_models.ensure_built([name])
        return onnx.load(str(decode_models.model_path(name)))
    return onnx.load(name)


@dataclass
class PeerRow:
    name: str
    results: list[DecodeResult]
    error: str = ""

    def best_tokens_per_second(self) -> float:
        return max(r.tokens_per_second for r in self.results)

    def best_prompt_ms(self) -> float:
        return 1e3 * min(r.prompt_seconds for r in self.results)


def agreement(got: DecodeResult, want: DecodeResult) -> tuple[int, float]:
    """(steps whose tokens all agree before the first disagreement, max relative logits error
    over those steps)."""
    same = (got.tokens == want.tokens).all(axis=0)
    agreed = int(np.argmin(same)) if not same.all() else len(same)
    error = 0.0
    for g, w in zip(got.logits[:agreed], want.logits[:agreed], strict=True):
        scale = max(float(np.abs(w).max()), 1e-30)
        error = max(error, float(np.abs(g.astype(np.float64) - w).max()) / scale)
    return agreed, error


def bench(model: object, args: argparse.Namespace) -> list[str]:
    from bench_models import one_line
    from peers import SETTLE_S

    signature = DecoderSignature.of(model)
    rng = np.random.default_rng(0)
    prompt = rng.integers(0, vocab_size(model), (args.batch, args.prompt)).astype(np.int64)
    runners: dict[str, Runner] = {"onnxruntime": onnxruntime_runner(model, args.threads)}
    rows = {"onnxruntime": PeerRow("onnxruntime", [])}
    try:
        start = time.perf_counter()
        runners["mlc"] = compile_with_mlc(model, args.threads)
        print(f"mlc compiled in {time.perf_counter() - start:.1f} s", flush=True)
        rows["mlc"] = PeerRow("mlc", [])
    except Exception as error:  # noqa: BLE001 - any failure is the row's one-line status
        rows["mlc"] = PeerRow("mlc", [], one_line(error))
    names = list(runners)
    for turn in range(args.rounds):
        for name in names[turn % len(names) :] + names[: turn % len(names)]:
            try:
                rows[name].results.append(
                    greedy_decode(runners[name], signature, prompt, args.steps)
                )
            except Exception as error:  # noqa: BLE001
                rows[name].error = one_line(error)
                names.remove(name)
            time.sleep(SETTLE_S)
    lines = [
        f"prompt {args.prompt} tokens, {args.steps} greedy steps, batch {args.batch}, "
        f"{args.threads} thread(s), best of {args.rounds} rounds",
        "",
        "| peer | decode tokens/s | prompt (ms) | tokens agreeing with onnxruntime | "
        "max rel logits error |",
        "|---|---|---|---|---|",
    ]
    want = rows["onnxruntime"].results[0] if rows["onnxruntime"].results else None
    for row in rows.values():
        if row.error or not row.results:
            lines.append(f"| {row.name}: {row.error} | | | | |")
            continue
        agreed, error = agreement(row.results[0], want) if want else (0, float("nan"))
        lines.append(
            f"| {row.name} | {row.best_tokens_per_second():.1f} | {row.best_prompt_ms():.2f} | "
            f"{agreed}/{args.steps} | {error:.1e} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="gpt2_decoder", help="a decode_models name or a file")
    parser.add_argument("--prompt", type=int, default=8, help="prompt length P")
    parser.add_argument("--steps", type=int, default=32, help="tokens generated")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    print("\n".join(bench(load_decoder(args.model), args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
