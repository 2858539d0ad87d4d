"""The new anchors under tp-default-schedule (what `mlc-default` compiles with): vectorized
output axes, register-tiled reductions, per-lane computed indices (gather, pad) and bool bytes
in vectors. Shapes are chosen so that the schedules vectorize; the tp text checks that they do."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import tensor

from helpers.graph_exec import SCHEDULED, build_main, check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g
from mlc.dialects.tp import BlockView
from mlc.dialects.walk import walk

TP_SCHEDULED = "builtin.module(graph-fuse,graph-to-tp,tp-default-schedule)"
# convolutions in NCHW8c, as mlc-default runs them
BLOCKED = "builtin.module(graph-alter-layout{block=8},"
BLOCKED_TP = TP_SCHEDULED.replace("builtin.module(", BLOCKED, 1)
BLOCKED_SCHEDULED = SCHEDULED.replace("builtin.module(", BLOCKED, 1)


def _vectorized_blocks(body: object, inputs: list[np.ndarray]) -> list[str]:
    text = lower_to_tp(body, inputs, TP_SCHEDULED)  # type: ignore[arg-type]
    return [
        part.split('"')[0]
        for part in text.split('name = "')[1:]
        if 'vectorize = "' in part.split("}}")[0]
    ]


def test_reductions_scheduled() -> None:
    x = rand((4, 16), seed=1)
    xi = rand((4, 16), "int64", seed=2) % 5

    def body(v: ir.Value, w: ir.Value) -> list[ir.Value]:
        return [
            g.reduce_sum(v, axes=(0,), keepdims=0),
            g.reduce_max(v, axes=(1,), keepdims=1),
            g.argmax(w, axis=0, keepdims=0, select_last_index=1),
            g.argmin(v, axis=1, keepdims=0),
        ]

    got, ref = run_graph(body, [x, xi], pipeline=SCHEDULED)
    check(got[0], ref[0], x.sum(axis=0), rtol=1e-5, atol=1e-5, what="reduce_sum")
    check(got[1], ref[1], x.max(axis=1, keepdims=True), rtol=0, atol=0, what="reduce_max")
    check(got[2], ref[2], 3 - np.argmax(xi[::-1], axis=0), what="argmax last")
    check(got[3], ref[3], np.argmin(x, axis=1), what="argmin")
    assert any(n.startswith("reduce_sum") for n in _vectorized_blocks(body, [x, xi]))


def test_normalizations_scheduled() -> None:
    x = rand((3, 16), seed=3, scale=5.0)
    scale, bias = rand((16,), seed=4), rand((16,), seed=5)
    got, ref = run_graph(
        lambda v, s, b: [g.softmax(v, axis=0), g.layer_norm(v, s, b, axis=1)],
        [x, scale, bias],
        pipeline=SCHEDULED,
    )
    e = np.exp(x - x.max(axis=0))
    check(got[0], ref[0], e / e.sum(axis=0), rtol=1e-5, atol=1e-7, what="softmax")
    mu = x.mean(axis=1, keepdims=True)
    ln = (x - mu) / np.sqrt(
        ((x - mu) ** 2).mean(axis=1, keepdims=True) + np.float32(1e-5)
    ) * scale + bias
    check(got[1], ref[1], ln, rtol=1e-4, atol=1e-5, what="layer_norm")


def test_gather_pad_concat_scheduled() -> None:
    """Computed indices per vector lane: gather rows, reflect/edge columns, concat slices."""
    table = rand((10, 16), seed=6)
    ids = np.array([[9, -1, 0, 4]], np.int64)
    x = rand((2, 12), seed=7)

    def body(t: ir.Value, i: ir.Value, v: ir.Value) -> list[ir.Value]:
        cat = tensor.ConcatOp(
            ir.RankedTensorType.get([2, 32], ir.F32Type.get()),
            1,
            [g.pad(v, pads=(0, 2, 0, 2), mode="reflect"), g.pad(v, pads=(0, 3, 0, 1), mode="edge")],
        )
        return [g.gather(t, i, axis=0), cat.result]

    got, ref = run_graph(body, [table, ids, x], pipeline=SCHEDULED)
    check(got[0], ref[0], table[ids % 10], rtol=0, atol=0, what="gather")
    expected = np.concatenate(
        [np.pad(x, ((0, 0), (2, 2)), mode="reflect"), np.pad(x, ((0, 0), (3, 1)), mode="edge")],
        axis=1,
    )
    check(got[1], ref[1], expected, rtol=0, atol=0, what="pad + concat")
    vectorized = _vectorized_blocks(body, [table, ids, x])
    assert any(n.startswith("gather") for n in vectorized), vectorized
    assert any(n.startswith("pad_reflect") for n in vectorized), vectorized


def test_bool_bytes_in_vectors() -> None:
    """i8 storage of bools with 32 lanes: where on a bool mask and a bool concat."""
    m = rand((2, 32), seed=8) > 0
    a, b = rand((2, 32), seed=9), rand((2, 32), seed=10)

    def body(c: ir.Value, x: ir.Value, y: ir.Value) -> list[ir.Value]:
        both = tensor.ConcatOp(
            ir.RankedTensorType.get([4, 32], ir.IntegerType.get_signless(1)),
            0,
            [c, g.greater(x, y)],
        )
        return [g.where(c, x, y), both.result, g.reduce_max(both.result, axes=(0,), keepdims=0)]

    got, ref = run_graph(body, [m, a, b], pipeline=SCHEDULED)
    check(got[0], ref[0], np.where(m, a, b), rtol=0, atol=0, what="where")
    both = np.concatenate([m, a > b], axis=0)
    check(got[1], ref[1], both, what="bool concat")
    check(got[2], ref[2], both.any(axis=0), what="bool reduce_max")


@pytest.mark.parametrize("threads", [1, 2])
def test_streaming_matrix_vector_product(threads: int) -> None:
    """A 1 x 1024 @ 1024 x 1000 product (a 4 MiB matrix) gets the streaming schedule (k outer,
    output updated in memory; 2 threads: column slices) and still matches numpy."""
    import mlc
    from mlc.runtime import GraphModule

    x, w = rand((1, 1024), seed=8), rand((1024, 1000), seed=9)
    text = lower_to_tp(
        lambda a, b: g.relu(g.matmul(a, b)),
        [x, w],
        f"builtin.module(graph-fuse,graph-to-tp,tp-default-schedule{{threads={threads}}})",
    )
    assert (
        '"k", "s1.1", "s1.2"], parallel = ["s1.0"]' if threads == 2 else '"k", "s1.0", "s1.1"]'
    ) in text, text
    with mlc.Context(), ir.Location.unknown():
        module = build_main(lambda a, b: g.relu(g.matmul(a, b)), [x, w], None)
        gm = GraphModule(mlc.build(module, {}, threads=threads).jit())
    gm.set_input(0, x)
    gm.set_input(1, w)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0), np.maximum(x @ w, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("bits", [256, 512])
@pytest.mark.parametrize("threads", [1, 2])
def test_products_whose_sizes_the_tiles_do_not_divide(threads: int, bits: int) -> None:
    """Attention-sized products (197 tokens, 6 heads) and a dense layer with 197 rows: partial
    row tiles and peeled vector tails on real threads, for AVX2- and AVX-512-sized tiles."""
    import mlc
    from mlc.runtime import GraphModule

    q, k, v = rand((6, 197, 64), seed=1), rand((6, 64, 197), seed=2), rand((6, 197, 64), seed=3)
    x, w = rand((197, 96), seed=4), rand((96, 200), seed=5)

    def body(q: ir.Value, k: ir.Value, v: ir.Value, x: ir.Value, w: ir.Value) -> list[ir.Value]:
        scores = g.batch_matmul(q, k)
        return [g.batch_matmul(scores, v), g.matmul(x, w)]

    pipeline = f"builtin.module(mlc-default{{threads={threads} vector-bits={bits}}})"
    with mlc.Context(), ir.Location.unknown():
        module = build_main(body, [q, k, v, x, w], None)
        gm = GraphModule(mlc.build(module, {}, pipeline=pipeline).jit())
    for i, a in enumerate((q, k, v, x, w)):
        gm.set_input(i, a)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0), (q @ k) @ v, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(gm.get_output(1), x @ w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("width", [19, 23])
def test_conv_with_a_prime_row_width(width: int) -> None:
    """No register tile divides the row of a blocked (NCHW8c) conv: its partial last tile,
    with the bias / relu epilogue."""
    x, w, b = (
        rand((1, 16, width + 2, width + 2), seed=6),
        rand((16, 16, 3, 3), seed=7),
        rand((16,), seed=8),
    )

    def body(v: ir.Value, w_: ir.Value, b_: ir.Value) -> ir.Value:
        return g.relu(g.conv2d(v, w_, b_))

    assert f"x{width}x8xf32>" in lower_to_tp(body, [x, w, b], BLOCKED_TP)  # blocked: NCHW8c
    got, ref = run_graph(body, [x, w, b], pipeline=BLOCKED_SCHEDULED)
    xp = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3))  # [1, C, H, W, 3, 3]
    want = np.einsum("nchwij,ocij->nohw", xp, w) + b[None, :, None, None]
    check(got[0], ref[0], np.maximum(want, 0).astype(np.float32), rtol=1e-4, atol=1e-4)


def _scheduled_on(threads: int) -> str:
    return f"builtin.module(graph-fuse,graph-to-tp,tp-default-schedule{{threads={threads}}})"


def _compiled_on(threads: int) -> str:
    return SCHEDULED.replace("tp-to-loops", f"tp-to-loops{{threads={threads}}}")


def _blocked_conv_relu(a: ir.Value, b: ir.Value) -> list[ir.Value]:
    conv = g.conv2d(a, b, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
    return [g.relu(conv)]


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_of_images_goes_first(threads: int) -> None:
    """A blocked 1x1 conv on 3 images whose weights are smaller than one image: the image loop
    is the outermost (each image's input streams once per column block) and the numbers match
    the reference, with a relu fused, on 1 and 2 threads."""
    x = rand((3, 4, 12, 12, 16), seed=11)
    w = rand((4, 4, 1, 1, 16, 16), seed=12)

    text = lower_to_tp(_blocked_conv_relu, [x, w], _scheduled_on(threads))
    assert 'order = ["n", "ocb' in text, text
    got, ref = run_graph(_blocked_conv_relu, [x, w], pipeline=_compiled_on(threads))
    check(got[0], ref[0], ref[0], rtol=1e-4, atol=1e-4, what="batched conv")


@pytest.mark.parametrize("threads", [1, 2])
def test_batched_matrix_vector_products(threads: int) -> None:
    """[T, M, K] x [T, K, 1] (a mixture of experts' routed tokens) and [M, K] x [K, 1]: the
    vector's trailing unit dim leaves it contiguous along k, so both run as row reductions
    (vectors along k, one contiguous load per read) and match numpy, odd sizes included."""
    a, b = rand((5, 37, 203), seed=13), rand((5, 203, 1), seed=14)
    m, v = rand((19, 96), seed=15), rand((96, 1), seed=16)

    def body(a_: ir.Value, b_: ir.Value, m_: ir.Value, v_: ir.Value) -> list[ir.Value]:
        return [g.batch_matmul(a_, b_), g.relu(g.matmul(m_, v_))]

    text = lower_to_tp(body, [a, b, m, v], _scheduled_on(threads))
    assert text.count('vectorize = "k.1"') == 2, text
    pipeline = _compiled_on(threads)
    got, ref = run_graph(body, [a, b, m, v], pipeline=pipeline)
    check(got[0], ref[0], a @ b, rtol=1e-4, atol=1e-4, what="batched matvec")
    check(got[1], ref[1], np.maximum(m @ v, 0), rtol=1e-4, atol=1e-4, what="matvec relu")
    loops = lower_to_tp(body, [a, b, m, v], pipeline.split(",func.func")[0] + ")")
    assert "memref.collapse_shape" in loops and "vector.gather" not in loops


@pytest.mark.parametrize("threads", [1, 2])
def test_rows_first_when_the_input_outgrows_the_caches(threads: int) -> None:
    """A blocked 1x1 conv whose input (5 MiB) is larger than what the caches keep between
    column blocks and whose weights are small: the pixel rows go outside the column blocks (the
    input is read once), the tuner's space reproduces that order, and the numbers match."""
    import mlc
    from mlc.target import host_target
    from mlc.tuner.facts import BlockFacts
    from mlc.tuner.templates import block_space

    x = rand((1, 20, 64, 64, 16), seed=13)
    w = rand((4, 20, 1, 1, 16, 16), seed=14)

    with mlc.Context(), ir.Location.unknown():
        module = build_main(_blocked_conv_relu, [x, w])
        mlc.PassManager.parse(_scheduled_on(threads)).run(module)
        view = next(BlockView(op) for op in walk(module.operation) if op.name == "tp.block")
        # the register tile: the whole 16-channel block on 8-lane (or 16-lane) vectors, with
        # a second block as its companion where one vector holds a whole block
        order = view.schedule.order
        assert order[:3] == ("n", "oh", "ow.0") and order[3].startswith("ocb"), view.schedule
        space = block_space(BlockFacts.of(view, view.schedule, threads, host_target()))
        assert space.note == "nest" and space.schedule(space.default_index).order == (
            view.schedule.order
        )
    got, ref = run_graph(_blocked_conv_relu, [x, w], pipeline=_compiled_on(threads))
    want = np.einsum("nchwi,ocxyik->nohwk", x, w)  # 1x1: sums over the input channels
    check(got[0], ref[0], np.maximum(want, 0), rtol=1e-4, atol=1e-4, what="rows-first conv")


@pytest.mark.parametrize("shape", [(1, 1024, 7, 7), (2, 40, 5, 3)])
def test_global_pool_over_strided_channels(shape: tuple[int, ...]) -> None:
    """A mean over an NCHW map's pixels written to [N, C]: the channels, the output's vector
    axis, lie H x W floats apart in the input, so each lane is a scalar load. The lanes span
    one register (8 at 256 bits), not four (a vector<64xf32> built from 448 scalar loads per
    7 x 7 step cost LLVM's SLP vectorizer 6 s); the values match numpy, partial tiles included."""
    x = rand(shape, seed=17)

    def body(v: ir.Value) -> ir.Value:
        return g.reduce_mean(v, axes=(2, 3), keepdims=0)

    text = lower_to_tp(
        body, [x], "builtin.module(graph-fuse,graph-to-tp,tp-default-schedule{vector-bits=256})"
    )
    assert "tile = {s1 = array<i64: 8>}" in text and 'vectorize = "s1.1"' in text, text
    loops = lower_to_tp(body, [x], SCHEDULED.split(",func.func")[0] + ")")
    assert "vector<64xf32>" not in loops and "vector<32xf32>" not in loops
    got, ref = run_graph(body, [x], pipeline=SCHEDULED)
    check(got[0], ref[0], x.mean(axis=(2, 3)), rtol=1e-5, atol=1e-6, what="global pool")
