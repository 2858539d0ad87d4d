"""One package for every size (issue 28): an ONNX model with symbolic batch and seq compiles once
(`mlc compile` without --input-shapes, or `mlc.build` with ranges) and runs at each admissible
size through GraphModule and `mlc run`; a size its code was not compiled for is refused, never
run. The model reads `table[:seq]` of a 512-row table, so seq <= 512 is a run-time check, or
a bound when --input-shapes gives one."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import tarfile

import numpy as np
import onnx
import pytest

import mlc
from helpers import symbolic_module as sm
from mlc.driver import _main
from mlc.npz import npz_bytes
from mlc.runtime import GraphModule, load_module
from mlc.runtime.shapes import ShapeError


def _manifest(package: pathlib.Path) -> dict:
    with tarfile.open(package) as tar:
        return json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]


def _inputs(batch: int, seq: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(batch * 1000 + seq)
    return {
        "x": rng.standard_normal((batch, seq)).astype(np.float32),
        "mask": rng.standard_normal((batch, seq)).astype(np.float32),
    }


@pytest.fixture(scope="module")
def unbounded(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("dyn")
    onnx.save(sm.table_model(), d / "table.onnx")
    assert _main(["-q", "compile", str(d / "table.onnx"), "-o", str(d / "table.tar")]) == 0
    return d / "table.tar"


def test_compiled_once_without_shapes_it_runs_at_every_size(unbounded: pathlib.Path) -> None:
    m = _manifest(unbounded)
    assert m["inputs"][0]["shape"] == ["batch", "seq"]
    assert m["shape_checks"] == ["min(512, seq) == seq"] and "symbols" not in m
    gm = GraphModule(load_module(unbounded))
    for batch, seq in ((1, 1), (2, 7), (3, 13), (1, 64), (2, 512), (2, 7)):
        inputs = _inputs(batch, seq)
        gm.run(**inputs)
        np.testing.assert_allclose(
            gm.get_output(0), sm.table_reference(**inputs), rtol=1e-6, atol=1e-6
        )
    with pytest.raises(ShapeError, match=r"shape check 'min\(512, seq\) == seq' \(512 != 513"):
        gm.run(**_inputs(1, 513))


def test_mlc_run_takes_any_size(unbounded: pathlib.Path, tmp_path: pathlib.Path, capsys) -> None:
    inputs = _inputs(3, 11)
    (tmp_path / "in.npz").write_bytes(npz_bytes(inputs))
    argv = [
        "run",
        str(unbounded),
        "--inputs",
        str(tmp_path / "in.npz"),
        "-o",
        str(tmp_path / "o.npz"),
    ]
    assert _main(argv) == 0, capsys.readouterr().err
    with np.load(tmp_path / "o.npz") as got:
        np.testing.assert_allclose(got["y"], sm.table_reference(**inputs), rtol=1e-6, atol=1e-6)


def test_mlc_run_refuses_a_length_past_the_table_naming_the_dim(
    unbounded: pathlib.Path, tmp_path: pathlib.Path, capsys
) -> None:
    (tmp_path / "long.npz").write_bytes(npz_bytes(_inputs(1, 513)))
    argv = ["run", str(unbounded), "--inputs", str(tmp_path / "long.npz")]
    assert _main([*argv, "-o", str(tmp_path / "o.npz")]) != 0
    err = capsys.readouterr().err
    assert "shape check 'min(512, seq) == seq' (512 != 513 with seq = 513)" in err
    assert "Traceback" not in err and not (tmp_path / "o.npz").exists()


def test_ranges_bound_the_package(tmp_path: pathlib.Path) -> None:
    bounds = {"x": ["1..4", "1..512"], "mask": ["1..4", "1..512"]}
    module, params = mlc.from_onnx(sm.table_model(), shape_dict=bounds)
    lib = mlc.build(module, params)
    assert lib.manifest.symbols == {"batch": (1, 4), "seq": (1, 512)}
    assert lib.manifest.shape_checks == ()  # seq <= 512 is a bound now
    gm = GraphModule(load_module(lib.export_library(tmp_path / "b.tar")))
    for batch, seq in ((1, 5), (4, 512)):
        inputs = _inputs(batch, seq)
        gm.run(**inputs)
        np.testing.assert_allclose(
            gm.get_output(0), sm.table_reference(**inputs), rtol=1e-6, atol=1e-6
        )
    with pytest.raises(
        ShapeError, match=r"'x' axis 0 \(the dim 'batch'\) is 5, outside the bounds"
    ):
        gm.run(**_inputs(5, 3))


C_PROGRAM = r"""
#include <stdio.h>
#include "tbl.h"
int main(void) {
  tbl_model *m;
  if (tbl_create(0, &m)) return printf("%s\n", tbl_last_error()), 1;
  int sizes[][2] = {{1, 7}, {2, 300}, {1, 512}, {1, 513}};
  static float x[2 * 600], y[2 * 600];
  for (int t = 0; t < 4; ++t) {
    int b = sizes[t][0], s = sizes[t][1];
    int64_t dims[2] = {b, s}, out[2] = {0, 0};
    for (int i = 0; i < b * s; ++i) x[i] = (float)(i % s);
    int st = tbl_set_input_shape(m, 0, dims, 2);
    if (!st) st = tbl_set_input_shape(m, 1, dims, 2);
    if (!st) st = tbl_set_input(m, 0, x, sizeof(float) * b * s);
    if (!st) st = tbl_set_input(m, 1, x, sizeof(float) * b * s);
    if (!st) st = tbl_run(m);
    if (!st) st = tbl_get_output_shape(m, 0, out, 2);
    if (!st) st = tbl_get_output(m, 0, y, sizeof(float) * out[0] * out[1]);
    if (st) { printf("error %d %s\n", st, tbl_last_error()); continue; }
    printf("%lld %lld", (long long)out[0], (long long)out[1]);
    for (int i = 0; i < b * s; ++i) printf(" %.9g", y[i]);
    printf("\n");
  }
  tbl_free(m);
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_the_c_api_runs_the_compiled_model_at_every_size(tmp_path: pathlib.Path) -> None:
    onnx.save(sm.table_model(), tmp_path / "table.onnx")
    argv = ["-q", "compile", str(tmp_path / "table.onnx"), "-o", str(tmp_path / "tbl.so")]
    assert _main([*argv, "--entry-name", "tbl", "--embed-params"]) == 0
    (tmp_path / "main.c").write_text(C_PROGRAM)
    cmd = ["cc", "-O2", "-Wall", "-Werror", f"-I{tmp_path}", str(tmp_path / "main.c"), "-o"]
    cmd += [str(tmp_path / "main"), f"-L{tmp_path}", "-l:tbl.so", "-Wl,-rpath,$ORIGIN"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True).stdout
    *runs, last = lines.splitlines()
    for line, (batch, seq) in zip(runs, ((1, 7), (2, 300), (1, 512)), strict=True):
        rows, cols, *values = line.split()
        assert (int(rows), int(cols)) == (batch, seq)
        x = np.tile(np.arange(seq, dtype=np.float32), (batch, 1))
        got = np.array(values, dtype=np.float32).reshape(batch, seq)
        np.testing.assert_allclose(got, sm.table_reference(x, x), rtol=1e-6, atol=1e-6)
    assert last == (
        "error 8 the inputs fail the model's shape check 'min(512, seq) == seq' (512 != 513): "
        "the model cannot run at these sizes"
    )


def test_an_encoder_layer_compiled_once_matches_onnxruntime_at_every_size() -> None:
    """Attention with a padding mask, GELU, LayerNorm and position ids over symbolic batch and
    seq, bounded by the 32-row position table: one build, five sizes."""
    ort = pytest.importorskip("onnxruntime")
    from helpers.onnx_models import encoder_layer

    model = encoder_layer()
    for value in model.graph.input:
        dims = value.type.tensor_type.shape.dim
        for axis, name in ((0, "batch"), (1, "seq")):
            dims[axis].ClearField("dim_value")
            dims[axis].dim_param = name
    for value in model.graph.output:
        value.type.tensor_type.ClearField("shape")
    bounds = {"hidden": ["1..4", "1..32", 16], "attention_mask": ["1..4", "1..32"]}
    module, params = mlc.from_onnx(model, shape_dict=bounds)
    gm = GraphModule(mlc.build(module, params).jit())
    assert gm.get_input_info()["hidden"].shape == ("batch", "seq", 16)
    session = ort.InferenceSession(model.SerializeToString())
    rng = np.random.default_rng(28)
    for batch, seq in ((1, 1), (2, 7), (3, 13), (4, 32), (2, 5)):
        feeds = {
            "hidden": rng.standard_normal((batch, seq, 16)).astype(np.float32),
            "attention_mask": (rng.random((batch, seq)) < 0.8).astype(np.int64),
        }
        feeds["attention_mask"][:, 0] = 1
        gm.run(**feeds)
        for i, expected in enumerate(session.run(None, feeds)):
            np.testing.assert_allclose(gm.get_output(i), expected, rtol=1e-3, atol=1e-5)
    with pytest.raises(ShapeError, match=r"the dim 'seq'\) is 33, outside the bounds \[1, 32\]"):
        gm.run(hidden=np.zeros((1, 33, 16), np.float32), attention_mask=np.ones((1, 33), np.int64))
