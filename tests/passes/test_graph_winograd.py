"""graph-winograd: 3x3 stride-1 convs as Winograd F(2x2, 3x3) / F(4x4, 3x3) transforms around a
batched GEMM compute what the direct conv computes (numpy as the reference: float64 im2col),
for odd output sizes, batches, asymmetric pads, with and without a bias and a fused epilogue, in
NCHW8c and NCHW16c, at 1 and 2 threads; the transforms' reference implementations agree with
the conv; the pass picks the tile size by the rows its GEMMs get and leaves other convs alone."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from mlir import ir
from onnx import TensorProto, helper, numpy_helper

import mlc
from helpers.graph_exec import PIPELINE, SCHEDULED, run_graph
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.reference import evaluate
from mlc.dialects.graph.reference.layout import from_nchw, to_nchw
from mlc.dialects.graph.winograd import TRANSFORMS, filter_transform, toom_cook
from mlc.errors import PipelineParseError
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.runtime import GraphModule

RNG = np.random.default_rng(0)


def _conv_model(
    n: int, c: int, k: int, hw: tuple[int, int], pads: list[int], bias: bool, residual: bool
) -> tuple[object, dict[str, np.ndarray]]:
    w = RNG.standard_normal((k, c, 3, 3)) / np.sqrt(9 * c)
    inits = {"w": w}
    inputs = ["x", "w"]
    if bias:
        inits["b"] = RNG.standard_normal(k)
        inputs.append("b")
    oh, ow = hw[0] + pads[0] + pads[2] - 2, hw[1] + pads[1] + pads[3] - 2
    nodes = [helper.make_node("Conv", inputs, ["c"], pads=pads)]
    graph_inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, c, *hw])]
    if residual:  # conv + residual add + relu: the epilogue of a ResNet block
        nodes += [
            helper.make_node("Add", ["c", "r"], ["s"]),
            helper.make_node("Relu", ["s"], ["y"]),
        ]
        graph_inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, [n, k, oh, ow]))
    else:
        nodes[0].output[0] = "y"
    graph = helper.make_graph(
        nodes,
        "conv",
        graph_inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, k, oh, ow])],
        [numpy_helper.from_array(v.astype(np.float32), name) for name, v in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), inits


def _direct(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, pads: list[int]) -> np.ndarray:
    return evaluate(
        "conv2d",
        [
            x.astype(np.float64),
            w.astype(np.float64),
            *([] if b is None else [b.astype(np.float64)]),
        ],
        {"pads": tuple(pads)},
    )


def _run(model: object, pipeline: str, feeds: dict[str, np.ndarray]) -> np.ndarray:
    module, params = mlc.from_onnx(model)
    gm = GraphModule(mlc.build(module, params, pipeline=f"builtin.module({pipeline})").jit())
    for name, value in feeds.items():
        gm.set_input(name, value)
    gm.run()
    return np.array(gm.get_output(0))


def _graph_ops(model: object, passes: str) -> str:
    module, params = mlc.from_onnx(model)
    mlc.PassManager.parse(f"builtin.module({passes})").run(module, params=params)
    return str(module)


CASES = [
    # n, c, k, (h, w), pads, tile: each with enough tiles for mlc-default's min-rows (40)
    (1, 32, 48, (28, 28), [1, 1, 1, 1], 4),
    (2, 32, 32, (13, 11), [1, 1, 1, 1], 2),  # odd sizes: tiles past the last row/column
    (1, 32, 64, (26, 30), [1, 1, 1, 1], 4),  # partial 4x4 tiles
    (1, 48, 32, (16, 16), [0, 0, 0, 0], 2),  # no padding
    (1, 32, 32, (24, 26), [2, 1, 0, 2], 4),  # asymmetric pads
]


@pytest.mark.parametrize(
    "case", CASES, ids=lambda c: f"n{c[0]}c{c[1]}k{c[2]}_{c[3][0]}x{c[3][1]}_m{c[5]}"
)
@pytest.mark.parametrize(("block", "threads"), [(8, 1), (16, 2)])
@pytest.mark.parametrize("epilogue", ["bias", "residual"])
def test_winograd_conv_matches_direct(case: tuple, block: int, threads: int, epilogue: str) -> None:
    n, c, k, hw, pads, tile = case
    model, inits = _conv_model(
        n, c, k, hw, pads, bias=epilogue == "bias", residual=epilogue == "residual"
    )
    pipeline = MlcDefaultPipeline(threads=threads, vector_bits=block * 32, winograd=tile)
    text = _graph_ops(model, pipeline.stages()[0])
    assert '"graph.winograd_input"(%' in text and f"tile = {tile}" in text, text
    assert '"graph.conv2d"' not in text
    x = RNG.standard_normal((n, c, *hw)).astype(np.float32)
    feeds = {"x": x}
    want = _direct(x, inits["w"], inits.get("b"), pads)
    if epilogue == "residual":
        feeds["r"] = RNG.standard_normal(want.shape).astype(np.float32)
        want = np.maximum(want + feeds["r"], 0.0)
    got = _run(model, pipeline.expand(), feeds)
    # F(4x4, 3x3)'s transforms have entries up to 8 and 25: its rounding error is larger
    tolerance = (3e-5 if tile == 4 else 1e-5) * np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=0, atol=tolerance)


@pytest.mark.parametrize("tile", [2, 4])
@pytest.mark.parametrize("layout", ["NCHW", "NCHW8c"])
def test_reference_transforms_compose_to_the_conv(tile: int, layout: str) -> None:
    """winograd_output(winograd_input(x) . U) with U = G g G^T is the conv (float64 reference)."""
    n, c, k, pads = 2, 8, 16, (2, 1, 0, 1)
    x = RNG.standard_normal((n, c, 9, 7)).astype(np.float32)
    g = RNG.standard_normal((k, c, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(k).astype(np.float32)
    want = _direct(x, g, b, list(pads))
    out_size = want.shape[2:]
    v = evaluate(
        "winograd_input",
        [from_nchw(x, layout)],
        {"tile": tile, "out_size": out_size, "pads": pads[:2], "data_layout": layout},
    )
    u = filter_transform(tile) @ g.transpose(2, 3, 1, 0).reshape(9, c * k).astype(np.float64)
    products = np.matmul(v.astype(np.float64), u.reshape(-1, c, k)).astype(np.float32)
    y = evaluate(
        "winograd_output",
        [products, b],
        {"tile": tile, "out_size": out_size, "batch": n, "out_layout": layout},
    )
    np.testing.assert_allclose(to_nchw(y, layout), want, rtol=0, atol=1e-5 * np.abs(want).max())


def _conv_ops(text: str) -> list[str]:
    """Per conv of the model in order: `direct` or `m=<tile>`."""
    kinds = []
    for line in text.splitlines():
        if '"graph.conv2d"' in line:
            kinds.append("direct")
        elif '"graph.winograd_output"' in line:
            kinds.append("m=" + line.split("tile = ")[1].split(" ")[0].rstrip(",}:"))
    return kinds


def _chain(convs: list[dict]) -> object:
    """A chain of convs on a 1 x 32 x 28 x 28 input (each dict: Conv attributes, `k`, `c`)."""
    nodes, inits, c, name = [], [], 32, "x"
    for i, conv in enumerate(convs):
        k, kh = conv.pop("k", 32), conv.pop("kh", 3)
        group = conv.get("group", 1)
        inits.append(
            numpy_helper.from_array(
                RNG.standard_normal((k, c // group, kh, kh)).astype(np.float32), f"w{i}"
            )
        )
        nodes.append(helper.make_node("Conv", [name, f"w{i}"], [f"y{i}"], **conv))
        name, c = f"y{i}", k
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 28, 28])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_tile_by_rows_and_convs_left_alone() -> None:
    model = _chain(
        [
            {"pads": [1, 1, 1, 1]},  # 28 x 28: 49 tiles of 4 x 4 -> m = 4
            {"pads": [1, 1, 1, 1], "strides": [2, 2]},  # stride 2: direct, 14 x 14 out
            {"pads": [1, 1, 1, 1]},  # 14 x 14: 16 tiles of 4 x 4 < 40, 49 of 2 x 2 -> m = 2
            {"pads": [2, 2, 2, 2], "dilations": [2, 2]},  # dilated: direct
            {"pads": [1, 1, 1, 1], "group": 2},  # grouped: direct
            {"kh": 1},  # 1x1: direct
            {"pads": [1, 1, 1, 1], "k": 16},  # 16 output channels < min-channels: direct
            {"pads": [1, 1, 1, 1], "k": 32, "strides": [2, 2]},  # 7 x 7
            {"pads": [1, 1, 1, 1]},  # 7 x 7: 16 tiles of 2 x 2 < 40 -> direct
        ]
    )
    text = _graph_ops(model, "graph-alter-layout{block=8},graph-winograd")
    assert _conv_ops(text) == [
        "m=4",
        "direct",
        "m=2",
        "direct",
        "direct",
        "direct",
        "direct",
        "direct",
        "direct",
    ]
    # tile=2 caps the tile; min-rows=1 takes m = 4 wherever it fits
    text = _graph_ops(model, "graph-alter-layout{block=8},graph-winograd{tile=2}")
    assert _conv_ops(text)[:3] == ["m=2", "direct", "m=2"]
    text = _graph_ops(model, "graph-alter-layout{block=8},graph-winograd{min-rows=1}")
    assert _conv_ops(text)[-1] == "m=4"
    # NCHW convs (no layout pass) and tile=0 are left alone
    assert set(_conv_ops(_graph_ops(model, "graph-winograd"))) == {"direct"}
    assert set(
        _conv_ops(_graph_ops(model, "graph-alter-layout{block=8},graph-winograd{tile=0}"))
    ) == {"direct"}


def test_filter_transform_is_folded_at_compile_time() -> None:
    """G g G^T becomes a parameter: the only product left is the GEMM over the tiles."""
    model = _chain([{"pads": [1, 1, 1, 1]}])
    text = _graph_ops(model, MlcDefaultPipeline(vector_bits=256, winograd=4).stages()[0])
    matmuls = [line for line in text.splitlines() if '"graph.matmul"' in line]
    assert len(matmuls) == 1 and "tensor<36x32x32xf32>" in matmuls[0], matmuls


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("tile=3", "tile must be 0 (off) or one of [2, 4], got 3"),
        ("min-rows=0", "min-rows must be >= 1, got 0"),
        ("min-channels=0", "min-channels must be >= 1, got 0"),
    ],
)
def test_bad_options(options: str, message: str) -> None:
    with pytest.raises(PipelineParseError, match=re.escape(f"graph-winograd: {message}")):
        mlc.PassManager.parse(f"builtin.module(graph-winograd{{{options}}})")
    with pytest.raises(ValueError, match="winograd must be 0 .off., 2 or 4, got 3"):
        MlcDefaultPipeline(winograd=3)


@pytest.mark.parametrize("layout", ["NCHW", "NCHW8c"])
@pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["loops", "scheduled"])
def test_transform_ops_compile_to_their_reference(layout: str, pipeline: str) -> None:
    """Both ops on their own, unblocked and blocked, through tp (plain and scheduled loops),
    against the reference interpreter: tiles past the output's edge read zeros and write
    nothing (5 x 7 outputs in 2 x 2 tiles)."""
    x = RNG.standard_normal((2, 16, 5, 7)).astype(np.float32)
    x = from_nchw(x, layout)
    products = RNG.standard_normal((16, 2 * 3 * 4, 24)).astype(np.float32)
    bias = RNG.standard_normal(24).astype(np.float32)
    size = (5, 7)

    def body(x: ir.Value, m: ir.Value, b: ir.Value) -> list[ir.Value]:
        v = gb.winograd_input(x, tile=2, out_size=size, pads=(1, 1), data_layout=layout)
        y = gb.winograd_output(m, b, tile=2, out_size=size, batch=2, out_layout=layout)
        return [v, y]

    got, expected = run_graph(body, [x, products, bias], pipeline=pipeline)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_toom_cook_matrices() -> None:
    """Points 0, +-1, +-2 give Lavin & Gray's F(4, 3) matrices (rows of B^T and G signed so
    that B^T's first nonzero is positive); every tile size's matrices compute a 1-D
    correlation exactly (float64)."""
    points = tuple(Fraction(p) for p in (0, 1, -1, 2, -2))
    b_t, g, a_t = toom_cook(4, points)
    signs = np.array([1, -1, 1, -1, 1, 1])[:, None]
    np.testing.assert_array_equal(
        b_t,
        signs
        * np.array(
            [
                [4, 0, -5, 0, 1, 0],
                [0, -4, -4, 1, 1, 0],
                [0, 4, -4, -1, 1, 0],
                [0, -2, -1, 2, 1, 0],
                [0, 2, -1, -2, 1, 0],
                [0, 4, 0, -5, 0, 1],
            ]
        ),
    )
    np.testing.assert_allclose(g[:3], [[1 / 4, 0, 0], [1 / 6] * 3, [-1 / 6, 1 / 6, -1 / 6]])
    np.testing.assert_array_equal(a_t[1], [0, 1, -1, 2, -2, 0])
    for m, (b_t, g, a_t) in TRANSFORMS.items():
        d, w = RNG.standard_normal(m + 2), RNG.standard_normal(3)
        want = [d[i : i + 3] @ w for i in range(m)]
        np.testing.assert_allclose(a_t @ ((g @ w) * (b_t @ d)), want, rtol=1e-12, atol=1e-12)
        assert all(row[np.flatnonzero(row)[0]] > 0 for row in b_t)
