"""ConvTranspose: one convolution per output phase; padding, output sizes, groups, ranks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

from helpers.onnx_testing import (
    check_numerics,
    import_model,
    main_ops,
    node_model,
    op_names,
    output_types,
    rand,
    result_type,
    run_compiled,
    run_mlc,
    run_ort,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx
from mlc.frontend.onnx.converters.conv_transpose import Phase, phase_of

TOL = {"rtol": 1e-5, "atol": 1e-5}


def test_phases_of_a_stride_2_kernel_4() -> None:
    """o + 1 = 2i + k: even outputs use taps 3, 1 (inputs q-1, q); odd ones taps 2, 0."""
    assert phase_of(0, 2, 1, 1, 4) == Phase((3, 1), -1, 1)
    assert phase_of(1, 2, 1, 1, 4) == Phase((2, 0), 0, 1)
    assert phase_of(1, 3, 1, 0, 1) == Phase((), 0, 1)  # a kernel smaller than the stride
    assert phase_of(0, 2, 2, 0, 3) == Phase((2, 1, 0), -2, 1)  # d = s: every tap, step 1
    assert phase_of(0, 2, 3, 0, 5) == Phase((4, 2, 0), -6, 3)  # d/gcd(d, s) apart


@pytest.mark.parametrize("opset", [1, 11, 22])
def test_strided_padded_with_bias(opset: int) -> None:
    x, w, b = rand(1, 4, 5, 6), rand(4, 3, 4, 4, seed=1), rand(3, seed=2)
    model = node_model(
        "ConvTranspose",
        {"x": x},
        consts={"w": w, "b": b},
        opset=max(opset, 7),
        strides=[2, 2],
        pads=[1, 1, 1, 1],
    )
    module = check_numerics(model, {"x": x}, **TOL)
    assert op_names(module).count("graph.conv2d") == 4  # 2 x 2 phases of 2 x 2 taps
    assert output_shape(module) == (1, 3, 10, 12)


def output_shape(module: Any) -> tuple[int, ...]:
    return output_types(module)[0].shape


@pytest.mark.parametrize(
    "attrs",
    [
        {"strides": [3, 2], "output_padding": [1, 1], "pads": [0, 1, 2, 0]},
        {"strides": [2, 2], "dilations": [2, 3], "pads": [1, 0, 0, 2]},
        {"strides": [2, 3], "auto_pad": "SAME_UPPER"},
        {"strides": [2, 3], "auto_pad": "SAME_LOWER"},
        {"strides": [3, 2], "output_shape": [12, 9]},
        {"strides": [3, 2], "output_shape": [11, 8], "auto_pad": "SAME_UPPER"},
        {"strides": [1, 1], "pads": [2, 1, 0, 1]},
        {"group": 2, "strides": [2, 1]},
    ],
    ids=lambda a: "_".join(f"{k}{v}" for k, v in a.items()).replace(" ", ""),
)
def test_padding_and_output_sizes_against_onnxruntime(attrs: dict[str, Any]) -> None:
    x = rand(2, 4, 4, 5)
    w = rand(4, 6 // attrs.get("group", 1), 3, 3, seed=1)
    model = node_model("ConvTranspose", {"x": x}, consts={"w": w}, opset=17, **attrs)
    check_numerics(model, {"x": x}, **TOL)


def test_output_shape_larger_than_the_result_extends_it_at_the_end() -> None:
    """onnxruntime refuses this; the ONNX reference (and the backend test) pads with zeros."""
    x, w = rand(1, 1, 3, 3), rand(1, 2, 3, 3, seed=1)
    model = node_model(
        "ConvTranspose", {"x": x}, consts={"w": w}, opset=17, strides=[3, 2], output_shape=[10, 8]
    )
    expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
    module, params = import_model(model)
    np.testing.assert_allclose(run_mlc(module, params, {"x": x})[0], expected, **TOL)
    assert output_shape(module) == (1, 2, 10, 8)


def test_kernel_smaller_than_stride_leaves_bias_only_phases() -> None:
    x, w, b = rand(1, 2, 3, 3), rand(2, 2, 1, 2, seed=1), rand(2, seed=2)
    model = node_model("ConvTranspose", {"x": x}, consts={"w": w, "b": b}, opset=17, strides=[3, 3])
    module = check_numerics(model, {"x": x}, **TOL)
    assert op_names(module).count("graph.conv2d") == 2  # 9 phases, 7 of them only the bias
    np.testing.assert_allclose(run_compiled(model, {"x": x})[0], run_ort(model, {"x": x})[0], **TOL)


@pytest.mark.parametrize("rank", [1, 3])
def test_1d_and_3d(rank: int) -> None:
    x = rand(1, 3, *([4] * rank))
    w = rand(3, 2, *([3] * rank), seed=1)
    model = node_model(
        "ConvTranspose",
        {"x": x},
        consts={"w": w},
        opset=22,
        strides=[2] * rank,
        pads=[1] * (2 * rank),
        output_padding=[1] * rank,
    )
    module = check_numerics(model, {"x": x}, **TOL)
    assert ("graph.conv_nd" if rank == 3 else "graph.conv2d") in op_names(module)
    np.testing.assert_allclose(run_compiled(model, {"x": x})[0], run_ort(model, {"x": x})[0], **TOL)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("strides", [[1, 1], [2, 2]])
def test_a_1x1_input_is_one_matrix_product(strides: list[int], bias: bool) -> None:
    """A generator's first layer (DCGAN: 100 -> 512 x 4 x 4 from a 1x1 code): every output
    element is one tap of the kernel, so the node is [N, C] x [C, M*K], not a convolution
    over a 7x7 padded input whose taps read padding almost everywhere. The stride does not
    matter for one input element; runtime weights reshape the same way."""
    x, w, b = rand(3, 10, 1, 1), rand(10, 6, 4, 3, seed=1), rand(6, seed=2)
    consts = {"w": w, "b": b} if bias else {"w": w}
    model = node_model("ConvTranspose", {"x": x}, consts=consts, opset=17, strides=strides)
    module = check_numerics(model, {"x": x}, **TOL)
    assert "graph.matmul" in op_names(module) and "graph.conv2d" not in op_names(module)
    assert output_shape(module) == (3, 6, 4, 3)
    np.testing.assert_allclose(run_compiled(model, {"x": x})[0], run_ort(model, {"x": x})[0], **TOL)
    feeds = {"x": x, "w": w}
    runtime = node_model("ConvTranspose", feeds, opset=17, strides=strides)
    np.testing.assert_allclose(run_compiled(runtime, feeds)[0], run_ort(runtime, feeds)[0], **TOL)


def test_a_1x1_input_with_padding_stays_a_convolution() -> None:
    x, w = rand(1, 4, 1, 1), rand(4, 2, 4, 4, seed=1)
    model = node_model("ConvTranspose", {"x": x}, consts={"w": w}, opset=17, pads=[1, 1, 1, 1])
    module = check_numerics(model, {"x": x}, **TOL)
    assert "graph.conv2d" in op_names(module)


def test_runtime_weights_and_compiled_grouped() -> None:
    x, w, b = rand(1, 4, 5, 5), rand(4, 3, 3, 3, seed=1), rand(6, seed=2)
    model = node_model(
        "ConvTranspose", {"x": x, "w": w, "b": b}, opset=22, group=2, strides=[2, 2], pads=[1] * 4
    )
    feeds = {"x": x, "w": w, "b": b}
    check_numerics(model, feeds, **TOL)
    np.testing.assert_allclose(run_compiled(model, feeds)[0], run_ort(model, feeds)[0], **TOL)


def test_half_precision() -> None:
    x, w = rand(1, 3, 4, 4, dtype=np.float16), rand(3, 2, 3, 3, seed=1, dtype=np.float16)
    model = node_model(
        "ConvTranspose",
        {"x": x},
        consts={"w": w},
        opset=22,
        strides=[2, 2],
        out_dtypes=[np.float16],
    )
    module, params = import_model(model)
    got = run_mlc(module, params, {"x": x})[0]
    np.testing.assert_allclose(got, run_ort(model, {"x": x})[0], rtol=2e-3, atol=2e-3)
    assert got.dtype == np.float16


@pytest.mark.parametrize(
    "attrs,message",
    [
        ({"kernel_shape": [2, 2]}, "kernel_shape \\[2, 2\\] differs"),
        ({"auto_pad": "SAME"}, "auto_pad 'SAME' is not"),
        ({"strides": [2]}, "do not match the 2-D kernel"),
    ],
)
def test_bad_attributes_name_the_node(attrs: dict[str, Any], message: str) -> None:
    model = node_model(
        "ConvTranspose", {"x": rand(1, 2, 3, 3)}, consts={"w": rand(2, 1, 3, 3)}, opset=17, **attrs
    )
    with pytest.raises(
        UnsupportedOpError, match=rf"ConvTranspose node 'convtranspose_node'.*{message}"
    ):
        from_onnx(model)


def test_result_type_of_the_last_op() -> None:
    x, w = rand(1, 2, 3, 3), rand(2, 1, 2, 2, seed=1)
    model = node_model("ConvTranspose", {"x": x}, consts={"w": w}, opset=17, strides=[2, 2])
    module, _ = import_model(model)
    assert result_type(main_ops(module)[-1]).shape == (1, 1, 6, 6)
