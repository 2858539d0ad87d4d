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
    # x[:, ::-2] starts at seq - 1: a strided slice from a run-time start is not lowered yet
    every_other = onnx.helper.make_node("Slice", ["x", "st", "en", "ax", "step"], ["y"], name="sl")
    ends = {k: np.array([v], np.int64) for k, v in (("st", -1), ("en", -(2**62)), ("ax", 1))}
    ends["step"] = np.array([-2], np.int64)
    sliced = make_model([every_other], {"x": (np.float32, [1, 5])}, ["y"], ends)
    module, params = mlc.from_onnx(_named(sliced, {"x": {1: "seq"}}), symbolic_dims=True)
    with pytest.raises(PassFailedError, match=r"sl: error: graph-to-tp: 'graph.slice' on sizes"):
        mlc.build(module, params)


def _position_table(rows: int, start: int = 0, step: int = 1, offset: int = 0) -> onnx.ModelProto:
    """x + table[offset + arange(start, start + step * seq, step)] (GPT-2's
    `wpe(position_ids)`, BART's with an offset of 2): a Gather of table rows indexed by a Range
    over the run-time length."""
    g = GraphBuilder()
    seq = g.op("Gather", g.op("Shape", "x"), g.constant_node(1), axis=0)
    limit = g.op("Add", g.op("Mul", seq, g.constant_node(step)), g.constant_node(start))
    pos = g.op("Range", g.constant_node(start), limit, g.constant_node(step))
    pos = g.op("Unsqueeze", pos, g.constant_node([0]))
    if offset:
        pos = g.op("Add", g.constant_node(offset), pos)
    rows_of = g.op("Gather", g.const(np.arange(rows * 4).reshape(rows, 4)), pos, axis=0)
    g.nodes[-1].name = "wpe"
    g.op("Add", "x", rows_of)
    g.nodes[-1].output[0] = "y"
    model = make_model(g.nodes, {"x": (np.float32, [2, 5, 4])}, ["y"], g.consts)
    return _named(model, {"x": {0: "batch", 1: "seq"}})


def _checks(module: ir.Module) -> list[str]:
    fn = module.body.operations[0]
    if "mlc.shape_checks" not in fn.attributes:
        return []
    return [ir.StringAttr(c).value for c in fn.attributes["mlc.shape_checks"]]


def test_position_rows_past_the_table_are_a_shape_check_naming_the_dim() -> None:
    from mlc.runtime import GraphModule
    from mlc.runtime.shapes import ShapeError

    module, params = mlc.from_onnx(_position_table(16), symbolic_dims=True)
    assert _checks(module) == ["min(16, seq) == seq"]
    gm = GraphModule(mlc.build(module, params).jit())
    table = np.arange(64, dtype=np.float32).reshape(16, 4)
    for seq in (1, 7, 16):
        x = np.ones((2, seq, 4), np.float32)
        gm.run(x=x)
        np.testing.assert_array_equal(gm.get_output(0), x + table[:seq])
    with pytest.raises(ShapeError, match=r"'min\(16, seq\) == seq' \(16 != 17 with seq = 17\)"):
        gm.run(x=np.ones((2, 17, 4), np.float32))
    # rows 3, 5, 7, ...: seq <= 7 fit 16 rows; 2 + 3, 2 + 5, ...: seq <= 6
    module, _ = mlc.from_onnx(_position_table(16, start=3, step=2), symbolic_dims=True)
    assert _checks(module) == ["min(7, seq) == seq"]
    module, _ = mlc.from_onnx(_position_table(16, start=3, step=2, offset=2), symbolic_dims=True)
    assert _checks(module) == ["min(6, seq) == seq"]


def test_position_rows_within_bounds_need_no_check_and_beyond_them_fail_at_import() -> None:
    model = _position_table(16)
    module, _ = mlc.from_onnx(model, shape_dict={"x": ["1..4", "1..16", 4]})
    assert _checks(module) == []
    with pytest.raises(
        UnsupportedOpError,
        match=r"wpe.*reach seq - 1, past the 16 rows of the table, for every admissible seq",
    ):
        mlc.from_onnx(model, shape_dict={"x": ["1..4", "17..64", 4]})


def test_constant_of_a_run_time_shape_is_an_expand() -> None:
    g = GraphBuilder()
    fill = onnx.numpy_helper.from_array(np.array([2.5], np.float32))
    g.op("Mul", "x", g.op("ConstantOfShape", g.op("Shape", "x"), value=fill))
    g.nodes[-1].output[0] = "y"
    model = make_model(g.nodes, {"x": (np.float32, [2, 5])}, ["y"])
    module, params = mlc.from_onnx(_named(model, {"x": {0: "batch", 1: "seq"}}), symbolic_dims=True)
    assert '"graph.expand"' in str(module)
    from mlc.runtime import GraphModule

    gm = GraphModule(mlc.build(module, params).jit())
    for shape in ((1, 1), (3, 7)):
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        gm.run(x=x)
        np.testing.assert_array_equal(gm.get_output(0), 2.5 * x)


def test_positions_counted_from_the_mask_are_bounded_by_the_table() -> None:
    """RoBERTa's position ids, cumsum(ids != pad) * (ids != pad) + pad, index a table of 20
    rows: they reach seq + 1, so seq <= 18 is a shape check, checked before each run."""
    from mlc.runtime import GraphModule
    from mlc.runtime.shapes import ShapeError

    i32, i64 = onnx.TensorProto.INT32, onnx.TensorProto.INT64
    g = GraphBuilder()
    pad = g.constant_node(1)
    mask = g.op("Cast", g.op("Not", g.op("Equal", "ids", pad)), to=i32)
    count = g.op("Mul", g.op("CumSum", mask, g.constant_node(1)), mask)
    pos = g.op("Add", g.op("Cast", count, to=i64), pad)
    table = np.arange(80, dtype=np.float32).reshape(20, 4)
    g.op("Gather", g.const(table), pos, axis=0)
    g.nodes[-1].output[0] = "y"
    model = make_model(g.nodes, {"ids": (np.int64, [2, 5])}, ["y"], g.consts)
    module, params = mlc.from_onnx(
        _named(model, {"ids": {0: "batch", 1: "seq"}}), symbolic_dims=True
    )
    assert _checks(module) == ["min(18, seq) == seq"]
    gm = GraphModule(mlc.build(module, params).jit())
    ids = np.array([[5, 7, 1, 9] + [3] * 14, [1] * 18], np.int64)
    gm.run(ids=ids)
    keep = (ids != 1).astype(np.int64)
    np.testing.assert_array_equal(gm.get_output(0), table[np.cumsum(keep, 1) * keep + 1])
    with pytest.raises(ShapeError, match=r"'min\(18, seq\) == seq' \(18 != 19 with seq = 19\)"):
        gm.run(ids=np.full((1, 19), 4, np.int64))
