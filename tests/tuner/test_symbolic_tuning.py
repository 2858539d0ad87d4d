"""Tuning a model with symbolic dims (issue 28): `mlc tune` keeps them, measures the kernels of
the one-for-every-size package at representative sizes (`--sizes`), and `mlc compile` without
`--input-shapes` applies the records to that package, which still matches onnxruntime at
every size; a kernel with run-time sizes measured alone computes its op; bad sizes are clear
errors."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from mlir import ir
from onnx import TensorProto, helper, numpy_helper

import mlc
from mlc.dialects.context import make_context
from mlc.driver import _main
from mlc.errors import MlcError
from mlc.passes.pass_manager import PassManager
from mlc.runtime import GraphModule, load_module
from mlc.runtime.library import CompiledLibrary
from mlc.tuner.harness import harness, kernel_of, lowering_pipeline
from mlc.tuner.records import read_records
from mlc.tuner.task import extract_tasks
from mlc.tuning import representative_sizes

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("xgboost")
FAST = ["--repeat", "1", "--min-repeat-ms", "0", "--parallel", "2", "--tuner", "random"]


def _model() -> object:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((64, 48)).astype(np.float32), "w")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Softmax", ["r"], ["y"], axis=-1),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 64])
    graph = helper.make_graph(nodes, "g", [x], [helper.ValueInfoProto(name="y")], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def _save(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "dyn.onnx"
    path.write_bytes(_model().SerializeToString())
    return path


def test_a_kernel_with_run_time_sizes_is_measured_alone_at_the_given_sizes() -> None:
    module, params = mlc.from_onnx(_model(), symbolic_dims=True)
    tasks = extract_tasks(module, params, sizes={"batch": 2, "seq": 11})
    softmax = next(t for t in tasks if "softmax" in t.kernel)
    assert softmax.sizes == (("batch", 2), ("seq", 11))
    assert "?x?x48xf32" in softmax.ir  # the kernel itself stays symbolic
    kernel_module = ir.Module.parse(softmax.ir, make_context())
    assert kernel_of(kernel_module) is not None
    harness(kernel_module, softmax.scratch, dict(softmax.sizes))
    pipeline = lowering_pipeline(1)
    PassManager.parse(pipeline).run(kernel_module)
    gm = GraphModule(CompiledLibrary.from_module(kernel_module, {}, pipeline=pipeline).jit())
    (spec,) = gm.manifest.inputs
    assert tuple(spec.shape) == (2, 11, 48)
    x = np.random.default_rng(1).standard_normal((2, 11, 48)).astype(np.float32)
    gm.set_input(spec.name, x)
    gm.run()
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(gm.get_output(0), e / e.sum(-1, keepdims=True), rtol=1e-5)
    # without the sizes there is nothing to measure it at: not a task
    assert not [t for t in extract_tasks(module, params) if "softmax" in t.kernel]


def test_representative_sizes_default_within_bounds_and_reject_bad_names() -> None:
    module, _ = mlc.from_onnx(_model(), symbolic_dims=True)
    assert representative_sizes(module, {}) == {"batch": 64, "seq": 64}
    assert representative_sizes(module, {"seq": 7}) == {"batch": 64, "seq": 7}
    bounded, _ = mlc.from_onnx(
        _model(), shape_dict={"x": ["1..4", "1..32", 64]}, symbolic_dims=True
    )
    assert representative_sizes(bounded, {}) == {"batch": 4, "seq": 32}
    with pytest.raises(MlcError, match=r"--sizes seq=33 is outside the bounds of 'seq' \(1..32\)"):
        representative_sizes(bounded, {"seq": 33})
    with pytest.raises(MlcError, match=r"no symbolic dim of \(its symbolic dims: batch, seq\)"):
        representative_sizes(module, {"tokens": 5})


def test_tune_at_sizes_then_one_package_for_every_size(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _save(tmp_path)
    records = tmp_path / "r.jsonl"
    argv = ["tune", str(model), "-o", str(records), "--trials", "4", "--sizes", "batch=1,seq=40"]
    assert _main([*argv, *FAST]) == 0
    out, _ = capsys.readouterr()
    assert "symbolic dims tuned at batch=1, seq=40 (--sizes)" in out
    log = read_records(records)
    assert log.records and all(r.sizes == {"batch": 1, "seq": 40} for r in log.records)
    assert all(r.ok for r in log.records)
    package = tmp_path / "m.tar"
    assert _main(["compile", str(model), "-o", str(package), "--tuning-records", str(records)]) == 0
    out, _ = capsys.readouterr()
    kernels = {r.kernel for r in log.records}
    assert f"applied tuned schedules to {len(kernels)} of " in out
    gm = GraphModule(load_module(package))
    session = ort.InferenceSession(_model().SerializeToString())
    rng = np.random.default_rng(2)
    for batch, seq in [(1, 1), (1, 40), (3, 17), (2, 75)]:
        x = rng.standard_normal((batch, seq, 64)).astype(np.float32)
        gm.run(x=x)
        (want,) = session.run(None, {"x": x})
        np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ("batch=0", "expected name=size pairs with sizes >= 1"),
        ("seq", "expected name=size pairs"),
        ("seq=4,seq=5", "'seq' is given twice"),
        ("tokens=4", "no symbolic dim of (its symbolic dims: batch, seq)"),
    ],
)
def test_bad_sizes_are_clear_errors(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], sizes: str, message: str
) -> None:
    model = _save(tmp_path)
    argv = ["tune", str(model), "-o", str(tmp_path / "r.jsonl"), "--sizes", sizes]
    try:
        code = _main([*argv, *FAST])  # a model error: mlc's exit code
    except SystemExit as e:  # a malformed flag: argparse's usage error
        code = e.code
    assert code not in (0, None)
    _, err = capsys.readouterr()
    assert message in err and "Traceback" not in err
