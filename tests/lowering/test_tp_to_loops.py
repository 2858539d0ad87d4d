"""tp-to-loops: every schedule feature computes the same numbers as numpy (JIT-compiled)."""

from __future__ import annotations

import numpy as np
import pytest

from mlc.testing import LOWER, call, jit_kernels

MATMUL = """
func.func @mm(%A: memref<{M}x{K}xf32>, %B: memref<{K}x{N}xf32>, %C: memref<{M}x{N}xf32>) attributes {{tp.kernel}} {{
  "tp.block"(%C) ({{
    %a = "tp.read"(%A) {{map = affine_map<(i, j, k) -> (i, k)>}} : (memref<{M}x{K}xf32>) -> f32
    %b = "tp.read"(%B) {{map = affine_map<(i, j, k) -> (k, j)>}} : (memref<{K}x{N}xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }}) {{name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: {M}, {N}, {K}>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32,
      schedule = {sched}}} : (memref<{M}x{N}xf32>) -> ()
  return
}}
"""

SCHEDULES = {
    "default": "{}",
    "register_tile": '{tile = {i = array<i64: 3>, j = array<i64: 8>}, order = ["i.0", "j.0", "k", "i.1", "j.1"], '
    'unroll = {"i.1" = 3}, vectorize = "j.1"}',
    "parallel_tile": '{tile = {i = array<i64: 2>, j = array<i64: 8>}, order = ["i.0", "j.0", "k", "i.1", "j.1"], '
    'unroll = {"i.1" = 2}, vectorize = "j.1", parallel = ["i.0", "j.0"]}',
    "memory_mode": '{tile = {j = array<i64: 4>}, order = ["k", "i", "j.0", "j.1"], vectorize = "j.1"}',
    "inexact_tiles": "{tile = {i = array<i64: 4>, k = array<i64: 3>}}",
    "partial_unroll": '{unroll = {"k" = 2, "j" = 3}}',
    # k in slices around the row blocks: the register tile is loaded and stored per slice
    "blocked_reduction": "{tile = {i = array<i64: 2>, j = array<i64: 8>, k = array<i64: 2>}, "
    'order = ["j.0", "k.0", "i.0", "k.1", "i.1", "j.1"], unroll = {"i.1" = 2}, vectorize = "j.1"}',
    # the same with a tile that does not divide k: falls back to updates in memory
    "blocked_inexact": "{tile = {i = array<i64: 2>, j = array<i64: 8>, k = array<i64: 3>}, "
    'order = ["j.0", "k.0", "i.0", "k.1", "i.1", "j.1"], unroll = {"i.1" = 2}, vectorize = "j.1"}',
    "multi_level": '{tile = {j = array<i64: 8, 4>, k = array<i64: 2>}, order = ["j.0", "i", "k.0", "j.1", "k.1", "j.2"], '
    'unroll = {"k.1" = 2}, vectorize = "j.2"}',
}


