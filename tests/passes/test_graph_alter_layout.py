"""graph-alter-layout: blocked convolutions compute the same numbers, and the layout stays
blocked between them (transforms only where an op needs NCHW)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import func, tensor

import mlc
from mlc.dialects.attrs import param_attr
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.reference import run_module
from mlc.dialects.walk import walk
from mlc.testing import run_compiled


def _t(*shape: int) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), ir.F32Type.get())


def _cnn() -> tuple[ir.Module, dict[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    params: dict[str, np.ndarray] = {}

    def const(name: str, *shape: int, scale: float = 0.3) -> ir.Value:
        params[name] = (rng.standard_normal(shape) * scale).astype(np.float32)
        return gb.constant(param_attr(name), _t(*shape))

    ctx = mlc.Context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("main", ([_t(1, 3, 15, 15)], [_t(1, 10)]))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                x = entry.arguments[0]
                c1 = gb.relu(
                    gb.conv2d(x, const("w1", 16, 3, 3, 3), const("b1", 16), pads=(1, 1, 1, 1))
                )
                p1 = gb.max_pool2d(c1, kernel_shape=(3, 3), strides=(2, 2), ceil_mode=1)
                c2 = gb.conv2d(p1, const("w2", 16, 16, 3, 3), strides=(2, 2), pads=(1, 1, 1, 1))
                scaled = gb.mul(c2, const("s2", 1, 16, 1, 1))
                c3 = gb.conv2d(scaled, const("w3", 8, 16, 1, 1))
                c4 = gb.conv2d(scaled, const("w4", 8, 16, 3, 3), pads=(1, 1, 1, 1))
                cat = tensor.ConcatOp(_t(1, 16, 4, 4), 1, [c3, c4]).result
                res = gb.relu(gb.add(cat, scaled))
                avg = gb.avg_pool2d(res, kernel_shape=(3, 3), pads=(1, 1, 1, 1), strides=(1, 1))
                pooled = gb.flatten(gb.global_avg_pool2d(avg), axis=1)
                y = gb.dense(pooled, const("fc", 10, 16), transB=1)
                func.ReturnOp([y])
    return module, params


def test_blocked_cnn_matches_reference() -> None:
    module, params = _cnn()
    x = np.random.default_rng(1).standard_normal((1, 3, 15, 15)).astype(np.float32)
    (want,) = run_module(module, params, [x])
    staged = ir.Module.parse(str(module), module.context)
    table = dict(params)
    mlc.PassManager.parse(
        "builtin.module(graph-alter-layout{block=8},graph-simplify,graph-fold-constants)"
    ).run(staged, params=table)
    ops = Counter(op.name for op in walk(staged.operation))
    assert ops["graph.conv2d"] == 4
    # Activations change layout twice: into the blocked layout once (3 channels: NCHW3c, then the
    # first conv's output is NCHW8c) and back once before global pooling.
    transforms = [op for op in walk(staged.operation) if op.name == "graph.layout_transform"]
    assert len(transforms) == 2, [str(t) for t in transforms]
    (staged_out,) = run_module(staged, table, [x])
    np.testing.assert_allclose(staged_out, want, rtol=1e-4, atol=1e-5)
    compiled = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(mlc-default)").run(
        compiled, params=(table := dict(params))
    )
    (got,) = run_compiled(compiled, table, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("block", [4, 8, 16])
def test_block_sizes(block: int) -> None:
    module, params = _cnn()
    x = np.random.default_rng(2).standard_normal((1, 3, 15, 15)).astype(np.float32)
    (want,) = run_module(module, params, [x])
    table = dict(params)
    mlc.PassManager.parse(f"builtin.module(mlc-default{{layout-block={block}}})").run(
        module, params=table
    )
    (got,) = run_compiled(module, table, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _grouped_model(groups: int, channels: int) -> tuple[ir.Module, dict[str, np.ndarray]]:
    rng = np.random.default_rng(groups)
    params = {
        "w": (rng.standard_normal((channels, channels // groups, 3, 3)) * 0.3).astype(np.float32),
        "b": rng.standard_normal(channels).astype(np.float32),
        "w2": (rng.standard_normal((channels, channels, 1, 1)) * 0.3).astype(np.float32),
    }
    ctx = mlc.Context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("main", ([_t(1, channels, 10, 10)], [_t(1, channels, 5, 5)]))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                w = gb.constant(param_attr("w"), _t(channels, channels // groups, 3, 3))
                b = gb.constant(param_attr("b"), _t(channels))
                y = gb.relu(
                    gb.conv2d(
                        entry.arguments[0], w, b, group=groups, strides=(2, 2), pads=(1, 1, 1, 1)
                    )
                )
                y = gb.conv2d(y, gb.constant(param_attr("w2"), _t(channels, channels, 1, 1)))
                func.ReturnOp([y])
    return module, params


@pytest.mark.parametrize(
    "groups, channels, kernel_layout",
    [
        (16, 16, "OIHW1i8o"),  # depthwise: one input channel per output channel
        (2, 32, "OIHW8i8o"),  # grouped: 16 channels per group, blocks inside groups
    ],
)
def test_depthwise_and_grouped_convs_run_blocked(
    groups: int, channels: int, kernel_layout: str
) -> None:
    module, params = _grouped_model(groups, channels)
    x = np.random.default_rng(5).standard_normal((1, channels, 10, 10)).astype(np.float32)
    (want,) = run_module(module, params, [x])
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(graph-alter-layout{block=8})").run(staged)
    layouts = [
        str(op.attributes["kernel_layout"])
        for op in walk(staged.operation)
        if op.name == "graph.conv2d"
    ]
    assert layouts[0] == f'"{kernel_layout}"'
    table = dict(params)
    mlc.PassManager.parse("builtin.module(mlc-default)").run(module, params=table)
    (got,) = run_compiled(module, table, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_block_that_does_not_divide_falls_back_to_a_narrower_one() -> None:
    """1000 classes with 16-channel blocks: the conv takes 8-channel blocks instead of staying
    NCHW (a scalar NCHW conv ran 100x slower), and still computes the same numbers."""
    ctx = mlc.Context()
    rng = np.random.default_rng(7)
    params = {"w": (rng.standard_normal((1000, 32, 1, 1)) * 0.2).astype(np.float32)}
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("main", ([_t(1, 32, 5, 5)], [_t(1, 1000, 5, 5)]))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                w = gb.constant(param_attr("w"), _t(1000, 32, 1, 1))
                func.ReturnOp([gb.relu(gb.conv2d(entry.arguments[0], w))])
    x = rng.standard_normal((1, 32, 5, 5)).astype(np.float32)
    (want,) = run_module(module, params, [x])
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(graph-alter-layout{block=16})").run(staged)
    convs = [op for op in walk(staged.operation) if op.name == "graph.conv2d"]
    assert [str(op.attributes["out_layout"]) for op in convs] == ['"NCHW8c"']
    table = dict(params)
    mlc.PassManager.parse("builtin.module(mlc-default{layout-block=16 vector-bits=512})").run(
        module, params=table
    )
    (got,) = run_compiled(module, table, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("vector_bits", [256, 512])
def test_each_tensor_takes_the_widest_block_its_channels_allow(vector_bits: int) -> None:
    """24 channels in 8-channel blocks, 48 in 16: convs read one block width and write another
    (OIHW8i16o), with no transforms between them but the narrowing of the conv to 24
    channels, which runs on 16-channel vectors (32 with zero weights), and compute the same
    numbers."""
    rng = np.random.default_rng(11)
    shapes = {"w1": (48, 24, 1, 1), "w2": (24, 48, 3, 3), "w3": (48, 24, 1, 1)}
    params = {k: (rng.standard_normal(s) * 0.2).astype(np.float32) for k, s in shapes.items()}
    ctx = mlc.Context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("main", ([_t(1, 24, 9, 9)], [_t(1, 48, 9, 9)]))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                y = entry.arguments[0]
                for name, pads in (("w1", 0), ("w2", 1), ("w3", 0)):
                    w = gb.constant(param_attr(name), _t(*shapes[name]))
                    y = gb.relu(gb.conv2d(y, w, pads=(pads,) * 4))
                func.ReturnOp([y])
    x = rng.standard_normal((1, 24, 9, 9)).astype(np.float32)
    (want,) = run_module(module, params, [x])
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(graph-alter-layout{block=16})").run(staged)
    layouts = [
        str(op.attributes["kernel_layout"]).strip('"')
        for op in walk(staged.operation)
        if op.name == "graph.conv2d"
    ]
    assert layouts == ["OIHW8i16o", "OIHW16i16o", "OIHW8i16o"]
    transforms = [op for op in walk(staged.operation) if op.name == "graph.layout_transform"]
    # into the blocked layout, the 16c -> 8c narrowing, and back
    assert [str(op.attributes["dst_layout"]) for op in transforms] == [
        '"NCHW8c"',
        '"NCHW8c"',
        '"NCHW"',
    ]
    table = dict(params)
    pipeline = f"builtin.module(mlc-default{{layout-block=16 vector-bits={vector_bits}}})"
    mlc.PassManager.parse(pipeline).run(module, params=table)
    (got,) = run_compiled(module, table, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("pool", ["global_avg_pool2d", "global_max_pool2d"])
def test_squeeze_excite_stays_blocked(pool: str) -> None:
    """Global pooling of a blocked tensor reduces its H and W in place (no transform of the
    full tensor back to NCHW) and the block computes the same numbers."""
    rng = np.random.default_rng(13)
    params = {
        "w": (rng.standard_normal((32, 16, 3, 3)) * 0.2).astype(np.float32),
        "w2": (rng.standard_normal((32, 32, 1, 1)) * 0.2).astype(np.float32),
    }
    ctx = mlc.Context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("main", ([_t(1, 16, 7, 7)], [_t(1, 32, 7, 7)]))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                w = gb.constant(param_attr("w"), _t(32, 16, 3, 3))
                c = gb.conv2d(entry.arguments[0], w, pads=(1, 1, 1, 1))
                pooled = gb.make(pool, c)
                s = gb.conv2d(pooled, gb.constant(param_attr("w2"), _t(32, 32, 1, 1)))
                func.ReturnOp([gb.mul(c, gb.sigmoid(s))])
    x = rng.standard_normal((1, 16, 7, 7)).astype(np.float32)
    (want,) = run_module(module, params, [x])
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(graph-alter-layout{block=8})").run(staged)
    transforms = [op for op in walk(staged.operation) if op.name == "graph.layout_transform"]
    assert len(transforms) == 2  # the input into NCHW8c, the result back
    table = dict(params)
    mlc.PassManager.parse("builtin.module(mlc-default{layout-block=8})").run(module, params=table)
    (got,) = run_compiled(module, table, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("batch, channels, size", [(1, 58, 14), (2, 12, 7), (1, 20, 3)])
def test_pointwise_conv_without_blocks_runs_on_flat_pixels(
    batch: int, channels: int, size: int
) -> None:
    """No block divides the channels (shufflenet_v2's 58): the 1x1 conv (bias, relu after it)
    runs on H*W pixels as one row and computes the same numbers; the 3x3 conv runs blocked on
    its channels padded with zeros up to the block."""
    rng = np.random.default_rng(channels)
    params = {
        "w": (rng.standard_normal((channels, channels, 1, 1)) * 0.3).astype(np.float32),
        "b": rng.standard_normal(channels).astype(np.float32),
        "w3": (rng.standard_normal((channels, channels, 3, 3)) * 0.1).astype(np.float32),
    }
    shape = (batch, channels, size, size)
    ctx = mlc.Context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("main", ([_t(*shape)], [_t(*shape)]))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                w = gb.constant(param_attr("w"), _t(channels, channels, 1, 1))
                b = gb.constant(param_attr("b"), _t(channels))
                y = gb.relu(gb.conv2d(entry.arguments[0], w, b))
                w3 = gb.constant(param_attr("w3"), _t(channels, channels, 3, 3))
                func.ReturnOp([gb.conv2d(y, w3, pads=(1, 1, 1, 1))])
    x = rng.standard_normal(shape).astype(np.float32)
    (want,) = run_module(module, params, [x])
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(graph-alter-layout{block=8})").run(staged)
    convs = [op for op in walk(staged.operation) if op.name == "graph.conv2d"]
    flat = ir.RankedTensorType(convs[0].results[0].type).shape
    assert flat == [batch, channels, 1, size * size], flat
    padded = -(-channels // 8)
    assert ir.RankedTensorType(convs[1].results[0].type).shape == [batch, padded, size, size, 8]
    mlc.PassManager.parse("builtin.module(mlc-default)").run(module, params=(table := dict(params)))
    (got,) = run_compiled(module, table, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("batch", [1, 2])
def test_wide_pointwise_conv_runs_on_full_blocks_padded(batch: int) -> None:
    """512 -> 1000 channels at 13x13 (squeezenet's classifier, relu and a global pool after it):
    16 does not divide 1000, so blocks would be 8 wide, half an AVX-512 register; the conv runs
    on 16-channel blocks instead, padded with zero weights and bias to 1024 channels (an even
    count of blocks), and the crop of the padding sinks through the relu and the global pool
    (which pools the blocked map). Same numbers as the reference, the relu's map too. A
    40 -> 24 conv keeps its 8-channel blocks."""
    rng = np.random.default_rng(7)
    params = {
        "w": (rng.standard_normal((1000, 512, 1, 1)) * 0.05).astype(np.float32),
        "b": rng.standard_normal(1000).astype(np.float32),
        "n": (rng.standard_normal((24, 40, 1, 1)) * 0.2).astype(np.float32),
    }
    ctx = mlc.Context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp(
                "main",
                (
                    [_t(batch, 512, 13, 13), _t(batch, 40, 6, 6)],
                    [_t(batch, 1000, 1, 1), _t(batch, 1000, 13, 13), _t(batch, 24, 6, 6)],
                ),
            )
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                w = gb.constant(param_attr("w"), _t(1000, 512, 1, 1))
                b = gb.constant(param_attr("b"), _t(1000))
                n = gb.constant(param_attr("n"), _t(24, 40, 1, 1))
                wide = gb.relu(gb.conv2d(entry.arguments[0], w, b))
                pooled = gb.global_avg_pool2d(wide)
                func.ReturnOp([pooled, wide, gb.conv2d(entry.arguments[1], n)])
    x = rng.standard_normal((batch, 512, 13, 13)).astype(np.float32)
    z = rng.standard_normal((batch, 40, 6, 6)).astype(np.float32)
    want = run_module(module, params, [x, z])
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(graph-alter-layout{block=16})").run(staged)
    ops = list(walk(staged.operation))
    convs = [op for op in ops if op.name == "graph.conv2d"]
    assert ir.RankedTensorType(convs[0].results[0].type).shape == [batch, 64, 13, 13, 16]
    assert ir.StringAttr(convs[1].attributes["out_layout"]).value == "NCHW8c"
    (mean,) = [op for op in ops if op.name == "graph.reduce_mean"]
    assert ir.RankedTensorType(mean.operands[0].type).shape == [batch, 64, 13, 13, 16]
    assert not [op for op in ops if op.name == "graph.global_avg_pool2d"]
    mlc.PassManager.parse("builtin.module(mlc-default)").run(module, params=(table := dict(params)))
    got = run_compiled(module, table, [x, z])
    for g_, w_ in zip(got, want, strict=True):
        np.testing.assert_allclose(g_, w_, rtol=1e-4, atol=1e-4)


def _int_conv(x: np.ndarray, w: np.ndarray, pad_value: int, pad: int, stride: int) -> np.ndarray:
    xp = np.pad(
        x.astype(np.int64), ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=pad_value
    )
    o, _, kh, kw = w.shape
    oh, ow = (xp.shape[2] - kh) // stride + 1, (xp.shape[3] - kw) // stride + 1
    y = np.zeros((1, o, oh, ow), np.int64)
    for i, j in np.ndindex(oh, ow):
        window = xp[0, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
        y[0, :, i, j] = np.tensordot(w.astype(np.int64), window, axes=3)
    return y.astype(np.int32)


def test_int8_rgb_stem_runs_on_dot4_words_exactly() -> None:
    """A uint8 x int8 7x7 stride-2 conv on 3 channels (ResNet-50's stem, quantized): with
    int8-dot its input gets a fourth channel and its weights zeros there, so it packs as
    OIHW1i16o4i; compiled by mlc-default (the host's vpdpbusd / vpmaddwd / expanded dot4)
    it equals numpy's integer conv, whatever the padded channel holds."""
    rng = np.random.default_rng(3)
    params = {"w": rng.integers(-128, 128, (16, 3, 7, 7)).astype(np.int8)}
    x = rng.integers(0, 256, (1, 3, 20, 20)).astype(np.uint8)
    x[0, :, 0, :3] = 255
    params["w"][0, :, :2, :2] = -128
    ctx = mlc.Context()
    with ctx, ir.Location.unknown():
        i8, u8 = ir.IntegerType.get_signless(8), ir.IntegerType.get_unsigned(8)
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            x_t = ir.RankedTensorType.get([1, 3, 20, 20], u8)
            y_t = ir.RankedTensorType.get([1, 16, 10, 10], ir.IntegerType.get_signless(32))
            f = func.FuncOp("main", ([x_t], [y_t]))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                w = gb.constant(param_attr("w"), ir.RankedTensorType.get([16, 3, 7, 7], i8))
                y = gb.conv2d_integer(
                    entry.arguments[0], w, pads=(3, 3, 3, 3), strides=(2, 2), pad_value=9
                )
                func.ReturnOp([y])
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(graph-alter-layout{block=16 int8-dot=true})").run(
        staged, params=dict(params)
    )
    convs = [op for op in walk(staged.operation) if op.name == "graph.conv2d_integer"]
    assert [str(op.attributes["kernel_layout"]) for op in convs] == ['"OIHW1i16o4i"']
    table = dict(params)
    mlc.PassManager.parse("builtin.module(mlc-default{layout-block=16})").run(module, params=table)
    (got,) = run_compiled(module, table, [x])
    np.testing.assert_array_equal(got, _int_conv(x, params["w"], 9, 3, 2))


def test_int8_conv_with_a_narrow_output_block_runs_padded_to_a_full_one() -> None:
    """A uint8 x int8 conv to 24 channels (only 8 divides them, like squeezenet's 1000 classes)
    runs on 32 channels of 16-lane blocks, zero weights for the last 8; the bias add and the
    requantization after it run on the padded channels (their per-channel constants padded)
    and the output is cropped: equal to numpy's integer conv, requantized."""
    rng = np.random.default_rng(4)
    params = {
        "w": rng.integers(-128, 128, (24, 32, 1, 1)).astype(np.int8),
        "b": rng.integers(-3000, 3000, (24, 1, 1)).astype(np.int32),
        "m": (rng.random((24, 1, 1)) * 2e-4).astype(np.float32),
    }
    x = rng.integers(0, 256, (1, 32, 5, 5)).astype(np.uint8)
    ctx = mlc.Context()
    with ctx, ir.Location.unknown():
        i8, u8 = ir.IntegerType.get_signless(8), ir.IntegerType.get_unsigned(8)
        i32 = ir.IntegerType.get_signless(32)
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            x_t = ir.RankedTensorType.get([1, 32, 5, 5], u8)
            f = func.FuncOp("main", ([x_t], [ir.RankedTensorType.get([1, 24, 5, 5], u8)]))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                w = gb.constant(param_attr("w"), ir.RankedTensorType.get([24, 32, 1, 1], i8))
                b = gb.constant(param_attr("b"), ir.RankedTensorType.get([24, 1, 1], i32))
                m = gb.constant(param_attr("m"), _t(24, 1, 1))
                zp_t = ir.RankedTensorType.get([], u8)
                zp = gb.constant(
                    ir.DenseElementsAttr.get_splat(zp_t, ir.IntegerAttr.get(u8, 7)), zp_t
                )
                acc = gb.add(gb.conv2d_integer(entry.arguments[0], w, pad_value=0), b)
                func.ReturnOp([gb.requantize(acc, m, zp)])
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(graph-alter-layout{block=16 int8-dot=true})").run(
        staged, params=dict(params)
    )
    convs = [op for op in walk(staged.operation) if op.name == "graph.conv2d_integer"]
    assert [str(op.attributes["kernel_layout"]) for op in convs] == ['"OIHW4i16o4i"']
    table = dict(params)
    mlc.PassManager.parse("builtin.module(mlc-default{layout-block=16})").run(module, params=table)
    (got,) = run_compiled(module, table, [x])
    acc64 = _int_conv(x, params["w"], 0, 0, 1).astype(np.int64) + params["b"]
    want = np.clip(np.rint(acc64 * params["m"].astype(np.float64)) + 7, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("batch", [1, 2])
def test_narrow_output_convs_compute_on_full_vectors(batch: int) -> None:
    """Convs to 24 and 40 channels (only 8 divides them) with 16-channel blocks: each computes
    a multiple of 16 channels (zero weights and bias for the rest) and narrows its output to
    8-channel blocks, the padding cut off (a residual add and relu follow). A conv on one
    pixel (a squeeze-excite) keeps 8 lanes, as does a conv with few multiply-adds per output
    (24 -> 40, 1x1: NARROW_MIN_REDUCTION). The numbers match the reference."""
    rng = np.random.default_rng(5)
    shapes = {
        "p": (24, 96, 1, 1),
        "e": (40, 24, 3, 3),
        "s": (24, 40, 1, 1),
        "q": (40, 40, 1, 1),
    }
    params = {k: (rng.standard_normal(s) * 0.2).astype(np.float32) for k, s in shapes.items()}
    params["pb"] = rng.standard_normal(24).astype(np.float32)
    params["eb"] = rng.standard_normal(40).astype(np.float32)
    ctx = mlc.Context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp(
                "main",
                ([_t(batch, 96, 10, 10), _t(batch, 24, 10, 10)], [_t(batch, 40, 10, 10)]),
            )
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                x, r = entry.arguments

                def c(name: str) -> ir.Value:
                    return gb.constant(param_attr(name), _t(*params[name].shape))

                y = gb.relu(gb.add(gb.conv2d(x, c("p"), c("pb")), r))
                z = gb.relu(gb.conv2d(y, c("e"), c("eb"), pads=(1, 1, 1, 1)))
                z = gb.relu(gb.conv2d(z, c("q")))
                se = gb.sigmoid(gb.conv2d(gb.global_avg_pool2d(z), c("s")))
                func.ReturnOp([gb.add(z, gb.reduce_mean(se, axes=(1,), keepdims=1))])
    x = rng.standard_normal((batch, 96, 10, 10)).astype(np.float32)
    r = rng.standard_normal((batch, 24, 10, 10)).astype(np.float32)
    (want,) = run_module(module, params, [x, r])
    staged = ir.Module.parse(str(module), module.context)
    mlc.PassManager.parse("builtin.module(graph-alter-layout{block=16})").run(staged)
    outs = [
        tuple(ir.RankedTensorType(op.results[0].type).shape)
        for op in walk(staged.operation)
        if op.name == "graph.conv2d"
    ]
    assert outs == [
        (batch, 2, 10, 10, 16),
        (batch, 3, 10, 10, 16),
        (batch, 5, 10, 10, 8),
        (batch, 3, 1, 1, 8),
    ]
    narrowed = [
        tuple(ir.RankedTensorType(op.results[0].type).shape)
        for op in walk(staged.operation)
        if op.name == "graph.pad" and ir.RankedTensorType(op.results[0].type).rank == 5
    ]
    assert narrowed == [(batch, 3, 10, 10, 8), (batch, 5, 10, 10, 8)]
    table = dict(params)
    pipeline = "builtin.module(mlc-default{layout-block=16 vector-bits=512})"
    mlc.PassManager.parse(pipeline).run(module, params=table)
    (got,) = run_compiled(module, table, [x, r])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
