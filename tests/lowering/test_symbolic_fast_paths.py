"""The fast paths of kernels on sizes known at run time only (issue 28, item 2): a dense layer
writing its output through the packed-weights remap with the bias on its register tile, vectors
on an axis of run-time extent (attention scores, softmax rows) with tails in power-of-two
pieces, row fusion over a run-time count of rows, batch symbols sampled at 1. Each model is
compiled once and run at sizes 1, primes and past a tile, against numpy / onnxruntime; each
test also checks the IR that the path was taken (the values alone would pass on the slow one).
"""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from onnx import TensorProto, helper, numpy_helper

import mlc
from mlc.dialects.tp import BlockView
from mlc.dialects.walk import walk
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.passes.symbol_samples import leading_symbols, sample_sizes
from mlc.runtime import GraphModule
from mlc.symbolic import assume

F = TensorProto.FLOAT
SEQS = [1, 13, 61, 67, 130]  # 67, 130: past one and two 64-lane tiles of the sampled width


def _w(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _model(nodes, inputs, inits=()):  # type: ignore[no-untyped-def]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
        [helper.ValueInfoProto(name="y")],
        list(inits),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def _scheduled(model, vector_bits: int = 512) -> ir.Module:  # type: ignore[no-untyped-def]
    """The model's tp program after mlc-default's scheduling passes."""
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    graph, tp, _ = MlcDefaultPipeline(vector_bits=vector_bits).stages()
    mlc.PassManager.parse(f"builtin.module({graph},{tp})").run(module, params=params)
    return module


def _compiled(model) -> GraphModule:  # type: ignore[no-untyped-def]
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    return GraphModule(mlc.build(module, params).jit())


def test_dense_on_run_time_rows_writes_its_output_through_the_remap() -> None:
    w, b = _w(48, 64), _w(64, seed=1)
    model = _model(
        [
            helper.make_node("MatMul", ["x", "w"], ["m"]),
            helper.make_node("Add", ["m", "b"], ["a"]),
            helper.make_node("Relu", ["a"], ["y"]),
        ],
        [("x", ["batch", "seq", 48])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    module = _scheduled(model)
    (kernel,) = [
        op
        for op in module.body.operations
        if op.operation.name == "func.func"
        and "matmul" in ir.StringAttr(op.attributes["sym_name"]).value
    ]
    # The product writes the kernel's output: no scratch argument (which @mlc_main would
    # allocate per call), no view of one.
    text = str(kernel)
    assert "memref.view" not in text and "xi8>" not in text, text[:400]
    gm = _compiled(model)
    rng = np.random.default_rng(0)
    for batch, seq in [(1, 1), (1, 13), (2, 61), (1, 67)]:
        x = rng.standard_normal((batch, seq, 48)).astype(np.float32)
        gm.run(x=x)
        np.testing.assert_allclose(
            gm.get_output(0), np.maximum(x @ w + b, 0), rtol=1e-4, atol=1e-4, err_msg=f"{seq}"
        )


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_attention_scores_and_softmax_run_on_vectors_at_every_length() -> None:
    model = _model(
        [
            helper.make_node("MatMul", ["q", "k"], ["s"]),
            helper.make_node("Mul", ["s", "scale"], ["t"]),
            helper.make_node("Softmax", ["t"], ["y"], axis=-1),
        ],
        [("q", ["batch", 2, "seq", 16]), ("k", ["batch", 2, 16, "seq"])],
        [numpy_helper.from_array(np.asarray(0.25, np.float32), "scale")],
    )
    module = _scheduled(model)
    blocks = [BlockView(op) for op in walk(module.operation) if op.name == "tp.block"]
    over_keys = [v for v in blocks if v.symbolic and v.name.startswith(("matmul", "softmax_m"))]
    assert over_keys, "no score or softmax-max block"
    for view in over_keys:  # vectors on the key axis, whose extent is known at run time only
        assert view.schedule.vectorize, (view.name, view.schedule)
    gm = _compiled(model)
    rng = np.random.default_rng(1)
    for seq in SEQS:
        q = rng.standard_normal((1, 2, seq, 16)).astype(np.float32)
        k = rng.standard_normal((1, 2, 16, seq)).astype(np.float32)
        gm.run(q=q, k=k)
        np.testing.assert_allclose(
            gm.get_output(0), _softmax(q @ k * 0.25), rtol=1e-4, atol=1e-6, err_msg=f"{seq}"
        )


def test_layer_norm_and_softmax_rows_of_run_time_count_fuse_and_match() -> None:
    g, b = _w(40, seed=2), _w(40, seed=3)
    model = _model(
        [
            helper.make_node("LayerNormalization", ["x", "g", "b"], ["n"], axis=-1),
            helper.make_node("Softmax", ["n"], ["y"], axis=-1),
        ],
        [("x", ["batch", "seq", 40])],
        [numpy_helper.from_array(g, "g"), numpy_helper.from_array(b, "b")],
    )
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    graph, tp, loops = MlcDefaultPipeline(threads=1).stages()
    mlc.PassManager.parse(f"builtin.module({graph},{tp},{loops.split(',func.func')[0]})").run(
        module, params=params
    )
    kernel = next(
        op
        for op in module.body.operations
        if op.operation.name == "func.func"
        and "layer_norm" in ir.StringAttr(op.attributes["sym_name"]).value
    )
    # Row fusion: the kernel body is one loop over tiles of rows (per run-time batch and seq),
    # not one sweep per block.
    top_loops = [o for o in kernel.regions[0].blocks[0].operations if o.operation.name == "scf.for"]
    assert len(top_loops) == 1, len(top_loops)
    gm = _compiled(model)
    rng = np.random.default_rng(4)
    for batch, seq in [(1, 1), (2, 13), (1, 61), (3, 67)]:
        x = rng.standard_normal((batch, seq, 40)).astype(np.float32)
        gm.run(x=x)
        mean = x.mean(-1, keepdims=True)
        norm = (x - mean) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * g + b
        np.testing.assert_allclose(
            gm.get_output(0), _softmax(norm), rtol=1e-4, atol=1e-6, err_msg=f"{batch}x{seq}"
        )


def test_a_batch_symbol_is_sampled_at_one_within_its_bounds() -> None:
    model = _model(
        [helper.make_node("Add", ["x", "m"], ["y"])],
        [("x", ["batch", "seq", 8]), ("m", ["seq", 8])],
    )
    module, _ = mlc.from_onnx(model, symbolic_dims=True)
    mlc.PassManager.parse("builtin.module(graph-fuse,graph-to-tp)").run(module)
    leading = leading_symbols(module.operation)
    assert leading == {"batch"}  # `seq` leads `m`, which has no other run-time dim
    assert sample_sizes(["batch", "seq"], 64, leading) == {"batch": 1, "seq": 64}
    with assume({"batch": (2, 8), "seq": (1, 16)}):
        assert sample_sizes(["batch", "seq"], 64, leading) == {"batch": 2, "seq": 16}


def test_an_image_batch_is_sampled_at_one_and_matrix_rows_are_not() -> None:
    model = _model(
        [helper.make_node("Relu", ["images"], ["y"]), helper.make_node("Relu", ["rows"], ["z"])],
        [("images", ["n", 3, 8, 8]), ("rows", ["m", 16])],
    )
    module, _ = mlc.from_onnx(model, symbolic_dims=True)
    mlc.PassManager.parse("builtin.module(graph-fuse,graph-to-tp)").run(module)
    assert leading_symbols(module.operation) == {"n"}


def test_a_profile_of_a_dynamic_package_times_its_kernels() -> None:
    model = _model([helper.make_node("Softmax", ["x"], ["y"], axis=-1)], [("x", ["n", 24])])
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    gm = GraphModule(mlc.build(module, params, profile=True).jit())
    gm.set_input(x=np.ones((5, 24), np.float32))
    profile = gm.profile(number=2)
    # operation counts of run-time sizes are expressions, evaluated at the profiled run's sizes
    assert profile.kernels and all(k.call.flops > 0 for k in profile.kernels)
    np.testing.assert_allclose(gm.get_output(0), np.full((5, 24), 1 / 24), rtol=1e-6)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 31])
def test_a_run_time_tail_of_every_width_is_covered(n: int) -> None:
    """Rests of 0..7 lanes of an 8-lane vector (vector-bits 256) take each piece combination."""
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [("x", [3, "n"])])
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    pipeline = "builtin.module(mlc-default{vector-bits=256})"
    gm = GraphModule(mlc.build(module, params, pipeline=pipeline).jit())
    x = np.random.default_rng(n).standard_normal((3, n)).astype(np.float32)
    gm.run(x=x)
    np.testing.assert_array_equal(gm.get_output(0), np.maximum(x, 0))