def _check_matmul(
    sched: str, pipeline: str = LOWER, seed: int = 0, shape: tuple[int, int, int] = (6, 16, 5)
) -> None:
    """JIT the (m, n, k) matmul (6x16x5 by default) under `sched`, compare it with numpy."""
    m, n, k = shape
    engine, _ = jit_kernels(MATMUL.format(M=m, N=n, K=k, sched=sched), pipeline)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = np.full((m, n), np.nan, dtype=np.float32)
    call(engine, "mm", a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_matmul_schedules(name: str) -> None:
    _check_matmul(SCHEDULES[name])


CONV = """
func.func @conv(%X: memref<1x2x5x5xf32>, %W: memref<3x2x3x3xf32>, %O: memref<1x3x3x3xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %x = "tp.read_padded"(%X) {map = affine_map<(n, oc, oh, ow, ic, kh, kw) -> (n, ic, oh * 2 + kh - 1, ow * 2 + kw - 1)>, value = 0.0 : f32} : (memref<1x2x5x5xf32>) -> f32
    %w = "tp.read"(%W) {map = affine_map<(n, oc, oh, ow, ic, kh, kw) -> (oc, ic, kh, kw)>} : (memref<3x2x3x3xf32>) -> f32
    %m = arith.mulf %x, %w : f32
    gpu.yield %m : f32
  }) {name = "conv", axes = ["n", "oc", "oh", "ow", "ic", "kh", "kw"], kinds = "SSSSRRR",
      extents = array<i64: 1, 3, 3, 3, 2, 3, 3>, out_map = affine_map<(n, oc, oh, ow, ic, kh, kw) -> (n, oc, oh, ow)>,
      combiner = "add", init = 0.0 : f32, schedule = SCHED} : (memref<1x3x3x3xf32>) -> ()
  return
}
"""


def _conv_ref(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((1, 3, 3, 3), np.float32)
    for oh in range(3):
        for ow in range(3):
            patch = xp[:, :, oh * 2 : oh * 2 + 3, ow * 2 : ow * 2 + 3]
            out[0, :, oh, ow] = np.einsum("cij,ocij->o", patch[0], w)
    return out


@pytest.mark.parametrize(
    "sched",
    [
        "{}",
        '{order = ["n", "oc", "oh", "ic", "kh", "kw", "ow"], unroll = {"ow" = 3}, vectorize = "ow"}',
        '{order = ["n", "oh", "ow", "ic", "kh", "kw", "oc"], unroll = {"kw" = 3}}',
    ],
)
def test_padded_conv(sched: str) -> None:
    engine, _ = jit_kernels(CONV.replace("SCHED", sched))
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 5, 5), dtype=np.float32)
    w = rng.standard_normal((3, 2, 3, 3), dtype=np.float32)
    out = np.full((1, 3, 3, 3), np.nan, dtype=np.float32)
    call(engine, "conv", x, w, out)
    np.testing.assert_allclose(out, _conv_ref(x, w), rtol=1e-5, atol=1e-5)


GATHER_MAX = """
func.func @gather(%D: memref<5x8xf32>, %I: memref<3xi64>, %O: memref<3x8xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %i = "tp.read"(%I) {map = affine_map<(i, j) -> (i)>} : (memref<3xi64>) -> i64
    %ii = arith.index_cast %i : i64 to index
    %j = "tp.index"() {axis = "j"} : () -> index
    %v = "tp.load"(%D, %ii, %j) : (memref<5x8xf32>, index, index) -> f32
    gpu.yield %v : f32
  }) {name = "gather", axes = ["i", "j"], kinds = "SS", extents = array<i64: 3, 8>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init, schedule = {vectorize = "j"}} : (memref<3x8xf32>) -> ()
  return
}
func.func @rowmax(%D: memref<5x8xf32>, %O: memref<8xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %v = "tp.read"(%D) {map = affine_map<(j, r) -> (r, j)>} : (memref<5x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "max", axes = ["j", "r"], kinds = "SR", extents = array<i64: 8, 5>,
      out_map = affine_map<(j, r) -> (j)>, combiner = "max", init = 0xFF800000 : f32,
      schedule = {order = ["r", "j"], vectorize = "j"}} : (memref<8xf32>) -> ()
  return
}
"""


def test_gather_with_computed_indices_and_max_reduction() -> None:
    engine, _ = jit_kernels(GATHER_MAX)
    rng = np.random.default_rng(2)
    d = rng.standard_normal((5, 8), dtype=np.float32)
    idx = np.array([4, 0, 2], dtype=np.int64)
    out = np.zeros((3, 8), np.float32)
    call(engine, "gather", d, idx, out)
    np.testing.assert_array_equal(out, d[idx])
    mx = np.zeros(8, np.float32)
    call(engine, "rowmax", d, mx)
    np.testing.assert_array_equal(mx, d.max(axis=0))


@pytest.mark.parametrize("threads", [1, 2, 4, 5, 6, 7])
def test_parallel_loops_split_into_static_chunks(threads: int) -> None:
    """tp-to-loops{threads=N}: the collapsed i.0 x j.0 space (3 x 2 = 6 trips) in N contiguous
    chunks, uneven ones included; N >= 6 keeps one parallel iteration per trip. The chunks run
    sequentially here (no threading runtime): this checks the index arithmetic of the split."""
    _check_matmul(
        SCHEDULES["parallel_tile"],
        LOWER.replace("tp-to-loops", f"tp-to-loops{{threads={threads}}}"),
        seed=3,
    )


