"""The C API of a model with symbolic dims (issue 28): a C program gives each input's shape,
runs at several sizes, reads the output shapes and values (compared with numpy), and every
inadmissible shape is an error code with a message naming the dim; the C shape expressions
keep Python's floor division.
"""

from __future__ import annotations

import itertools
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from helpers import symbolic_module as sm
from helpers.runtime import build_library
from mlc import symbolic
from mlc.runtime import capi
from mlc.runtime.capi_shapes import C_HELPERS, c_expr

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")

PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include "mlc_main.h"

static void fill(int n, float *x, float *k) {
  for (int i = 0; i < n * 4; ++i) x[i] = (float)i * 0.25f - 3.0f;
  for (int i = 0; i < n; ++i) k[i] = (float)i * 0.5f - 1.0f;
}

static int shapes(mlc_main_model *m, int64_t xn, int64_t xw, int64_t kn) {
  int64_t xs[2] = {xn, xw}, ks[1] = {kn};
  int s = mlc_main_set_input_shape(m, 0, xs, 2);
  return s ? s : mlc_main_set_input_shape(m, 1, ks, 1);
}

static int feed(mlc_main_model *m, int n) {
  static float x[4 * 128], k[128];
  fill(n, x, k);
  int s = mlc_main_set_input(m, 0, x, sizeof(float) * 4 * (size_t)n);
  return s ? s : mlc_main_set_input(m, 1, k, sizeof(float) * (size_t)n);
}

#define REPORT(call) printf("%d %s\n", (call), mlc_main_last_error())

