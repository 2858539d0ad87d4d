"""graph dialect: builders infer result types with the shape rules; bad input is rejected."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import func

from mlc.dialects.attrs import param_attr, param_name, tensor_t
from mlc.dialects.graph import OPS, ShapeError, TensorT
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.irdl import graph_irdl
from mlc.dialects.graph.verify import check_op


def _t(*shape: int, dtype: str = "f32") -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), ir.Type.parse(dtype))


def _build(ctx: ir.Context, shapes: list[tuple[int, ...]], body):  # type: ignore[no-untyped-def]
    with ctx, ir.Location.unknown():
        arg_types = [_t(*s) for s in shapes]
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("f", (arg_types, []))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                result = body(*entry.arguments)
                func.ReturnOp([])
        return module, result


@pytest.mark.parametrize(
    "args, build, expected",
    [
        (
            [(1, 3, 224, 224), (64, 3, 7, 7)],
            lambda x, w: gb.conv2d(x, w, strides=(2, 2), pads=(3, 3, 3, 3)),
            (1, 64, 112, 112),
        ),
        (
            [(1, 32, 56, 56), (32, 1, 3, 3)],
            lambda x, w: gb.conv2d(x, w, group=32, pads=(1, 1, 1, 1)),
            (1, 32, 56, 56),
        ),
        (
            [(1, 8, 10, 10), (8, 8, 3, 3)],
            lambda x, w: gb.conv2d(x, w, dilations=(2, 2)),
            (1, 8, 6, 6),
        ),
        (
            [(1, 16, 8, 8), (32, 16, 1, 1)],
            lambda x, w: gb.conv2d(x, w, out_layout="NCHW8c"),
            (1, 4, 8, 8, 8),
        ),
        ([(2, 3, 4), (4, 5)], lambda a, b: gb.matmul(a, b), (2, 3, 5)),
        ([(4,), (4, 5)], lambda a, b: gb.matmul(a, b), (5,)),
        ([(2, 1, 3, 4), (5, 4, 6)], lambda a, b: gb.matmul(a, b), (2, 5, 3, 6)),
        ([(4, 3), (5, 4)], lambda a, b: gb.dense(a, b, transA=1, transB=1), (3, 5)),
        (
            [(1, 64, 112, 112)],
            lambda x: gb.max_pool2d(x, kernel_shape=(3, 3), strides=(2, 2), pads=(1, 1, 1, 1)),
            (1, 64, 56, 56),
        ),
        (
            [(1, 1, 5, 5)],
            lambda x: gb.max_pool2d(x, kernel_shape=(2, 2), strides=(2, 2), ceil_mode=1),
            (1, 1, 3, 3),
        ),
        (
            [(1, 1, 4, 4)],
            lambda x: gb.avg_pool2d(
                x, kernel_shape=(3, 3), strides=(2, 2), pads=(1, 1, 1, 1), ceil_mode=1
            ),
            (1, 1, 3, 3),
        ),
        ([(2, 8, 7, 7)], lambda x: gb.global_avg_pool2d(x), (2, 8, 1, 1)),
        ([(2, 3, 4)], lambda x: gb.reduce_mean(x, axes=(1, 2), keepdims=0), (2,)),
        ([(2, 3, 4)], lambda x: gb.transpose(x, perm=(2, 0, 1)), (4, 2, 3)),
        (
            [(2, 10)],
            lambda x: gb.slice(x, starts=(-1, 8), ends=(100, -100), axes=(0, 1), steps=(1, -3)),
            (1, 3),
        ),
        ([(2, 3)], lambda x: gb.pad(x, pads=(1, 0, 0, 2)), (3, 5)),
        ([(2, 3, 4)], lambda x: gb.flatten(x, axis=0), (1, 24)),
        ([(3, 1)], lambda x: gb.expand(x, shape=(2, 1, 4)), (2, 3, 4)),
        (
            [(1, 16, 4, 4)],
            lambda x: gb.layout_transform(x, src_layout="NCHW", dst_layout="NCHW8c"),
            (1, 2, 4, 4, 8),
        ),
        ([(2, 3)], lambda x: gb.unsqueeze(x, axes=(-1, 0)), (1, 2, 3, 1)),
    ],
)
def test_builders_infer_result_types(
    ctx: ir.Context, args: list[tuple[int, ...]], build, expected: tuple[int, ...]
) -> None:  # type: ignore[no-untyped-def]
    module, value = _build(ctx, args, build)
    assert tuple(ir.RankedTensorType(value.type).shape) == expected
    assert module.operation.verify()
    assert check_op(value.owner) is None


@pytest.mark.parametrize(
    "args, build, message",
    [
        (
            [(1, 3, 8, 8), (8, 4, 3, 3)],
            lambda x, w: gb.conv2d(x, w),
            "weight expects 4 input channels",
        ),
        (
            [(1, 4, 8, 8), (8, 4, 3, 3)],
            lambda x, w: gb.conv2d(x, w, group=3),
            "group 3 must divide",
        ),
        ([(2, 3), (4, 5)], lambda a, b: gb.matmul(a, b), "contracting dims differ"),
        ([(2, 3), (3, 2)], lambda a, b: gb.add(a, b), "not broadcast-compatible"),
        ([(2, 3)], lambda x: gb.softmax(x, axis=5), "axis 5 is out of range"),
        ([(2, 3)], lambda x: gb.reshape(x, shape=(5,)), "cannot reshape"),
        ([(2, 3)], lambda x: gb.squeeze(x, axes=(0,)), "cannot squeeze axis 0 of size 2"),
        ([(2, 3)], lambda x: gb.pad(x, pads=(1, 1)), "pads needs 4 values"),
        ([(2, 3)], lambda x: gb.pad(x, pads=(0, 0, 0, 0), mode="wrap"), "mode 'wrap'"),
        (
            [(1, 6, 4, 4)],
            lambda x: gb.layout_transform(x, src_layout="NCHW", dst_layout="NCHW4c"),
            "not divisible",
        ),
    ],
)
def test_shape_rule_violations(
    ctx: ir.Context, args: list[tuple[int, ...]], build, message: str
) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ShapeError, match=message):
        _build(ctx, args, build)


def test_builder_rejects_unknown_and_missing_attributes(ctx: ir.Context) -> None:
    with pytest.raises(ValueError, match="has no attribute"):
        _build(ctx, [(2,)], lambda x: gb.relu(x, alpha=1.0))
    with pytest.raises(ValueError, match="needs attribute 'kernel_shape'"):
        _build(ctx, [(1, 1, 4, 4)], lambda x: gb.max_pool2d(x))
    with pytest.raises(ValueError, match="takes operands"):
        _build(ctx, [(2,)], lambda x: gb.add(x))


def test_constant_param_and_literal(ctx: ir.Context) -> None:
    with ctx:
        attr = param_attr('we"ird\\name')
        assert param_name(attr) == 'we"ird\\name'
    module, value = _build(ctx, [], lambda: gb.constant(param_attr("w"), TensorT((2, 2), "f32")))
    assert check_op(value.owner) is None
    with ctx:
        dense = ir.DenseElementsAttr.get(np.arange(3, dtype=np.float32))
    module, value = _build(ctx, [], lambda: gb.constant(dense, _t(3)))
    assert tensor_t(value.type) == TensorT((3,), "f32")
    _, bad = _build(ctx, [], lambda: gb.constant(dense, _t(4)))
    assert "value has type tensor<3xf32> but the result is tensor<4xf32>" in (
        check_op(bad.owner) or ""
    )


def test_every_op_has_builder_summary_and_irdl() -> None:
    text = graph_irdl()
    for name, spec in OPS.items():
        assert spec.summary.endswith("."), name
        assert f"irdl.operation @{name} " in text
        if name != "constant":
            builder = getattr(gb, name if name not in ("and", "or", "not") else name + "_")
            assert spec.summary in (builder.__doc__ or "")


def test_compare_and_cast_dtypes(ctx: ir.Context) -> None:
    _, eq = _build(ctx, [(2, 3), (3,)], lambda a, b: gb.equal(a, b))
    assert str(ir.RankedTensorType(eq.type).element_type) == "i1"
    _, c = _build(ctx, [(2,)], lambda a: gb.cast(a, to="i64"))
    assert str(c.type) == "tensor<2xi64>"