def test_parallel_chunks_in_the_loop_ir() -> None:
    from mlir import ir

    import mlc

    source = MATMUL.format(M=6, N=16, K=5, sched=SCHEDULES["parallel_tile"])
    texts = {}
    for threads in (0, 1, 4):
        module = ir.Module.parse(source, mlc.Context())
        mlc.PassManager.parse(f"builtin.module(tp-to-loops{{threads={threads}}})").run(module)
        texts[threads] = str(module)
    assert "scf.parallel" in texts[0] and "to (%c3, %c2)" in texts[0]  # one iteration per trip
    assert "scf.parallel" not in texts[1]  # sequential loops
    # four chunks of 6 / 4 trips: [c * 6 / 4, (c + 1) * 6 / 4)
    assert (
        "to (%c4)" in texts[4]
        and "((d0 * 3) floordiv 2)" in texts[4]
        and "((d0 * 3 + 3) floordiv 2)" in texts[4]
    )


def test_blocked_reduction_keeps_the_tile_in_registers_per_slice() -> None:
    from mlir import ir

    import mlc

    source = MATMUL.format(M=6, N=16, K=4, sched=SCHEDULES["blocked_reduction"])
    module = ir.Module.parse(source, mlc.Context())
    mlc.PassManager.parse("builtin.module(tp-to-loops,func.func(canonicalize,cse))").run(module)
    text = str(module)
    # a zero-fill pass (2 stores: i.1 is unrolled), then per k slice: 2 vector loads of the
    # tile, a 2-step k loop carrying them, 2 vector stores
    assert text.count("iter_args") == 1 and text.count("vector.load %arg2") == 2, text
    assert text.count("vector.store") == 4, text


