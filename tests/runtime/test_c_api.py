"""The C API of compiled libraries (issue 29): a C program runs a model with no Python in the
process and matches the Python runtime exactly; two models link into one program; the files
copied to a fresh folder still run; bad calls return error codes with messages.

One SqueezeNet compile (~30 s on 2 shared cores) and two tiny ones, shared by every test.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from helpers.cli import classifier_model, run_cli
from mlc.runtime import GraphModule, load_module

EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "c" / "top5.c"
LIGHT = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")


def _squeezenet_with_random_weights(dest: pathlib.Path) -> pathlib.Path:
    """light_squeezenet makes its weights with ConstantOfShape (every class then gets 0.001):
    seeded random weights instead, so that the top-5 and the outputs mean something."""
    model = onnx.load(LIGHT / "light_squeezenet.onnx")
    inits = {t.name: t for t in model.graph.initializer}
    rng = np.random.default_rng(29)
    kept, consumed = [], set()
    for node in model.graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in inits:
            consumed.add(node.input[0])
            shape = tuple(int(d) for d in numpy_helper.to_array(inits[node.input[0]]))
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            value = rng.standard_normal(shape).astype(np.float32) * np.float32(
                np.sqrt(2.0 / fan_in) if len(shape) > 1 else 0.05
            )
            model.graph.initializer.append(numpy_helper.from_array(value, node.output[0]))
        else:
            kept.append(node)
    del model.graph.node[:]
    model.graph.node.extend(kept)
    keep = [t for t in model.graph.initializer if t.name not in consumed]
    del model.graph.initializer[:]
    model.graph.initializer.extend(keep)
    inputs = [i for i in model.graph.input if i.name not in consumed]  # listed as inputs too
    del model.graph.input[:]
    model.graph.input.extend(inputs)
    onnx.save(model, dest)
    return dest


def _compile(model: pathlib.Path, out: pathlib.Path, *flags: str) -> pathlib.Path:
    proc = run_cli("mlc", "-q", "compile", model, "-o", out, *flags)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("capi")
    sq = _squeezenet_with_random_weights(d / "squeezenet.onnx")
    _compile(sq, d / "sq.so", "--entry-name", "sq", "--threads", "2")
    cls = classifier_model(d / "cls.onnx")
    shape = ["--input-shapes", "x:[1,3,4,4]"]
    _compile(cls, d / "cls.so", "--entry-name", "cls", *shape)
    _compile(cls, d / "clsemb.so", "--entry-name", "clsemb", "--embed-params", *shape)
    return d


def _cc(d: pathlib.Path, source: pathlib.Path, exe: str, *args: str) -> pathlib.Path:
    cmd = ["cc", "-O2", "-Wall", "-Werror", f"-I{d}", str(source), "-o", str(d / exe)]
    cmd += [*args, f"-L{d}", "-Wl,-rpath,$ORIGIN"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return d / exe


def _python_outputs(so: pathlib.Path, x: np.ndarray) -> np.ndarray:
    gm = GraphModule(load_module(so))
    gm.run(**{gm.manifest.inputs[0].name: x})
    return gm.get_output(0).ravel()


def _top5_lines(y: np.ndarray) -> list[str]:
    order = sorted(range(y.size), key=lambda i: (-y[i], i))[:5]
    return [f"{i} {float(y[i]):.9g}" for i in order]


@pytest.fixture(scope="module")
def example(built: pathlib.Path) -> pathlib.Path:
    flags = ["-DMODEL=sq", '-DMODEL_HEADER="sq.h"', "-l:sq.so"]
    return _cc(built, EXAMPLE, "top5", *flags)


@pytest.fixture(scope="module")
def image(built: pathlib.Path) -> np.ndarray:
    x = np.random.default_rng(3).random((1, 3, 224, 224), dtype=np.float32)
    x.tofile(built / "input.bin")
    return x


def test_the_c_example_matches_the_python_runtime(
    built: pathlib.Path, example: pathlib.Path, image: np.ndarray
) -> None:
    proc = subprocess.run(
        [str(example), str(built / "sq.params.bin"), str(built / "input.bin")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    expected = _python_outputs(built / "sq.so", image)
    assert expected.max() > 5 * expected.min()  # a real distribution, not uniform
    assert proc.stdout.splitlines() == _top5_lines(expected)


@pytest.mark.parametrize("threads", ["1", "3"])
def test_a_thread_count_chosen_at_create_gives_the_same_top5(
    built: pathlib.Path, example: pathlib.Path, image: np.ndarray, threads: str
) -> None:
    """SqueezeNet compiled for 2 threads, created for 1 or 3: every parallel region reads the
    count from `sq_num_threads` (passes/omp_threads.py), which run sets."""
    proc = subprocess.run(
        [str(example), str(built / "sq.params.bin"), str(built / "input.bin"), threads],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == _top5_lines(_python_outputs(built / "sq.so", image))
    symbols = subprocess.run(["nm", "-D", str(built / "sq.so")], capture_output=True, text=True)
    assert " sq_num_threads" in symbols.stdout  # the global the regions read, renamed


def test_the_files_copied_to_a_fresh_folder_run_without_python(
    built: pathlib.Path, example: pathlib.Path, image: np.ndarray, tmp_path: pathlib.Path
) -> None:
    """Issue 29, item 4: the program, the library, its params and libiomp5.so, alone."""
    from mlc.runtime.toolchain import openmp_lib

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    for f in (example, built / "sq.so", built / "sq.params.bin", built / "input.bin"):
        shutil.copy(f, fresh)
    shutil.copy(openmp_lib(), fresh)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ""}
    ldd = subprocess.run(["ldd", "top5"], cwd=fresh, capture_output=True, text=True, env=env)
    assert ldd.returncode == 0, ldd.stderr
    assert "python" not in ldd.stdout.lower()
    found = dict(
        (line.split("=>")[0].strip(), line.split("=>")[1].split("(")[0].strip())
        for line in ldd.stdout.splitlines()
        if "=>" in line
    )
    assert pathlib.Path(found["sq.so"]).resolve() == (fresh / "sq.so").resolve()
    libiomp5 = pathlib.Path(found["libiomp5.so"]).resolve()
    assert libiomp5 == (fresh / "libiomp5.so").resolve()  # $ORIGIN comes first
    proc = subprocess.run(
        ["./top5", "sq.params.bin", "input.bin"],
        cwd=fresh,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == _top5_lines(_python_outputs(built / "sq.so", image))


TWO_MODELS = r"""
#include <stdio.h>
#include <stdlib.h>
#include "sq.h"
#include "cls.h"
#include "clsemb.h"