int main(int argc, char **argv) {
  mlc_main_model *m;
  if (mlc_main_create(0, &m)) return fprintf(stderr, "%s\n", mlc_main_last_error()), 1;
  if (argc > 1 && strcmp(argv[1], "errors") == 0) {
    float buf[16] = {0};
    int64_t dims[2];
    REPORT(mlc_main_set_input(m, 0, buf, 16));
    REPORT(mlc_main_get_output(m, 0, buf, 16));
    REPORT(mlc_main_get_output_shape(m, 1, dims, 1));
    int64_t one[1] = {3};
    REPORT(mlc_main_set_input_shape(m, 0, one, 1));
    REPORT(shapes(m, 101, 4, 101));
    REPORT(shapes(m, 3, 5, 3));
    REPORT(shapes(m, 3, 4, 5));
    REPORT(mlc_main_set_input(m, 0, buf, 16));
    REPORT(mlc_main_run(m));
    int s = shapes(m, 80, 4, 80);
    if (!s) s = feed(m, 80);
    REPORT(s ? s : mlc_main_run(m));
    REPORT(mlc_main_get_output_shape(m, 0, dims, 1));
    mlc_main_free(m);
    return 0;
  }
  int sizes[] = {1, 7, 13, 64, 7};
  for (int t = 0; t < 5; ++t) {
    int n = sizes[t];
    int s = shapes(m, n, 4, n);
    if (!s) s = feed(m, n);
    if (!s) s = mlc_main_run(m);
    int64_t ys[2], zs[1];
    if (!s) s = mlc_main_get_output_shape(m, 0, ys, 2);
    if (!s) s = mlc_main_get_output_shape(m, 1, zs, 1);
    static float y[4 * 128], z[256];
    if (!s) s = mlc_main_get_output(m, 0, y, sizeof(float) * (size_t)(ys[0] * ys[1]));
    if (!s) s = mlc_main_get_output(m, 1, z, sizeof(float) * (size_t)zs[0]);
    if (s) return fprintf(stderr, "size %d: %s\n", n, mlc_main_last_error()), 1;
    printf("%d %lld %lld %lld", n, (long long)ys[0], (long long)ys[1], (long long)zs[0]);
    for (int i = 0; i < ys[0] * ys[1]; ++i) printf(" %.9g", y[i]);
    for (int i = 0; i < zs[0]; ++i) printf(" %.9g", z[i]);
    printf("\n");
  }
  mlc_main_free(m);
  return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("capisym")
    text = sm.module_text(sm.manifest_dict(bounds=(1, 100), checks=("min(64, seq) == seq",)))
    lib = build_library(1, text=text, params=sm.make_params())
    lib.export_shared(d / "sym.so", embed_params=True)
    (d / "mlc_main.h").write_text(capi.header_text(lib.manifest))
    (d / "main.c").write_text(PROGRAM)
    cmd = ["cc", "-O2", "-Wall", "-Werror", f"-I{d}", str(d / "main.c"), "-o", str(d / "main")]
    cmd += [f"-L{d}", "-l:sym.so", "-Wl,-rpath,$ORIGIN"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return d / "main"


def test_a_c_program_runs_the_model_at_every_size(program: pathlib.Path) -> None:
    proc = subprocess.run([str(program)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [int(ln.split()[0]) for ln in lines] == [1, 7, 13, 64, 7]
    for line in lines:
        n, yr, yc, zn, *values = line.split()
        seq = int(n)
        assert (int(yr), int(yc), int(zn)) == (seq, 4, 2 * seq)
        x = (np.arange(seq * 4, dtype=np.float32) * np.float32(0.25) - 3).reshape(seq, 4)
        k = np.arange(seq, dtype=np.float32) * np.float32(0.5) - 1
        ref = sm.reference({"x": x, "k": k}, sm.make_params())
        got = np.array(values, dtype=np.float32)
        np.testing.assert_allclose(got[: seq * 4], ref["y"].ravel(), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(got[seq * 4 :], ref["z"], rtol=1e-6, atol=1e-6)


def test_bad_shapes_are_error_codes_naming_the_dim(program: pathlib.Path) -> None:
    proc = subprocess.run([str(program), "errors"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = [ln.split(" ", 1) for ln in proc.stdout.splitlines()]
    expected = [
        ("6", "input 0 ('x') has symbolic dims: give its shape with set_input_shape"),
        ("6", "output 0 ('y') has symbolic dims: it has no value before run()"),
        ("6", "output 1 ('z') has symbolic dims: its shape is known after run()"),
        ("8", "input 0 ('x') has rank 2, given rank 1"),
        ("8", "input 'x' axis 0 (the dim 'seq') is 101, outside the bounds [1, 100]"),
        ("8", "input 'x' axis 1 must be 4, got 5"),
        ("0", ""),
        ("2", "input 0 ('x', float32, 48 bytes) given a buffer of 16 bytes"),
        ("6", "input 0 ('x') is not set"),
        ("8", "the inputs fail the model's shape check 'min(64, seq) == seq' (64 != 80)"),
        ("2", "output 0 ('y') has rank 2, not 1"),
    ]
    assert len(got) == len(expected), proc.stdout
    for (code, message), (want_code, want) in zip(got, expected):
        assert code == want_code and message.startswith(want), (code, message)


def test_inputs_that_disagree_fail_the_run(program: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """x at 3 rows, k at 5: run() binds seq from both and names them."""
    source = PROGRAM.replace(
        '  if (argc > 1 && strcmp(argv[1], "errors") == 0) {',
        "  if (shapes(m, 3, 4, 5) == 0 && feed_apart(m) == 0) REPORT(mlc_main_run(m));\n  if (0) {",
    ).replace(
        "#define REPORT",
        "static int feed_apart(mlc_main_model *m) {\n"
        "  static float x[12], k[5];\n"
        "  int s = mlc_main_set_input(m, 0, x, sizeof x);\n"
        "  return s ? s : mlc_main_set_input(m, 1, k, sizeof k);\n"
        "}\n#define REPORT",
    )
    (tmp_path / "apart.c").write_text(source)
    d = program.parent
    cmd = ["cc", "-O2", f"-I{d}", str(tmp_path / "apart.c"), "-o", str(tmp_path / "apart")]
    cmd += [f"-L{d}", "-l:sym.so", f"-Wl,-rpath,{d}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([str(tmp_path / "apart")], capture_output=True, text=True).stdout
    assert out.splitlines()[0] == (
        "8 inputs disagree on the dim 'seq': input 'x' axis 0 has 3, input 'k' axis 0 has 5"
    )


def test_c_shape_expressions_floor_like_python(tmp_path: pathlib.Path) -> None:
    texts = ["(a - 7) // 3", "(a - 7) % 3", "a // (b - 5)", "a % (b - 5)", "-a // 2"]
    texts += ["max(a, b) * 2 - min(a, 3) + (a*b) % 5", "(a + b*b) // 4 - a % b"]
    index = {"a": 0, "b": 1}
    envs = list(itertools.product([1, 2, 7, 10], [1, 3, 6, 9]))
    body = "".join(
        f"  {{ int64_t s[2] = {{{a}, {b}}}; "
        f'printf("%lld\\n", (long long){c_expr(symbolic.parse(t), index)}); }}\n'
        for a, b in envs
        for t in texts
    )
    src = f"#include <stdint.h>\n#include <stdio.h>\n{C_HELPERS}int main(void) {{\n{body}}}\n"
    (tmp_path / "e.c").write_text(src)
    proc = subprocess.run(
        ["cc", "-O1", "-o", str(tmp_path / "e"), str(tmp_path / "e.c")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    got = subprocess.run([str(tmp_path / "e")], capture_output=True, text=True).stdout.split()
    want = [
        str(symbolic.evaluate(symbolic.parse(t), {"a": a, "b": b})) for a, b in envs for t in texts
    ]
    assert got == want