# Tiles that do not divide 13 x 37 (k = 9): rows are guarded, the last column tile is peeled
# onto narrower vectors (37 = 2 x 16 + 5), sequentially or inside the parallel loops.
PARTIAL = {
    "vector_tail": '{tile = {j = array<i64: 16>}, order = ["i", "j.0", "k", "j.1"], vectorize = "j.1"}',
    "register_tile_tails": "{tile = {i = array<i64: 4>, j = array<i64: 16>}, "
    'order = ["j.0", "i.0", "k", "i.1", "j.1"], unroll = {"i.1" = 4}, vectorize = "j.1"}',
    "parallel_vector_tail": "{tile = {i = array<i64: 4>, j = array<i64: 16>}, "
    'order = ["j.0", "i.0", "k", "i.1", "j.1"], unroll = {"i.1" = 4}, vectorize = "j.1", '
    'parallel = ["j.0", "i.0"]}',
    "blocked_reduction_tails": "{tile = {i = array<i64: 4>, j = array<i64: 16>, k = array<i64: 3>}, "
    'order = ["j.0", "k.0", "i.0", "k.1", "i.1", "j.1"], unroll = {"i.1" = 4}, vectorize = "j.1"}',
    "wide_vectors": "{tile = {i = array<i64: 3>, j = array<i64: 32>}, "
    'order = ["j.0", "i.0", "k", "i.1", "j.1"], unroll = {"i.1" = 3}, vectorize = "j.1"}',
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_partial_tiles(name: str, threads: int) -> None:
    # Two static chunks of the parallel loops, run one after the other (no threading runtime):
    # this checks where the peeled tail lands in the split.
    pipeline = LOWER.replace("tp-to-loops", f"tp-to-loops{{threads={threads}}}")
    _check_matmul(PARTIAL[name], pipeline, seed=3, shape=(13, 37, 9))


def test_the_vector_tail_is_peeled_not_guarded() -> None:
    """The last column tile becomes code on vector<5xf32>: no lane reads past a row."""
    from mlir import ir

    import mlc

    source = MATMUL.format(M=13, N=37, K=9, sched=PARTIAL["register_tile_tails"])
    module = ir.Module.parse(source, mlc.Context())
    mlc.PassManager.parse("builtin.module(tp-to-loops)").run(module)
    text = str(module)
    assert "vector<16xf32>" in text and "vector<5xf32>" in text


ROWS = """
func.func @rows(%X: memref<5x37xf32>, %O: memref<5x1xf32>) attributes {{tp.kernel}} {{
  "tp.block"(%O) ({{
    %x = "tp.read"(%X) {{map = affine_map<(i, z, k) -> (i, k)>}} : (memref<5x37xf32>) -> f32
    gpu.yield %x : f32
  }}) {{name = "rows", axes = ["i", "z", "k"], kinds = "SSR", extents = array<i64: 5, 1, 37>,
      out_map = affine_map<(i, z, k) -> (i, z)>, combiner = "{combiner}", init = {init} : f32,
      schedule = {sched}}} : (memref<5x1xf32>) -> ()
  return
}}
"""


@pytest.mark.parametrize(
    "combiner, init, reference",
    [("add", "0.0", np.sum), ("max", "0xFF800000", np.max), ("mul", "1.0", np.prod)],
)
@pytest.mark.parametrize(
    "sched",
    [
        # 16 lanes of partial results over 37 = 2 x 16 + a peeled tail of 5
        '{tile = {k = array<i64: 16>}, order = ["i", "z", "k.0", "k.1"], vectorize = "k.1"}',
        '{tile = {k = array<i64: 8>}, order = ["i", "z", "k.0", "k.1"], vectorize = "k.1", '
        'parallel = ["i"]}',
    ],
)
def test_reductions_vectorized_along_the_reduce_axis(
    sched: str, combiner: str, init: str, reference: object
) -> None:
    source = ROWS.format(combiner=combiner, init=init, sched=sched)
    engine, _ = jit_kernels(source, LOWER.replace("tp-to-loops", "tp-to-loops{threads=2}"))
    x = np.random.default_rng(4).uniform(0.5, 1.5, (5, 37)).astype(np.float32)
    out = np.full((5, 1), np.nan, dtype=np.float32)
    call(engine, "rows", x, out)
    want = reference(x.astype(np.float64), axis=1, keepdims=True)  # type: ignore[operator]
    np.testing.assert_allclose(out, want, rtol=1e-5)


ROWS_FUSED = """
func.func @rows_fused(%X: memref<{R}x{C}xf32>, %M: memref<{R}x1xf32>, %Y: memref<{R}x{C}xf32>) attributes {{tp.kernel}} {{
  "tp.block"(%M) ({{
    %x = "tp.read"(%X) {{map = affine_map<(i, z, k) -> (i, k)>}} : (memref<{R}x{C}xf32>) -> f32
    gpu.yield %x : f32
  }}) {{name = "max", axes = ["i", "z", "k"], kinds = "SSR", extents = array<i64: {R}, 1, {C}>,
      out_map = affine_map<(i, z, k) -> (i, z)>, combiner = "max", init = 0xFF800000 : f32,
      schedule = {{tile = {{k = array<i64: 8>}}, order = ["i", "z", "k.0", "k.1"], vectorize = "k.1", parallel = ["i"]}}}} : (memref<{R}x1xf32>) -> ()
  "tp.block"(%Y) ({{
    %x = "tp.read"(%X) {{map = affine_map<(i, j) -> (i, j)>}} : (memref<{R}x{C}xf32>) -> f32
    %m = "tp.read"(%M) {{map = affine_map<(i, j) -> (i, 0)>}} : (memref<{R}x1xf32>) -> f32
    %d = arith.subf %x, %m : f32
    gpu.yield %d : f32
  }}) {{name = "shift", axes = ["i", "j"], kinds = "SS", extents = array<i64: {R}, {C}>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init,
      schedule = {{tile = {{j = array<i64: 8>}}, order = ["i", "j.0", "j.1"], vectorize = "j.1", parallel = ["i"]}}}} : (memref<{R}x{C}xf32>) -> ()
  return
}}
"""


@pytest.mark.parametrize("threads", [0, 2, 3])
@pytest.mark.parametrize("rows, cols", [(48, 512), (7, 64), (32, 8), (1, 16)])
def test_row_fusion_with_parallel_rows(threads: int, rows: int, cols: int) -> None:
    """Blocks fused row by row whose rows are parallel: the threads share tiles of rows, every
    row is computed once and nothing is written past the tensor (the row loop used to run
    whole tiles from every parallel row: out-of-bounds writes)."""
    source = ROWS_FUSED.format(R=rows, C=cols)
    pipeline = LOWER.replace("tp-to-loops", f"tp-to-loops{{threads={threads}}}")
    engine, _ = jit_kernels(source, pipeline)
    x = np.random.default_rng(5).standard_normal((rows + 1, cols)).astype(np.float32)
    m = np.full((rows + 1, 1), np.nan, dtype=np.float32)
    y = np.full((rows + 1, cols), np.nan, dtype=np.float32)
    call(engine, "rows_fused", x[:rows], m[:rows], y[:rows])
    want = x[:rows].max(axis=1, keepdims=True)
    np.testing.assert_array_equal(m[:rows], want)
    np.testing.assert_allclose(y[:rows], x[:rows] - want, rtol=1e-6, atol=1e-6)
    assert np.isnan(m[rows]).all() and np.isnan(y[rows]).all()  # the row past the end is untouched


# 116 = 64 + 52: a last tile of 52 lanes is emitted as vectors of 32, 16 and 4 lanes.
WIDE_TAIL = {
    "register_tile": "{tile = {i = array<i64: 4>, j = array<i64: 64>}, "
    'order = ["j.0", "i.0", "k", "i.1", "j.1"], unroll = {"i.1" = 4}, vectorize = "j.1"}',
    "parallel": "{tile = {i = array<i64: 4>, j = array<i64: 64>}, "
    'order = ["j.0", "i.0", "k", "i.1", "j.1"], unroll = {"i.1" = 4}, vectorize = "j.1", '
    'parallel = ["j.0", "i.0"]}',
    "memory": '{tile = {j = array<i64: 64>}, order = ["k", "i", "j.0", "j.1"], vectorize = "j.1"}',
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(WIDE_TAIL))
def test_a_wide_partial_vector_is_split_into_powers_of_two(name: str, threads: int) -> None:
    from mlir import ir

    import mlc

    m, n, k = 10, 116, 7
    source = MATMUL.format(M=m, N=n, K=k, sched=WIDE_TAIL[name])
    module = ir.Module.parse(source, mlc.Context())
    mlc.PassManager.parse(f"builtin.module(tp-to-loops{{threads={threads}}})").run(module)
    text = str(module)
    assert "vector<52xf32>" not in text
    assert all(f"vector<{w}xf32>" in text for w in (64, 32, 16, 4))
    pipeline = LOWER.replace("tp-to-loops", f"tp-to-loops{{threads={threads}}}")
    _check_matmul(WIDE_TAIL[name], pipeline, seed=9, shape=(m, n, k))


@pytest.mark.parametrize(
    "combiner, init, reference",
    [("add", "0.0", np.sum), ("max", "0xFF800000", np.max)],
)
def test_a_wide_partial_reduction_vector_is_split(
    combiner: str, init: str, reference: object
) -> None:
    """Rows of 116 reduced on 64 lanes: the 52-lane tail (32 + 16 + 4) goes into lane 0."""
    sched = '{tile = {k = array<i64: 64>}, order = ["i", "z", "k.0", "k.1"], vectorize = "k.1"}'
    source = ROWS.format(combiner=combiner, init=init, sched=sched).replace("37", "116")
    engine, module = jit_kernels(source)
    x = np.random.default_rng(5).uniform(0.5, 1.5, (5, 116)).astype(np.float32)
    out = np.full((5, 1), np.nan, dtype=np.float32)
    call(engine, "rows", x, out)
    want = reference(x.astype(np.float64), axis=1, keepdims=True)  # type: ignore[operator]
    np.testing.assert_allclose(out, want, rtol=1e-5)
