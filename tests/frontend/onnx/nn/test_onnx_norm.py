"""BatchNormalization (7: spatial, 14: training_mode, 15: mixed types), LayerNormalization,
InstanceNormalization, LRN."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    import_model,
    make_model,
    node_model,
    op_names,
    rand,
    run_compiled,
    run_mlc,
    the_op,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

X = rand(2, 3, 4, 5)


def _bn_stats(dtype: type = np.float32) -> dict[str, np.ndarray]:
    return {
        "scale": rand(3, seed=1).astype(dtype),
        "bias": rand(3, seed=2).astype(dtype),
        "mean": rand(3, seed=3).astype(dtype),
        "var": rand(3, seed=4, low=0.5, high=2).astype(dtype),
    }


@pytest.mark.parametrize("opset", [7, 9, 14, 15])
def test_batch_norm(opset: int) -> None:
    model = node_model(
        "BatchNormalization", {"x": X}, consts=_bn_stats(), opset=opset, epsilon=1e-3
    )
    module = check_numerics(model, {"x": X}, rtol=1e-5, atol=1e-5)
    assert op_names(module) == ["graph.batch_norm"]
    assert attrs(the_op(module, "graph.batch_norm"))["epsilon"] == pytest.approx(1e-3)


def test_batch_norm_15_mixed_types_are_converted_at_import() -> None:
    """onnxruntime has no kernel for f64 statistics: compared with the formula instead."""
    stats = _bn_stats(np.float64)
    module, params = import_model(
        node_model("BatchNormalization", {"x": X}, consts=stats, opset=15)
    )
    assert op_names(module) == ["graph.batch_norm"]
    assert all(p.dtype == np.float32 for p in params.values())
    (actual,) = run_mlc(module, params, {"x": X})
    c = (3, 1, 1)
    expected = (X - stats["mean"].reshape(c)) / np.sqrt(stats["var"].reshape(c) + 1e-5) * stats[
        "scale"
    ].reshape(c) + stats["bias"].reshape(c)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_batch_norm_spatial_0_is_rejected() -> None:
    model = node_model("BatchNormalization", {"x": X}, consts=_bn_stats(), opset=7, spatial=0)
    with pytest.raises(UnsupportedOpError, match="spatial=0"):
        from_onnx(model)


@pytest.mark.parametrize(
    "opset, outputs", [(14, ["y", "running_mean", "running_var"]), (15, ["y"])]
)
def test_batch_norm_training_mode_uses_the_batch_statistics(opset: int, outputs: list[str]) -> None:
    """test_batchnorm_*_training_mode: y from the batch's mean and population variance over
    every axis but 1; the running statistics move toward them by 1 - momentum."""
    from onnx.reference import ReferenceEvaluator

    stats = _bn_stats()
    x = rand(2, 3, 4, 5, seed=9) * 2 + 0.5
    model = node_model(
        "BatchNormalization",
        {"x": x},
        consts=stats,
        opset=opset,
        outputs=outputs,
        training_mode=1,
        momentum=0.8,
        epsilon=1e-2,
    )
    c = (1, 3, 1, 1)
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    y = (x - mean.reshape(c)) / np.sqrt(var.reshape(c) + 1e-2) * stats["scale"].reshape(c) + stats[
        "bias"
    ].reshape(c)
    want = [y, stats["mean"] * 0.8 + mean * 0.2, stats["var"] * 0.8 + var * 0.2][: len(outputs)]
    onnx_reference = ReferenceEvaluator(model).run(None, {"x": x})
    module, params = import_model(model)
    for got in (run_compiled(model, {"x": x}), run_mlc(module, params, {"x": x}), onnx_reference):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_batch_norm_6_is_rejected() -> None:
    model = node_model("BatchNormalization", {"x": X}, consts=_bn_stats(), opset=6)
    with pytest.raises(UnsupportedOpsetError, match="earliest implemented version 7"):
        from_onnx(model)


@pytest.mark.parametrize("with_bias", [True, False])
def test_layer_norm(with_bias: bool) -> None:
    consts = {"scale": rand(4, 5, seed=1)} | ({"bias": rand(4, 5, seed=2)} if with_bias else {})
    model = node_model(
        "LayerNormalization", {"x": X}, consts=consts, opset=17, axis=-2, epsilon=1e-3
    )
    module = check_numerics(model, {"x": X}, rtol=1e-4, atol=1e-5)
    norm = the_op(module, "graph.layer_norm")
    assert attrs(norm) == {"axis": -2, "epsilon": pytest.approx(1e-3)}
    assert len(norm.operands) == (3 if with_bias else 2)


def test_layer_norm_before_17_is_rejected() -> None:
    with pytest.raises(UnsupportedOpsetError, match="LayerNormalization.*17"):
        from_onnx(node_model("LayerNormalization", {"x": X}, consts={"s": rand(5)}, opset=16))


@pytest.mark.parametrize("opset", [6, 22])
def test_instance_norm(opset: int) -> None:
    model = node_model(
        "InstanceNormalization",
        {"x": X},
        consts={"s": rand(3, seed=1), "b": rand(3, seed=2)},
        opset=max(opset, 7),
        epsilon=1e-4,
    )
    module = check_numerics(model, {"x": X}, rtol=1e-4, atol=1e-5)
    assert op_names(module).count("graph.reduce_mean") == 2


@pytest.mark.parametrize("opset", [9, 13])
def test_lrn(opset: int) -> None:
    x = rand(1, 7, 3, 3, low=0, high=2)
    module = check_numerics(
        node_model("LRN", {"x": x}, opset=opset, size=3, alpha=1e-3, beta=0.6, bias=2.0),
        {"x": x},
        rtol=1e-5,
        atol=1e-6,
    )
    assert attrs(the_op(module, "graph.lrn")) == {
        "size": 3,
        "alpha": pytest.approx(1e-3),
        "beta": pytest.approx(0.6),
        "bias": 2.0,
    }


@pytest.mark.parametrize(
    "axis, dtype", [(-1, np.float32), (1, np.float32), (0, np.float32), (-2, np.float16)]
)
def test_layer_norm_mean_and_inv_std_dev_outputs(axis: int, dtype: type) -> None:
    """The optional outputs (test_layer_normalization_*: Mean, InvStdDev) are the statistics over
    the normalized dims, kept as size 1, in stash_type (float32 by default, also for f16 data)."""
    x = (rand(2, 3, 4, 5, seed=7) * 3 + 1).astype(dtype)
    shape = x.shape[axis % 4 :]
    consts = {
        "scale": rand(*shape, seed=1).astype(dtype),
        "bias": rand(*shape, seed=2).astype(dtype),
    }
    model = node_model(
        "LayerNormalization",
        {"x": x},
        consts=consts,
        opset=17,
        axis=axis,
        epsilon=1e-3,
        outputs=["y", "mean", "inv_std"],
        out_dtypes=[dtype, np.float32, np.float32],
    )
    tol = {"rtol": 2e-3, "atol": 2e-3} if dtype == np.float16 else {"rtol": 1e-4, "atol": 1e-5}
    check_numerics(model, {"x": x}, **tol)
    axes = tuple(range(axis % 4, 4))
    xf = x.astype(np.float32)
    mean = xf.mean(axis=axes, keepdims=True)
    inv_std = 1 / np.sqrt(((xf - mean) ** 2).mean(axis=axes, keepdims=True) + 1e-3)
    got = run_compiled(model, {"x": x})
    assert [a.dtype for a in got] == [dtype, np.float32, np.float32]
    np.testing.assert_allclose(got[1], mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], inv_std, rtol=1e-5, atol=1e-6)
    y = (xf - mean) * inv_std * consts["scale"].astype(np.float32) + consts["bias"].astype(
        np.float32
    )
    np.testing.assert_allclose(got[0].astype(np.float32), y, **tol)


def test_layer_norm_statistics_only_when_used() -> None:
    plain = node_model("LayerNormalization", {"x": X}, consts={"s": rand(5)}, opset=17)
    assert op_names(import_model(plain)[0]) == ["graph.layer_norm"]
    node = helper.make_node("LayerNormalization", ["x", "s"], ["y", "", "inv_std"], axis=2)
    model = make_model(
        [node], {"x": (np.float32, X.shape)}, ["y", "inv_std"], {"s": rand(4, 5)}, opset=17
    )
    module = check_numerics(model, {"x": X}, rtol=1e-4, atol=1e-5)
    assert "graph.reciprocal" in op_names(module)