def test_attention_on_two_threads_matches_at_every_length() -> None:
    """Parallel loops over run-time trips, row fusion and vector tails together."""
    model = _model(
        [
            helper.make_node("MatMul", ["q", "k"], ["s"]),
            helper.make_node("Softmax", ["s"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"]),
        ],
        [
            ("q", ["batch", 4, "seq", 16]),
            ("k", ["batch", 4, 16, "seq"]),
            ("v", ["batch", 4, "seq", 16]),
        ],
    )
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    gm = GraphModule(mlc.build(module, params, threads=2).jit())
    rng = np.random.default_rng(5)
    for batch, seq in [(1, 1), (2, 13), (1, 67), (3, 130)]:
        q, k, v = (
            rng.standard_normal(shape).astype(np.float32)
            for shape in [(batch, 4, seq, 16), (batch, 4, 16, seq), (batch, 4, seq, 16)]
        )
        gm.run(q=q, k=k, v=v)
        np.testing.assert_allclose(
            gm.get_output(0), _softmax(q @ k) @ v, rtol=1e-4, atol=1e-5, err_msg=f"{batch}x{seq}"
        )


def test_a_classifier_on_a_run_time_batch_keeps_register_tiles() -> None:
    """A batch sampled at 1 would make a large dense layer a streamed matrix-vector product,
    which re-streams the matrix for every row at run time: it is scheduled for many rows."""
    w, b = _w(512, 1000, seed=6), _w(1000, seed=7)  # 1000 columns: not packed in panels
    model = _model(
        [
            helper.make_node("Flatten", ["x"], ["f"], axis=1),
            helper.make_node("Gemm", ["f", "w", "b"], ["y"], transB=1),
        ],
        [("x", ["batch", 2, 16, 16])],
        [numpy_helper.from_array(w.T.copy(), "w"), numpy_helper.from_array(b, "b")],
    )
    module = _scheduled(model)
    dense = [
        BlockView(op)
        for op in walk(module.operation)
        if op.name == "tp.block" and BlockView(op).name.startswith("dense")
    ]
    assert dense and all(v.schedule.unroll for v in dense), [v.schedule for v in dense]
    gm = _compiled(model)
    rng = np.random.default_rng(8)
    for batch in (1, 3, 7):
        x = rng.standard_normal((batch, 2, 16, 16)).astype(np.float32)
        gm.run(x=x)
        np.testing.assert_allclose(
            gm.get_output(0), x.reshape(batch, -1) @ w + b, rtol=1e-4, atol=1e-3
        )


def test_index_ranges_over_a_run_time_batch_are_decided_without_corner_comparisons() -> None:
    """ViT's heads read `((b * 6 + h) * 64 + j) mod 384` over a run-time batch: the product's
    corners ((batch - 1) * 6 against 0) and the period test cannot be decided at batch 1, and
    the verifier refused the kernel ('reads out of bounds ... [?, ?]')."""
    from mlc.dialects.tp.affine import expr_range, out_of_bounds
    from mlc.symbolic import sym

    batch = sym("batch")
    with mlc.Context():
        b, h, j = (ir.AffineDimExpr.get(i) for i in range(3))
        inner = (b * 6 + h) * 64 + j
        assert expr_range(inner, [(0, batch - 1), (0, 5), (0, 63)]) == (0, batch * 384 - 1)
        assert expr_range(inner % 384, [(0, batch - 1), (0, 5), (0, 63)]) == (0, 383)
        assert expr_range(h * -2, [(0, batch - 1), (0, 5), (0, 63)]) == (-10, 0)
        amap = ir.AffineMap.get(3, 0, [inner % 384])
        assert out_of_bounds(amap, [batch, 6, 64], [384]) == []
