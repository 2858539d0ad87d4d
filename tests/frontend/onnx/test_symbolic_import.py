"""Importing models whose inputs have symbolic dims (issue 28, step 2 of docs/design.md's plan):
the types keep the dims as expressions, shape arithmetic folds over them, and at every size the
expressions give exactly the types a static import at that size gives."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from mlir import ir

import mlc
from helpers.onnx_models import GraphBuilder, encoder_layer, mobilenet_like
from helpers.onnx_testing import make_model
from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph.spec import TensorT
from mlc.dialects.walk import walk
from mlc.errors import PassFailedError, UnsupportedOpError
from mlc.symbolic import evaluate


def _named(model: onnx.ModelProto, dims: dict[str, dict[int, str]]) -> onnx.ModelProto:
    """`model` with input dims replaced by dim_params: {input: {axis: name}}."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for value in model.graph.input:
        for axis, name in dims.get(value.name, {}).items():
            dim = value.type.tensor_type.shape.dim[axis]
            dim.ClearField("dim_value")
            dim.dim_param = name
    for value in model.graph.output:  # let the types of the outputs be inferred
        value.type.tensor_type.ClearField("shape")
    return model


def _types_by_node(module: ir.Module) -> dict[str, list[TensorT]]:
    """Result types of every graph op, keyed by (ONNX node name, op name)."""
    out: dict[str, list[TensorT]] = {}
    for op in walk(module.operation):
        if op.name.startswith("graph.") and op.name != "graph.constant":
            key = f"{op.location} {op.name}"
            out.setdefault(key, []).extend(tensor_t(r.type) for r in op.results)  # type: ignore[misc]
    return out


def _evaluated(t: TensorT, env: dict[str, int]) -> TensorT:
    return TensorT(tuple(evaluate(d, env) for d in t.shape), t.dtype)


def _agree_at_sizes(model: onnx.ModelProto, sizes: list[dict[str, int]], dims) -> int:  # type: ignore[no-untyped-def]
    """Import symbolically once and statically at each size; the types agree op by op."""
    symbolic, _ = mlc.from_onnx(model, symbolic_dims=True)
    sym_types = _types_by_node(symbolic)
    fn = symbolic.body.operations[0]
    sym_results = [tensor_t(t) for t in fn.type.results]
    assert any(not t.is_static for t in sym_results)  # type: ignore[union-attr]
    compared = 0
    for env in sizes:
        shape_dict = {
            v.name: [
                env[dims[v.name][a]] if a in dims.get(v.name, {}) else d.dim_value
                for a, d in enumerate(v.type.tensor_type.shape.dim)
            ]
            for v in model.graph.input
            if v.name in dims
        }
        static, _ = mlc.from_onnx(model, shape_dict=shape_dict)
        want = [tensor_t(t) for t in static.body.operations[0].type.results]
        assert [_evaluated(t, env) for t in sym_results] == want, env  # type: ignore[arg-type]
        for key, types in _types_by_node(static).items():
            if key in sym_types and len(sym_types[key]) == len(types):
                assert [_evaluated(t, env) for t in sym_types[key]] == types, (key, env)
                compared += 1
    return compared


def test_conv_net_with_symbolic_batch_and_image_size() -> None:
    dims = {"image": {0: "batch", 2: "height", 3: "width"}}
    model = _named(mobilenet_like(), dims)
    sizes = [{"batch": b, "height": h, "width": w} for b, h, w in ((1, 8, 8), (3, 13, 7))]
    assert _agree_at_sizes(model, sizes, dims) >= 10


