"""Reference interpreter: conv, matmul, pooling and normalization against onnxruntime and numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from helpers.reference_oracle import OrtCase, check_against_ort, rand, run_ort
from mlc.dialects.graph.reference import evaluate

X = rand(2, 4, 9, 8)
CONV_TOL = {"rtol": 1e-4, "atol": 1e-5}


def _conv(
    x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, *, id: str, **attrs: Any
) -> OrtCase:
    onnx_attrs = {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()}
    return OrtCase(
        "conv2d",
        [x, w] + ([b] if b is not None else []),
        attrs,
        "Conv",
        onnx_attrs,
        id=id,
        **CONV_TOL,
    )


def _pool(op: str, onnx_op: str, x: np.ndarray, *, id: str, **attrs: Any) -> OrtCase:
    onnx_attrs = {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()}
    return OrtCase(op, [x], attrs, onnx_op, onnx_attrs, id=id)


CASES: list[OrtCase] = [
    _conv(X, rand(6, 4, 3, 3, seed=1), id="conv_plain"),
    _conv(
        X,
        rand(6, 4, 3, 3, seed=1),
        rand(6, seed=2),
        strides=(2, 1),
        pads=(1, 0, 2, 1),
        id="conv_bias_stride_asym_pads",
    ),
    _conv(X, rand(6, 4, 3, 2, seed=1), dilations=(2, 3), pads=(2, 2, 2, 2), id="conv_dilated"),
    _conv(
        X,
        rand(4, 1, 3, 3, seed=1),
        rand(4, seed=2),
        group=4,
        pads=(1, 1, 1, 1),
        id="conv_depthwise",
    ),
    _conv(X, rand(6, 2, 1, 1, seed=1), group=2, id="conv_grouped_1x1"),
    OrtCase("matmul", [rand(3, 4), rand(4, 5, seed=1)], {}, "MatMul", **CONV_TOL),
    OrtCase(
        "matmul",
        [rand(2, 1, 3, 4), rand(5, 4, 6, seed=1)],
        {},
        "MatMul",
        id="matmul_batch_broadcast",
        **CONV_TOL,
    ),
    OrtCase(
        "matmul", [rand(4), rand(2, 4, 3, seed=1)], {}, "MatMul", id="matmul_vector_lhs", **CONV_TOL
    ),
    OrtCase(
        "matmul", [rand(2, 3, 4), rand(4, seed=1)], {}, "MatMul", id="matmul_vector_rhs", **CONV_TOL
    ),
    OrtCase("batch_matmul", [rand(2, 3, 4), rand(2, 4, 5, seed=1)], {}, "MatMul", **CONV_TOL),
    OrtCase(
        "dense",
        [rand(3, 4), rand(5, 4, seed=1), rand(5, seed=2)],
        {"transB": 1},
        "Gemm",
        {"transB": 1},
        id="dense_bias_transB",
        **CONV_TOL,
    ),
    OrtCase(
        "dense",
        [rand(4, 3), rand(4, 5, seed=1), rand(3, 1, seed=2)],
        {"transA": 1, "alpha": 0.5, "beta": 2.0},
        "Gemm",
        {"transA": 1, "alpha": 0.5, "beta": 2.0},
        id="dense_alpha_beta_col_bias",
        **CONV_TOL,
    ),
    OrtCase("dense", [rand(3, 4), rand(4, 5, seed=1)], {}, "Gemm", id="dense_no_c", **CONV_TOL),
    OrtCase(
        "batch_norm",
        [X, rand(4, seed=1), rand(4, seed=2), rand(4, seed=3), rand(4, seed=4, low=0.1, high=2)],
        {"epsilon": 1e-3},
        "BatchNormalization",
        {"epsilon": 1e-3},
        **CONV_TOL,
    ),
    _pool(
        "max_pool2d",
        "MaxPool",
        X,
        kernel_shape=(3, 3),
        strides=(2, 2),
        pads=(1, 1, 1, 1),
        id="max_pad",
    ),
    _pool(
        "max_pool2d",
        "MaxPool",
        rand(1, 2, 7, 7, low=-9, high=-1),
        kernel_shape=(2, 2),
        strides=(2, 2),
        pads=(1, 1, 1, 1),
        ceil_mode=1,
        id="max_ceil_negative_values",
    ),
    _pool(
        "max_pool2d",
        "MaxPool",
        X,
        kernel_shape=(2, 3),
        dilations=(2, 2),
        strides=(1, 2),
        id="max_dilated",
    ),
    _pool(
        "avg_pool2d",
        "AveragePool",
        X,
        kernel_shape=(3, 3),
        strides=(2, 2),
        pads=(1, 1, 1, 1),
        id="avg_excl_pad",
    ),
    _pool(
        "avg_pool2d",
        "AveragePool",
        X,
        kernel_shape=(3, 3),
        strides=(2, 2),
        pads=(1, 1, 1, 1),
        count_include_pad=1,
        id="avg_incl_pad",
    ),
    _pool(
        "avg_pool2d",
        "AveragePool",
        rand(1, 2, 6, 6),
        kernel_shape=(3, 3),
        strides=(2, 2),
        pads=(1, 1, 1, 1),
        ceil_mode=1,
        count_include_pad=1,
        id="avg_ceil_incl_pad",
    ),
    _pool(
        "avg_pool2d",
        "AveragePool",
        rand(1, 2, 6, 6),
        kernel_shape=(3, 3),
        strides=(2, 2),
        ceil_mode=1,
        id="avg_ceil_excl_pad",
    ),
    OrtCase("global_avg_pool2d", [X], {}, "GlobalAveragePool"),
    OrtCase("global_max_pool2d", [X], {}, "GlobalMaxPool"),
    *(
        OrtCase(
            "lrn",
            [rand(2, 7, 3, 3)],
            {"size": s, "alpha": 0.01, "beta": 0.6, "bias": 1.5},
            "LRN",
            {"size": s, "alpha": 0.01, "beta": 0.6, "bias": 1.5},
            id=f"lrn_size{s}",
            **CONV_TOL,
        )
        for s in (1, 3, 5)
    ),  # onnxruntime: odd sizes only
    OrtCase("softmax", [rand(2, 3, 5, low=-9, high=9)], {"axis": 1}, "Softmax", {"axis": 1}),
    OrtCase("softmax", [rand(2, 3, 5, low=-9, high=9)], {}, "Softmax", id="softmax_last"),
    OrtCase(
        "log_softmax",
        [rand(2, 3, 5, low=-9, high=9)],
        {"axis": 0},
        "LogSoftmax",
        {"axis": 0},
        **CONV_TOL,
    ),
    OrtCase(
        "layer_norm",
        [rand(2, 3, 4), rand(4, seed=1), rand(4, seed=2)],
        {},
        "LayerNormalization",
        opset=17,
        **CONV_TOL,
    ),
    OrtCase(
        "layer_norm",
        [rand(2, 3, 4), rand(3, 4, seed=1)],
        {"axis": 1, "epsilon": 1e-2},
        "LayerNormalization",
        {"axis": 1, "epsilon": 1e-2},
        opset=17,
        id="layer_norm_axis1_no_bias",
        **CONV_TOL,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_onnxruntime(case: OrtCase) -> None:
    check_against_ort(case)


def _block_data(x: np.ndarray, b: int) -> np.ndarray:
    """NCHW -> NCHW<b>c written out element by element (independent of the reference)."""
    n, c, h, w = x.shape
    out = np.empty((n, c // b, h, w, b), x.dtype)
    for ch in range(c):
        out[:, ch // b, :, :, ch % b] = x[:, ch]
    return out


def _block_kernel(w: np.ndarray, bi: int, bo: int) -> np.ndarray:
    o, i, kh, kw = w.shape
    out = np.empty((o // bo, i // bi, kh, kw, bi, bo), w.dtype)
    for oc in range(o):
        for ic in range(i):
            out[oc // bo, ic // bi, :, :, ic % bi, oc % bo] = w[oc, ic]
    return out


def test_blocked_conv_matches_onnxruntime_nchw() -> None:
    x, w, b = rand(1, 8, 6, 6), rand(16, 8, 3, 3, seed=1), rand(16, seed=2)
    expected = run_ort("Conv", [x, w, b], {"pads": [1, 1, 1, 1]}, [])
    got = evaluate(
        "conv2d",
        [_block_data(x, 4), _block_kernel(w, 4, 8), b],
        {
            "pads": (1, 1, 1, 1),
            "data_layout": "NCHW4c",
            "kernel_layout": "OIHW4i8o",
            "out_layout": "NCHW8c",
        },
    )
    np.testing.assert_allclose(got, _block_data(expected, 8), **CONV_TOL)
    nchw_out = evaluate(
        "conv2d",
        [_block_data(x, 4), _block_kernel(w, 4, 8), b],
        {"pads": (1, 1, 1, 1), "data_layout": "NCHW4c", "kernel_layout": "OIHW4i8o"},
    )
    np.testing.assert_allclose(nchw_out, expected, **CONV_TOL)


@pytest.mark.parametrize(
    "op, onnx_op, extra",
    [("max_pool2d", "MaxPool", {}), ("avg_pool2d", "AveragePool", {"count_include_pad": 1})],
)
def test_blocked_pools_match_onnxruntime_nchw(op: str, onnx_op: str, extra: dict[str, int]) -> None:
    x = rand(1, 8, 7, 7)
    attrs = {
        "kernel_shape": (3, 3),
        "strides": (2, 2),
        "pads": (1, 1, 1, 1),
        "ceil_mode": 1,
        **extra,
    }
    expected = run_ort(
        onnx_op, [x], {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()}, []
    )
    got = evaluate(op, [_block_data(x, 4)], {**attrs, "layout": "NCHW4c"})
    np.testing.assert_allclose(got, _block_data(expected, 4), rtol=1e-6)


def test_max_pool_padding_never_wins() -> None:
    x = np.full((1, 1, 2, 2), -5.0, np.float32)
    got = evaluate("max_pool2d", [x], {"kernel_shape": (2, 2), "pads": (1, 1, 1, 1)})
    assert (got == -5.0).all() and got.shape == (1, 1, 3, 3)


def test_avg_pool_divisors_by_hand() -> None:
    x = np.ones((1, 1, 3, 3), np.float32)
    x[0, 0, 0, 0] = 4.0
    x[0, 0, 2, 2] = 7.0
    attrs = {"kernel_shape": (2, 2), "strides": (2, 2), "pads": (1, 1, 0, 0)}
    # The top-left window covers rows {-1, 0} x cols {-1, 0}: one real element (4.0).
    assert evaluate("avg_pool2d", [x], attrs)[0, 0, 0, 0] == 4.0
    assert evaluate("avg_pool2d", [x], {**attrs, "count_include_pad": 1})[0, 0, 0, 0] == 1.0
    # Without pads, ceil_mode adds a window over rows {2, 3} x cols {2, 3}: only x[2, 2] is
    # real, and the added row/col is never counted, even with count_include_pad.
    for include in (0, 1):
        got = evaluate(
            "avg_pool2d",
            [x],
            {
                "kernel_shape": (2, 2),
                "strides": (2, 2),
                "ceil_mode": 1,
                "count_include_pad": include,
            },
        )
        assert got.shape == (1, 1, 2, 2) and got[0, 0, 1, 1] == 7.0


def test_lrn_by_hand() -> None:
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 4, 1, 1)
    got = evaluate("lrn", [x], {"size": 3, "alpha": 0.3, "beta": 1.0, "bias": 1.0}).reshape(4)
    sums = [1 + 4, 1 + 4 + 9, 4 + 9 + 16, 9 + 16]
    np.testing.assert_allclose(
        got, [v / (1 + 0.1 * s) for v, s in zip([1, 2, 3, 4], sums)], rtol=1e-6
    )
    # Even size: floor((size-1)/2) = 1 channel before, ceil((size-1)/2) = 2 after.
    got = evaluate("lrn", [x], {"size": 4, "alpha": 0.4, "beta": 1.0, "bias": 1.0}).reshape(4)
    sums = [1 + 4 + 9, 1 + 4 + 9 + 16, 4 + 9 + 16, 9 + 16]
    np.testing.assert_allclose(
        got, [v / (1 + 0.1 * s) for v, s in zip([1, 2, 3, 4], sums)], rtol=1e-6
    )


def test_conv_float16_keeps_type() -> None:
    x, w = rand(1, 2, 5, 5).astype(np.float16), rand(3, 2, 3, 3, seed=1).astype(np.float16)
    got = evaluate("conv2d", [x, w], {})
    expected = evaluate("conv2d", [x.astype(np.float32), w.astype(np.float32)], {})
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), expected, rtol=1e-2, atol=1e-2)
