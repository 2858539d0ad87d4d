"""Attention (23, 24, 25) and RotaryEmbedding (23) against onnxruntime, and against ONNX's
reference where the spec's errata (zero rows when fully masked, the bottom-right causal frontier
of an external cache) are newer than onnxruntime."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from helpers.onnx_testing import (
    check_numerics,
    make_model,
    op_names,
    rand,
    run_compiled,
    run_mlc,
    run_ort,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

F32 = np.float32


def _attention(
    feeds: dict[str, np.ndarray],
    *,
    opset: int = 23,
    outputs: tuple[str, ...] = ("Y",),
    order: tuple[str, ...] = ("Q", "K", "V"),
    **attrs: Any,
) -> Any:
    node = helper.make_node("Attention", list(order), list(outputs), name="attn", **attrs)
    inputs = {n: (a.dtype, list(a.shape)) for n, a in feeds.items()}
    dtype = feeds["Q"].dtype
    return make_model([node], inputs, {o: dtype for o in outputs if o}, opset=opset)


def _qkv(q: tuple[int, ...], k: tuple[int, ...], v: tuple[int, ...], dtype: Any = F32) -> dict:
    return {n: rand(*s, seed=i, dtype=dtype) for i, (n, s) in enumerate(zip("QKV", (q, k, v)))}


def _compiled_close(model: Any, feeds: dict[str, np.ndarray], tol: float = 1e-5) -> None:
    for got, want in zip(run_compiled(model, feeds), run_ort(model, feeds)):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def _against_reference(model: Any, feeds: dict[str, np.ndarray], compiled: bool = True) -> None:
    want = ReferenceEvaluator(model).run(None, feeds)
    module, params = from_onnx(model)
    runs = [run_mlc(module, params, feeds)] + ([run_compiled(model, feeds)] if compiled else [])
    for got in runs:
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opset", [23, 24, 25])
def test_4d(opset: int) -> None:
    feeds = _qkv((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 10))
    model = _attention(feeds, opset=opset)
    check_numerics(model, feeds, rtol=1e-5, atol=1e-6)
    _compiled_close(model, feeds)


def test_grouped_query_heads_share_kv_without_copies() -> None:
    """9 query heads on 3 KV heads: the 3 query heads of a KV head are rows of one batch entry."""
    feeds = _qkv((2, 9, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8))
    model = _attention(feeds, is_causal=1)
    module = check_numerics(model, feeds, rtol=1e-5, atol=1e-6)
    counts = collections.Counter(op_names(module))
    assert counts["graph.batch_matmul"] == 2 and counts["graph.softmax"] == 1
    assert not {"graph.tile", "graph.expand", "graph.gather"} & set(counts)
    _compiled_close(model, feeds)


@pytest.mark.parametrize("heads", [(3, 3), (9, 3)])
def test_3d_inputs_split_heads(heads: tuple[int, int]) -> None:
    q_heads, kv_heads = heads
    feeds = _qkv((2, 4, 8 * q_heads), (2, 6, 8 * kv_heads), (2, 6, 5 * kv_heads))
    model = _attention(feeds, q_num_heads=q_heads, kv_num_heads=kv_heads, scale=0.2, softcap=3.0)
    check_numerics(model, feeds, rtol=1e-5, atol=1e-6)
    _compiled_close(model, feeds)


@pytest.mark.parametrize(
    "mask_shape, dtype", [((4, 6), F32), ((2, 1, 4, 6), F32), ((4, 6), bool), ((2, 3, 4, 6), bool)]
)
@pytest.mark.parametrize("causal", [0, 1])
def test_masks(mask_shape: tuple[int, ...], dtype: Any, causal: int) -> None:
    feeds = _qkv((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8))
    rng = np.random.default_rng(7)
    mask = rng.random(mask_shape) > 0.3 if dtype is bool else rng.normal(size=mask_shape)
    if dtype is bool:
        mask[..., 0] = True  # no fully masked row: onnxruntime would give NaN there
    feeds["attn_mask"] = mask.astype(dtype)
    model = _attention(feeds, order=("Q", "K", "V", "attn_mask"), is_causal=causal)
    check_numerics(model, feeds, rtol=1e-5, atol=1e-6)
    _compiled_close(model, feeds)


def test_constant_mask_folds_into_one_bias() -> None:
    feeds = _qkv((1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8))
    mask = np.tril(np.ones((4, 4), bool))
    node = helper.make_node("Attention", ["Q", "K", "V", "m"], ["Y"], is_causal=1)
    inputs = {n: (F32, list(a.shape)) for n, a in feeds.items()}
    model = make_model([node], inputs, ["Y"], {"m": mask}, opset=23)
    module = check_numerics(model, feeds, rtol=1e-5, atol=1e-6)
    assert "graph.where" not in op_names(module)  # no runtime mask, no fully masked row guard


def test_past_and_present() -> None:
    feeds = _qkv((2, 3, 4, 8), (2, 3, 2, 8), (2, 3, 2, 8))
    feeds.update(past_key=rand(2, 3, 5, 8, seed=5), past_value=rand(2, 3, 5, 8, seed=6))
    feeds["attn_mask"] = rand(4, 7, seed=8)
    model = _attention(
        feeds,
        outputs=("Y", "present_key", "present_value"),
        order=("Q", "K", "V", "attn_mask", "past_key", "past_value"),
        is_causal=1,
    )
    check_numerics(model, feeds, rtol=1e-5, atol=1e-6)
    _compiled_close(model, feeds)


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_qk_matmul_output_modes(mode: int) -> None:
    feeds = _qkv((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8))
    feeds["attn_mask"] = rand(4, 6, seed=9)
    model = _attention(
        feeds,
        outputs=("Y", "", "", "qk"),
        order=("Q", "K", "V", "attn_mask"),
        softcap=2.0,
        qk_matmul_output_mode=mode,
    )
    check_numerics(model, feeds, rtol=1e-5, atol=1e-6)


def test_softmax_precision() -> None:
    feeds = _qkv((1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8), dtype=np.float16)
    model = _attention(feeds, opset=24, softmax_precision=TensorProto.FLOAT)
    module = check_numerics(model, feeds, rtol=2e-3, atol=2e-3)
    assert op_names(module).count("graph.cast") == 2


def test_fully_masked_rows_are_zero() -> None:
    """Spec errata (ONNX 1.23): a query row with no attended key gives zeros, not NaN."""
    feeds = _qkv((1, 2, 3, 8), (1, 2, 3, 8), (1, 2, 3, 8))
    feeds["attn_mask"] = np.array([[True, False, False], [False] * 3, [True] * 3])
    model = _attention(
        feeds,
        outputs=("Y", "", "", "qk"),
        order=("Q", "K", "V", "attn_mask"),
        qk_matmul_output_mode=3,
    )
    _against_reference(model, feeds)
    (y, probs) = run_compiled(model, feeds)
    assert not np.isnan(y).any() and (y[:, :, 1] == 0).all() and (probs[:, :, 1] == 0).all()


@pytest.mark.parametrize("causal", [0, 1])
def test_external_cache_lengths_from_opset_24(causal: int) -> None:
    """nonpad_kv_seqlen: keys past each batch entry's length are padding; the causal frontier
    is bottom-right (query i sees keys up to i + length - q)."""
    feeds = _qkv((3, 4, 2, 8), (3, 2, 6, 8), (3, 2, 6, 8))
    feeds["nonpad"] = np.array([6, 3, 1], np.int64)
    model = _attention(
        feeds, opset=24, order=("Q", "K", "V", "", "", "", "nonpad"), is_causal=causal
    )
    _against_reference(model, feeds)


@pytest.mark.parametrize("window", [(2, -1), (1, 2), (0, 0)])
@pytest.mark.parametrize("lengths", [False, True])
def test_sliding_window_from_opset_25(window: tuple[int, int], lengths: bool) -> None:
    feeds = _qkv((2, 2, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8))
    order: tuple[str, ...] = ("Q", "K", "V")
    if lengths:
        feeds["nonpad"] = np.array([6, 5], np.int64)
        order = ("Q", "K", "V", "", "", "", "nonpad")
    left, right = window
    model = _attention(
        feeds,
        opset=25,
        order=order,
        left_window_size=left,
        right_window_size=right,
        is_causal=int(right <= 0),
    )
    _against_reference(model, feeds)


def test_version_boundaries() -> None:
    feeds = _qkv((1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8))
    with pytest.raises(UnsupportedOpsetError):
        from_onnx(_attention(feeds, opset=22))
    with pytest.raises(UnsupportedOpError, match="must not be given for 4-D inputs"):
        from_onnx(_attention(feeds, opset=25, q_num_heads=2, kv_num_heads=2))
    from_onnx(_attention(feeds, opset=24, q_num_heads=2, kv_num_heads=2))  # ignored before 25


def test_errors_name_the_node() -> None:
    feeds = _qkv((1, 4, 12), (1, 4, 12), (1, 4, 12))
    with pytest.raises(UnsupportedOpError, match="Attention node 'attn'.*q_num_heads"):
        from_onnx(_attention(feeds))
    feeds = _qkv((1, 3, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8))
    with pytest.raises(UnsupportedOpError, match="not a multiple of 2 KV heads"):
        from_onnx(_attention(feeds))


def _rotary(
    x: np.ndarray, cos: np.ndarray, positions: np.ndarray | None, **attrs: Any
) -> tuple[Any, dict[str, np.ndarray]]:
    feeds = {"x": x, "cos": cos, "sin": rand(*cos.shape, seed=3)}
    order = ["x", "cos", "sin"]
    if positions is not None:
        feeds["pos"] = positions
        order.append("pos")
    node = helper.make_node("RotaryEmbedding", order, ["y"], **attrs)
    inputs = {n: (a.dtype, list(a.shape)) for n, a in feeds.items()}
    return make_model([node], inputs, ["y"], opset=23), feeds


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("dim", [0, 4])
@pytest.mark.parametrize("rank", [3, 4])
def test_rotary_embedding(interleaved: int, dim: int, rank: int) -> None:
    half = (dim or 8) // 2
    x = rand(2, 3, 4, 8) if rank == 4 else rand(2, 4, 24)
    positions = np.array([[0, 5, 2, 9], [1, 1, 3, 0]], np.int64)
    extra = {"num_heads": 3} if rank == 3 else {}
    model, feeds = _rotary(
        x,
        rand(10, half, seed=2),
        positions,
        interleaved=interleaved,
        rotary_embedding_dim=dim,
        **extra,
    )
    check_numerics(model, feeds, rtol=1e-5, atol=1e-6)
    _compiled_close(model, feeds)


def test_rotary_embedding_without_position_ids() -> None:
    model, feeds = _rotary(rand(2, 3, 4, 8), rand(2, 4, 4, seed=2), None, interleaved=1)
    check_numerics(model, feeds, rtol=1e-5, atol=1e-6)


def test_rotary_embedding_cache_width_is_checked() -> None:
    model, _ = _rotary(rand(2, 3, 4, 8), rand(10, 3, seed=2), np.zeros((2, 4), np.int64))
    with pytest.raises(UnsupportedOpError, match="must give 4 values per position"):
        from_onnx(model)


def test_castlike_of_a_constant_folds_whatever_its_target() -> None:
    """Attention's function body pads the mask with CastLike(-inf, computed bias): only the
    target's type matters, so the cast folds and Pad gets a constant value."""
    nodes = [
        helper.make_node("Where", ["m", "zero", "ninf"], ["bias"]),
        helper.make_node("CastLike", ["ninf", "bias"], ["fill"]),
        helper.make_node("Pad", ["bias", "pads", "fill"], ["y"]),
    ]
    consts = {
        "zero": np.array(0.0, F32),
        "ninf": np.array(-np.inf, F32),
        "pads": np.array([0, 0, 0, 2], np.int64),
    }
    model = make_model(nodes, {"m": (np.bool_, [2, 3])}, ["y"], consts, opset=18)
    mask = np.array([[True, False, True], [False, False, True]])
    module = check_numerics(model, {"m": mask})
    assert "graph.cast" not in op_names(module) and "graph.pad" in op_names(module)