static float *read_floats(const char *path, size_t n) {
  float *x = malloc(n * sizeof(float));
  FILE *f = fopen(path, "rb");
  if (!f || fread(x, sizeof(float), n, f) != n) exit(3);
  fclose(f);
  return x;
}

#define RUN(M, PARAMS, INPUT)                                                        \
  do {                                                                               \
    M##_model *m = NULL;                                                             \
    mlc_tensor_info in, out;                                                         \
    if (M##_input_info(0, &in) || M##_output_info(0, &out)) return 1;                \
    int s = PARAMS ? M##_create_from_file(PARAMS, 0, &m) : M##_create(0, &m);        \
    if (s) { fprintf(stderr, "%s\n", M##_last_error()); return 1; }                 \
    float *x = read_floats(INPUT, in.nbytes / 4), *y = malloc(out.nbytes);           \
    if (M##_set_input(m, 0, x, in.nbytes) || M##_run(m) ||                           \
        M##_get_output(m, 0, y, out.nbytes)) return 2;                               \
    printf("%s %s", #M, in.name);                                                    \
    for (size_t i = 0; i < out.nbytes / 4; ++i) printf(" %.9g", y[i]);               \
    printf("\n");                                                                    \
    M##_free(m); free(x); free(y);                                                   \
  } while (0)

int main(void) {
  RUN(sq, "sq.params.bin", "input.bin");
  RUN(cls, "cls.params.bin", "small.bin");
  RUN(clsemb, (const char *)0, "small.bin");
  return 0;
}
"""


def test_three_models_link_into_one_program(
    built: pathlib.Path, image: np.ndarray, tmp_path: pathlib.Path
) -> None:
    """Per-model symbol prefixes: sq, cls and clsemb (params inside the library) in one
    program, every output equal to the Python runtime's."""
    small = np.random.default_rng(4).standard_normal((1, 3, 4, 4)).astype(np.float32)
    small.tofile(built / "small.bin")
    (tmp_path / "two.c").write_text(TWO_MODELS)
    exe = _cc(built, tmp_path / "two.c", "two", "-l:sq.so", "-l:cls.so", "-l:clsemb.so")
    proc = subprocess.run([str(exe)], cwd=built, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert not (built / "clsemb.params.bin").exists()
    for line, (name, so, x) in zip(
        lines,
        [
            ("sq data_0", "sq.so", image),
            ("cls x", "cls.so", small),
            ("clsemb x", "clsemb.so", small),
        ],
    ):
        expected = _python_outputs(built / so, x)
        assert line == f"{name} " + " ".join(f"{float(v):.9g}" for v in expected)
    assert len(lines) == 3


BAD_CALLS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cls.h"

#define SHOW(what, call) printf("%s %d %s\n", what, (int)(call), cls_last_error())

int main(int argc, char **argv) {
  cls_model *m = NULL;
  float x[48] = {0}, y[10];
  mlc_tensor_info info;
  int index = -1;
  SHOW("null_out", cls_create_from_file(argv[1], 0, NULL));
  SHOW("null_path", cls_create_from_file(NULL, 0, &m));
  SHOW("missing_file", cls_create_from_file("no/such/file.bin", 0, &m));
  SHOW("truncated", cls_create_from_file(argv[2], 0, &m));
  SHOW("threads", cls_create_from_file(argv[1], 3, &m));
  SHOW("negative_threads", cls_create_from_file(argv[1], -1, &m));
  SHOW("not_embedded", cls_create(0, &m));
  SHOW("memory_size", cls_create_from_memory(x, 7, 0, &m));
  SHOW("memory_null", cls_create_from_memory(NULL, 64, 0, &m));
  SHOW("info_null", cls_input_info(0, NULL));
  SHOW("info_index", cls_output_info(1, &info));
  SHOW("find_unknown", cls_find_input("nope", &index));
  SHOW("run_null", cls_run(NULL));
  SHOW("set_null_model", cls_set_input(NULL, 0, x, sizeof x));
  SHOW("ok_create", cls_create_from_file(argv[1], 0, &m));
  SHOW("run_unset", cls_run(m));
  SHOW("set_index", cls_set_input(m, 1, x, sizeof x));
  SHOW("set_size", cls_set_input(m, 0, x, sizeof x - 4));
  SHOW("set_null_data", cls_set_input(m, 0, NULL, sizeof x));
  SHOW("ok_set", cls_set_input(m, 0, x, sizeof x));
  SHOW("ok_run", cls_run(m));
  SHOW("get_size", cls_get_output(m, 0, y, sizeof y + 4));
  SHOW("get_null", cls_get_output(m, 0, NULL, sizeof y));
  SHOW("ok_get", cls_get_output(m, 0, y, sizeof y));
  SHOW("ok_find", cls_find_input("x", &index));
  /* the same params from memory, 64-byte aligned (used in place) and not (copied) */
  FILE *f = fopen(argv[1], "rb");
  unsigned char *raw = aligned_alloc(64, 1 << 16);
  size_t n = fread(raw + 64, 1, (1 << 16) - 64, f);
  fclose(f);
  for (int shift = 0; shift < 2; ++shift) {
    unsigned char *blob = raw + 64 - shift;
    if (shift) memmove(blob, raw + 64, n);
    cls_model *mm = NULL;
    float z[10];
    SHOW(shift ? "memory_unaligned" : "memory_aligned", cls_create_from_memory(blob, n, 0, &mm));
    SHOW("memory_run", cls_set_input(mm, 0, x, sizeof x) || cls_run(mm) ||
                           cls_get_output(mm, 0, z, sizeof z) || memcmp(z, y, sizeof y) != 0);
    cls_free(mm);
  }
  free(raw);
  cls_free(m);
  cls_free(NULL);
  return 0;
}
"""


def test_bad_calls_return_error_codes(built: pathlib.Path, tmp_path: pathlib.Path) -> None:
    (tmp_path / "bad.c").write_text(BAD_CALLS)
    exe = _cc(built, tmp_path / "bad.c", "bad", "-l:cls.so")
    params = (built / "cls.params.bin").read_bytes()
    (tmp_path / "short.bin").write_bytes(params[:-1])
    proc = subprocess.run(
        [str(exe), str(built / "cls.params.bin"), str(tmp_path / "short.bin")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    got = {line.split(" ", 2)[0]: line.split(" ", 2)[1:] for line in proc.stdout.splitlines()}
    expected = {  # status, a part of the message
        "null_out": (1, "out is NULL"),
        "null_path": (1, "params_path is NULL"),
        "missing_file": (3, "cannot open params file 'no/such/file.bin'"),
        "truncated": (4, f"holds {len(params) - 1} bytes; the model needs {len(params)}"),
        "threads": (2, "compiled for 1 thread and has no parallel loops, so it cannot run on 3"),
        "negative_threads": (2, "num_threads must be >= 0"),
        "not_embedded": (7, "does not embed its parameters"),
        "memory_size": (4, f"params blob of 7 bytes given; the model needs {len(params)}"),
        "memory_null": (1, "params is NULL"),
        "info_null": (1, "info is NULL"),
        "info_index": (2, "output index 1 out of range: the model has 1"),
        "find_unknown": (2, "no input named 'nope'"),
        "run_null": (1, "model is NULL"),
        "set_null_model": (1, "model is NULL"),
        "run_unset": (6, "input 0 ('x') is not set"),
        "set_index": (2, "input index 1 out of range"),
        "set_size": (2, "input 0 ('x', float32, 192 bytes) given a buffer of 188 bytes"),
        "set_null_data": (1, "data is NULL"),
        "get_size": (2, "given a buffer of 44 bytes"),
        "get_null": (1, "data is NULL"),
    }
    for what, (status, message) in expected.items():
        assert int(got[what][0]) == status and message in got[what][1], (what, got[what])
    lines = proc.stdout.splitlines()
    memory = ("memory_aligned", "memory_unaligned", "memory_run")
    assert [ln.split(" ")[:2] for ln in lines if ln.split(" ")[0] in memory] == [
        ["memory_aligned", "0"],
        ["memory_run", "0"],  # the same output as from the file
        ["memory_unaligned", "0"],
        ["memory_run", "0"],
    ]
    for what in ("ok_create", "ok_set", "ok_run", "ok_get", "ok_find"):
        assert int(got[what][0]) == 0, (what, got[what])


def test_embedded_params_load_in_python_and_are_sealed(
    built: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    x = np.random.default_rng(5).standard_normal((1, 3, 4, 4)).astype(np.float32)
    np.testing.assert_array_equal(
        _python_outputs(built / "clsemb.so", x), _python_outputs(built / "cls.so", x)
    )
    assert run_cli("mlc", "run", built / "clsemb.so", "--verify-only").returncode == 0
    # a relative library path (dlopen alone would search the library path for it)
    assert run_cli("mlc", "-q", "run", "clsemb.so", cwd=built).returncode == 0
    proc = run_cli("mlc", "compile", built / "cls.onnx", "-o", tmp_path / "p.tar", "--embed-params")
    assert proc.returncode == 4 and "--embed-params applies to a shared library" in proc.stderr
    assert os.path.getsize(built / "clsemb.so") > os.path.getsize(built / "cls.params.bin")
