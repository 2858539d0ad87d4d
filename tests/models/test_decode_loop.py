"""A greedy decode loop over a decoder with a KV cache (issue 28, deliverable 4).

The decoder is tests/helpers/decoder_models.py's tiny GPT-2 (the op patterns of a transformers 5
export with `past_key_values`; symbolic batch, seq, past). onnxruntime runs the loop now: the
cache grows each step, and every step's logits equal those of one call on the whole sequence
with an empty cache (so the mask, positions and cache concatenation are right). mlc compiles the
model once with symbolic dims and must give the same tokens at two sizes; that test is xfail
until the compiler takes the model. Tolerances: logits rel 1e-3 of their scale (mlc), 1e-4
(onnxruntime against itself).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from helpers.decoder_models import (  # noqa: E402
    EXPORT_OP_TYPES,
    DecoderSignature,
    greedy_decode,
    onnxruntime_runner,
    tiny_decoder,
)

STEPS = 32
VOCAB = 50


@functools.cache
def _model():  # type: ignore[no-untyped-def]
    return tiny_decoder(vocab=VOCAB)


def _prompt(batch: int, length: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, VOCAB, (batch, length)).astype(np.int64)


def _rel(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / np.abs(want).max())


def test_tiny_decoder_has_the_exports_ops_and_named_dims() -> None:
    model = _model()
    assert {n.op_type for n in model.graph.node} == EXPORT_OP_TYPES
    dims = {
        v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in [*model.graph.input, *model.graph.output]
    }
    assert dims["attention_mask"] == ["batch", "past + seq"]
    assert dims["past_key_values.1.value"] == ["batch", 4, "past", 8]
    assert dims["present.0.key"] == ["batch", 4, "past + seq", 8]
    assert DecoderSignature.of(model) == DecoderSignature(2, 4, 8, True, True)


# (batch, prompt length, seed) of the prompts the tests decode: tokens vary along the loop (a
# prompt of one token with seed 0 repeats one token) and the best logit of every step leads the
# second by >= 0.08 (logits of scale 20-26: an error of rel 1e-3 cannot swap them).
PROMPTS = [(1, 1, 1), (2, 5, 2), (1, 4, 1), (2, 7, 2)]


@pytest.mark.parametrize(("batch", "length", "seed"), PROMPTS[:2])
def test_onnxruntime_loop_with_a_growing_cache_matches_one_full_call(
    batch: int, length: int, seed: int
) -> None:
    model = _model()
    run = onnxruntime_runner(model)
    prompt = _prompt(batch, length, seed)
    result = greedy_decode(run, DecoderSignature.of(model), prompt, STEPS)
    assert result.tokens.shape == (batch, STEPS)
    assert len(result.step_seconds) == STEPS - 1
    # Tokens vary, so agreeing token for token means something.
    assert all(len(set(row)) >= 3 for row in result.tokens.tolist())
    top2 = np.sort(np.stack(result.logits), axis=-1)[..., -2:]
    assert (top2[..., 1] - top2[..., 0]).min() > 0.08
    # One call on prompt + generated tokens (all but the last) with an empty cache.
    sequence = np.concatenate([prompt, result.tokens[:, :-1]], axis=1)
    total = sequence.shape[1]
    feed = {
        "input_ids": sequence,
        "attention_mask": np.ones((batch, total), np.int64),
        "position_ids": np.broadcast_to(np.arange(total), (batch, total)).copy(),
    }
    feed.update(
        (name, np.zeros((batch, 4, 0, 8), np.float32))
        for name in DecoderSignature.of(model).past_names()
    )
    logits = run(feed)["logits"]
    for step in range(STEPS):
        want = logits[:, length - 1 + step]
        assert _rel(result.logits[step], want) < 1e-4, step
    np.testing.assert_array_equal(logits[:, length - 1 :].argmax(-1), result.tokens)


def test_padding_in_the_attention_mask_changes_the_logits() -> None:
    """The mask input is read (a padded position is not attended), not only its shape."""
    model = _model()
    run = onnxruntime_runner(model)
    ids = _prompt(1, 6)
    feed = {
        "input_ids": ids,
        "attention_mask": np.ones((1, 6), np.int64),
        "position_ids": np.arange(6)[None],
    }
    feed.update(
        (n, np.zeros((1, 4, 0, 8), np.float32)) for n in DecoderSignature.of(model).past_names()
    )
    full = run(feed)["logits"]
    feed["attention_mask"] = np.array([[0, 1, 1, 1, 1, 1]], np.int64)
    padded = run(feed)["logits"]
    assert _rel(padded[:, 1:], full[:, 1:]) > 1e-2


def test_mlc_compiles_once_and_decodes_like_onnxruntime() -> None:
    from bench_decode import compile_with_mlc

    model = _model()
    signature = DecoderSignature.of(model)
    compiled = compile_with_mlc(model)  # once; the cache's past length may be 0
    reference = onnxruntime_runner(model)
    for batch, length, seed in PROMPTS[2:]:
        prompt = _prompt(batch, length, seed)
        want = greedy_decode(reference, signature, prompt, STEPS)
        got = greedy_decode(compiled, signature, prompt, STEPS)
        np.testing.assert_array_equal(got.tokens, want.tokens)
        for step in range(STEPS):
            assert _rel(got.logits[step], want.logits[step]) < 1e-3, (batch, step)
