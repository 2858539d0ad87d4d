"""tp script: kernels written in Python parse into tp blocks, run (JIT) and match numpy; errors
name the Python source line."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from mlc import tp as T
from mlc.errors import MlcError, RuntimeInputError


@T.script
def mm_relu(
    A: T.Buffer((128, 128), "float32"),
    B: T.Buffer((128, 128), "float32"),
    C: T.Buffer((128, 128), "float32"),
):
    Y = T.alloc_buffer((128, 128), "float32")
    for i, j, k in T.grid(128, 128, 128):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


def test_mm_relu_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 128), dtype=np.float32)
    b = rng.standard_normal((128, 128), dtype=np.float32)
    c = np.full((128, 128), np.nan, np.float32)
    T.build(mm_relu)(a, b, c)
    np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


def test_print_shows_tp_ir() -> None:
    text = str(mm_relu)
    assert text.startswith("func.func @mm_relu(%arg0: memref<128x128xf32>")
    assert 'name = "Y"' in text and 'combiner = "add"' in text and 'kinds = "SSR"' in text
    assert "init = 0.000000e+00 : f32" in text and "arith.maximumf" in text
    script = mm_relu.script()
    assert "Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]" in script
    assert "C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))" in script


@T.script
def softmax_rows(X: T.Buffer((4, 10), "float32"), O: T.Buffer((4, 10), "float32")):  # noqa: E741
    """Row softmax with a temporary max and sum: locals, T.exp, reductions by T.max and +."""
    M = T.alloc_buffer((4,), "float32")
    S = T.alloc_buffer((4,), "float32")
    for i, j in T.grid(4, 10):
        with T.block("max"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                M[vi] = T.float32("-inf")
            M[vi] = T.max(M[vi], X[vi, vj])
    for i, j in T.grid(4, 10):
        with T.block("sum"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                S[vi] = 0.0
            S[vi] += T.exp(X[vi, vj] - M[vi])
    for i, j in T.grid(4, 10):
        with T.block("out"):
            vi, vj = T.axis.remap("SS", [i, j])
            e = T.exp(X[vi, vj] - M[vi])
            O[vi, vj] = e / S[vi]


def test_softmax_with_locals_and_reductions() -> None:
    x = np.random.default_rng(1).standard_normal((4, 10), dtype=np.float32) * 3
    out = np.empty_like(x)
    T.build(softmax_rows)(x, out)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


@T.script
def mixed(
    X: T.Buffer((6, 6), "float32"),
    I: T.Buffer((3,), "int64"),  # noqa: E741
    O: T.Buffer((3, 4, 4), "float32"),  # noqa: E741
):
    for n, h, w in T.grid(3, 4, 4):
        with T.block("mixed"):
            vn, vh, vw = T.axis.remap("SSS", [n, h, w])
            row = X[I[vn], vw]  # a computed index: a gather
            p = T.padded(X[vh * 2 - 1, vw * 2 - 1], 0.0)  # out of bounds reads 0
            t = T.select(row > p, row, -p) + T.cast(vh * 4 + vw, "float32")
            O[vn, vh, vw] = T.cast(T.cast(t * 2.0, "int32"), "float32")


def test_gather_padding_select_cast() -> None:
    x = np.random.default_rng(2).standard_normal((6, 6), dtype=np.float32)
    idx = np.array([5, 0, 2], np.int64)
    out = np.empty((3, 4, 4), np.float32)
    T.build(mixed)(x, idx, out)
    pad = np.pad(x, 1)[0:8:2, 0:8:2]  # X[2h - 1, 2w - 1] with zeros outside
    row = x[idx][:, :4]
    t = np.where(row[:, None, :] > pad, row[:, None, :], -pad)
    t = t + (np.arange(4)[:, None] * 4 + np.arange(4))
    np.testing.assert_array_equal(out, np.trunc(t * 2).astype(np.float32))


def test_subscript_buffer_annotations() -> None:
    """`T.Buffer[(dims), "dtype"]` also works (linters read the string as a forward reference,
    so the call form is the one scripts in files use)."""
    f = T.parse_script(
        'def f(A: T.Buffer[(3,), "float64"], B: T.Buffer[3, "float64"]):\n'
        "    for i in T.grid(3):\n"
        '        with T.block("B"):\n'
        '            vi = T.axis.remap("S", [i])\n'
        "            B[vi] = T.sqrt(A[vi])\n"
    )
    a, b = np.array([1.0, 4.0, 2.0]), np.zeros(3)
    T.build(f)(a, b)
    np.testing.assert_array_equal(b, np.sqrt(a))


@T.script
def scatter_add(
    D: T.Buffer((6, 3), "float32"),
    I: T.Buffer((4,), "int64"),  # noqa: E741
    U: T.Buffer((4, 3), "float32"),
    O: T.Buffer((6, 3), "float32"),  # noqa: E741
):
    for i, j in T.grid(6, 3):
        with T.block("copy"):
            vi, vj = T.axis.remap("SS", [i, j])
            O[vi, vj] = D[vi, vj]
    for u, j in T.grid(4, 3):
        with T.block("scatter"):
            vu, vj = T.axis.remap("SS", [u, j])
            O[T.scatter(I[vu], vj, combiner="add")] = U[vu, vj]


def test_scatter_block_combines_repeated_positions() -> None:
    rng = np.random.default_rng(3)
    d = rng.standard_normal((6, 3), dtype=np.float32)
    u = rng.standard_normal((4, 3), dtype=np.float32)
    idx = np.array([5, 1, 5, 0], np.int64)
    out = np.empty_like(d)
    T.build(scatter_add)(d, idx, u, out)
    ref = d.copy()
    np.add.at(ref, idx, u)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    # printed back (parameters are named A, B, ... in order: the IR keeps no names)
    text = scatter_add.script()
    assert "D[T.scatter(T.cast(B[vu], 'index'), vj, combiner='add')] = C[vu, vj]" in text


ROW = "memref<4xf32, strided<[1], offset: ?>>"


@T.script
def running_sum(X: T.Buffer((5, 4), "float32"), S: T.Buffer((5, 4), "float32")):
    for j in T.grid(4):
        with T.block("first"):
            vj = T.axis.remap("S", [j])
            S[0, vj] = X[0, vj]
    for t in T.serial(1, 5, 1):
        prev = T.subview(S, [t - 1, 0], [1, 4], "memref<4xf32, strided<[1], offset: ?>>")
        cur = T.subview(S, [t, 0], [1, 4], "memref<4xf32, strided<[1], offset: ?>>")
        x = T.subview(X, [t, 0], [1, 4], "memref<4xf32, strided<[1], offset: ?>>")
        for j in T.grid(4):
            with T.block("step"):
                vj = T.axis.remap("S", [j])
                cur[vj] = prev[vj] + x[vj]


def test_serial_loop_over_subviews() -> None:
    x = np.random.default_rng(4).standard_normal((5, 4), dtype=np.float32)
    s = np.empty_like(x)
    T.build(running_sum)(x, s)
    np.testing.assert_allclose(s, np.cumsum(x, axis=0), rtol=1e-5, atol=1e-6)
    again = T.parse_script(running_sum.script())
    assert again.script() == running_sum.script()
    assert "for t in T.serial(1, 5, 1):" in again.script()
    sch = T.Schedule(running_sum)  # blocks inside serial loops are scheduled too
    (j,) = sch.get_loops("step")
    sch.vectorize(j)
    s.fill(np.nan)
    T.build(sch)(x, s)
    np.testing.assert_allclose(s, np.cumsum(x, axis=0), rtol=1e-5, atol=1e-6)


def test_kernel_checks_its_arrays() -> None:
    kernel = T.build(softmax_rows)
    with pytest.raises(RuntimeInputError, match=r"argument 1: expected a C-contiguous float32"):
        kernel(np.zeros((4, 10), np.float32), np.zeros((4, 9), np.float32))
    with pytest.raises(RuntimeInputError, match="takes 2 arrays, got 1"):
        kernel(np.zeros((4, 10), np.float32))


def test_dsl_names_only_mean_something_inside_a_script() -> None:
    with pytest.raises(MlcError, match=r"T.grid is tp script: it only means something inside"):
        T.grid(4)


def test_decorator_errors_point_at_the_source_line() -> None:
    with pytest.raises(T.ScriptError) as info:

        @T.script
        def bad(A: T.Buffer((4,), "float32")):
            for i in T.grid(4):
                with T.block("A"):
                    vi = T.axis.remap("S", [i])
                    A[vi] = T.sqrt(B[vi])  # noqa: F821

    line = inspect.currentframe().f_lineno - 2  # type: ignore[union-attr]
    assert str(info.value).startswith(f"{__file__}:{line}:")
    assert "unknown buffer B" in str(info.value)


HEADER = 'def f(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8,), "float32")):\n'
ERRORS = [
    (
        HEADER + '    for i in T.grid(8):\n        with T.block("B"):\n'
        '            vi = T.axis.remap("S", [i])\n            B[vi] = 2.0 * A[vi, 4]',
        5,
        "'tp.read' op reads out of bounds (use tp.read_padded for padding)",
    ),
    ("def f(A):\n    pass", 1, "parameter 'A' needs a type"),
    ('def f(A: T.Buffer((8,), "complex")):\n    pass', 1, "unknown buffer dtype"),
    (HEADER + "    print(A)", 2, "expected a loop nest"),
    (HEADER + "    x = 1", 2, "the type of 1 is unknown: write T.float32(...)"),
    (HEADER + "    for i in T.grid(8):\n        B[i] = 0.0", 3, "expected `with T.block"),
    (
        HEADER + '    for i, k in T.grid(8, 4):\n        with T.block("B"):\n'
        '            vi, vk = T.axis.remap("SR", [i, k])\n            B[vi] = B[vi] + A[vi, vk]',
        5,
        "block 'B' has reduce axes: give it `with T.init():`",
    ),
    (
        HEADER + '    for i, k in T.grid(8, 4):\n        with T.block("B"):\n'
        '            vi = T.axis.remap("S", [i])\n            B[vi] = A[vi, 0]',
        4,
        "T.axis.remap must list every loop variable once",
    ),
    (
        HEADER + '    for i, k in T.grid(8, 4):\n        with T.block("B"):\n'
        '            vi, vk = T.axis.remap("SX", [i, k])\n            B[vi] = 0.0',
        4,
        "a string of S (spatial) and R (reduce)",
    ),
    (
        HEADER + '    for i, k in T.grid(8, 4):\n        with T.block("B"):\n'
        '            vi, vk = T.axis.remap("SR", [i, k])\n            with T.init():\n'
        "                B[vi] = 0.0\n            B[vi] = A[vi, vk] - B[vi]",
        7,
        "a block with T.init() updates its element",
    ),
    (
        HEADER + '    for i in T.grid(8):\n        with T.block("B"):\n'
        '            vi = T.axis.remap("S", [i])\n            B[vi * vi] = A[vi, 0]',
        5,
        "a store index is an affine expression of the block variables",
    ),
    (
        HEADER + '    for i in T.grid(8):\n        with T.block("B"):\n'
        '            vi = T.axis.remap("S", [i])\n            B[vi] = A[vi]',
        5,
        "buffer 'A' has 2 dim(s), indexed with 1",
    ),
    (
        HEADER + '    for i in T.grid(8):\n        with T.block("B"):\n'
        '            vi = T.axis.remap("S", [i])\n            B[vi] = A[vi, 0] + T.int32(1)',
        5,
        "have types f32 and i32: convert one with T.cast",
    ),
    (
        HEADER + '    for i in T.grid(8):\n        with T.block("B"):\n'
        '            vi = T.axis.remap("S", [i])\n            T.schedule(vectorize="j")\n'
        "            B[vi] = A[vi, 0]",
        5,
        "vectorize names unknown loop 'j'",
    ),
    (
        HEADER + '    for i in T.grid(8):\n        with T.block("B"):\n'
        '            vi = T.axis.remap("S", [i])\n            B[vi] = T.frobnicate(A[vi, 0])',
        5,
        "unknown tp script call T.frobnicate",
    ),
    (
        HEADER + '    for i in T.grid(8):\n        with T.block("B"):\n'
        '            vi = T.axis.remap("S", [i])\n            B[vi + 1] = A[vi, 0]',
        3,
        "'tp.block' op out_map index 0 (d0 + 1) ranges over [1, 8] but the dim has size 8",
    ),
]


@pytest.mark.parametrize("source, line, message", ERRORS)
def test_errors_name_the_line(source: str, line: int, message: str) -> None:
    with pytest.raises(T.ScriptError) as info:
        T.parse_script(source, "k.py")
    assert str(info.value).startswith(f"k.py:{line}:"), str(info.value)
    assert message in str(info.value)