def test_encoder_layer_with_symbolic_batch_and_sequence() -> None:
    dims = {"hidden": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
    model = _named(encoder_layer(), dims)
    sizes = [{"batch": b, "seq": s} for b, s in ((1, 1), (2, 7), (3, 13))]
    assert _agree_at_sizes(model, sizes, dims) >= 20
    module, _ = mlc.from_onnx(model, symbolic_dims=True)
    text = str(module)
    assert '"graph.range"' in text and 'size = ["seq"]' in text  # position ids of length seq
    assert 'tensor<?x?x16xf32, ["batch", "seq", 16]>' in text


def test_slicing_a_table_to_the_length_records_a_check() -> None:
    """x + table[:, :seq] (position embeddings as BERT exports them) holds for seq <= 32."""
    g = GraphBuilder()
    seq = g.op("Gather", g.op("Shape", "x"), g.constant_node([1]), axis=0)
    table = g.const(np.ones((1, 32, 4)))
    rows = g.op("Slice", table, g.constant_node([0]), seq, g.constant_node([1]))
    g.op("Add", "x", rows)
    g.nodes[-1].output[0] = "y"
    model = make_model(g.nodes, {"x": (np.float32, [2, 5, 4])}, ["y"], g.consts)
    model = _named(model, {"x": {1: "seq"}})
    module, _ = mlc.from_onnx(model, symbolic_dims=True)
    fn = module.body.operations[0]
    assert [ir.StringAttr(c).value for c in fn.attributes["mlc.shape_checks"]] == [
        "min(32, seq) == seq"
    ]
    assert str(fn.type.results[0]) == 'tensor<2x?x4xf32, [2, "seq", 4]>'


def test_unnamed_dims_get_names_and_shared_names_tie_inputs() -> None:
    g = GraphBuilder()
    g.op("Add", "a", "b")
    g.nodes[-1].output[0] = "y"
    model = make_model(g.nodes, {"a": (np.float32, [2, 3]), "b": (np.float32, [2, 3])}, ["y"])
    model.graph.input[0].type.tensor_type.shape.dim[0].ClearField("dim_value")  # no dim_param
    model = _named(model, {"b": {1: "n"}, "a": {1: "n"}})
    module, _ = mlc.from_onnx(model, symbolic_dims=True)
    assert 'tensor<?x?xf32, ["a_0", "n"]>' in str(module.body.operations[0].type)


def test_errors_name_the_node() -> None:
    # a symbolic length cast to float and used as data (1 / sqrt(seq)): not supported yet
    g = GraphBuilder()
    seq = g.op("Gather", g.op("Shape", "x"), g.constant_node(1), axis=0)
    scale = g.op("Sqrt", g.op("Cast", seq, to=onnx.TensorProto.FLOAT))
    g.op("Div", "x", scale)
    g.nodes[-1].output[0] = "y"
    model = _named(make_model(g.nodes, {"x": (np.float32, [2, 5])}, ["y"]), {"x": {1: "seq"}})
    with pytest.raises(UnsupportedOpError, match=r"Cast node '/Cast_\d+'.*symbolic"):
        mlc.from_onnx(model, symbolic_dims=True)
    # CastLike to a float target: the same (its target is a type, not an attribute)
    g = GraphBuilder()
    seq = g.op("Gather", g.op("Shape", "x"), g.constant_node(1), axis=0)
    g.op("Div", "x", g.op("CastLike", seq, g.constant_node(1.0, np.float32)))
    g.nodes[-1].output[0] = "y"
    like = _named(make_model(g.nodes, {"x": (np.float32, [2, 5])}, ["y"]), {"x": {1: "seq"}})
    with pytest.raises(UnsupportedOpError, match=r"CastLike node '/CastLike_\d+'.*non-integer"):
        mlc.from_onnx(like, symbolic_dims=True)
    # without symbolic_dims, the old refusal with the fix
    with pytest.raises(UnsupportedOpError, match="mlc needs static input shapes"):
        mlc.from_onnx(model)


def test_a_symbolic_batch_compiles_once_and_unsupported_lowerings_are_named() -> None:
    from mlc.runtime import GraphModule

    ort = pytest.importorskip("onnxruntime")
    model = _named(mobilenet_like(), {"image": {0: "batch"}})
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    gm = GraphModule(mlc.build(module, params).jit())
    session = ort.InferenceSession(model.SerializeToString())
    for batch in (1, 3, 8):
        x = np.random.default_rng(batch).standard_normal((batch, 3, 16, 16)).astype(np.float32)
        gm.run(image=x)
        (expected,) = session.run(None, {"image": x})
        np.testing.assert_allclose(gm.get_output(0), expected, rtol=1e-4, atol=1e-5)
    scan = onnx.helper.make_node("CumSum", ["x", "axis"], ["y"], name="scan")
    axis = {"axis": np.array(1, np.int64)}
    cumsum = _named(make_model([scan], {"x": (np.float32, [1, 5])}, ["y"], axis), {"x": {1: "seq"}})
    module, params = mlc.from_onnx(cumsum, symbolic_dims=True)
    with pytest.raises(PassFailedError, match=r"scan: error: graph-to-tp: 'graph.cumsum' on sizes"):
        mlc.build(module, params)
