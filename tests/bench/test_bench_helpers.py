"""The benchmark scripts' helpers: input feeds, error metric, failure rows, kernels, pipelines.

The scripts in bench/ are not a package; pytest puts their folder on the path. Nothing here times
anything or needs torch.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
import bench_models  # noqa: E402
import bench_patterns  # noqa: E402
import compare_commits  # noqa: E402
import compare_pipelines  # noqa: E402
import modern_models  # noqa: E402
import profile_kernels  # noqa: E402
import scaling_kernels  # noqa: E402
import scaling_models  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import mlc  # noqa: E402


def _model(nodes, inputs, outputs, initializers=()):  # type: ignore[no-untyped-def]
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_input_feed_follows_the_recorded_specs() -> None:
    model = _model(
        [helper.make_node("Identity", ["ids"], ["y"])],
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 8])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [1, 8])],
    )
    specs = {
        "ids": {"dtype": "int64", "shape": [1, 8], "fill": "randint", "high": 5},
        "mask": {"dtype": "int64", "shape": [1, 8], "fill": "ones"},
        "x": {"dtype": "float32", "shape": [2, 3], "fill": "normal"},
    }
    entry = model.metadata_props.add()
    entry.key, entry.value = modern_models.INPUTS_KEY, json.dumps(specs)
    feed = modern_models.input_feed(model)
    assert feed["ids"].dtype == np.int64 and feed["ids"].shape == (1, 8)
    assert 0 <= feed["ids"].min() and feed["ids"].max() < 5
    np.testing.assert_array_equal(feed["mask"], np.ones((1, 8), np.int64))
    assert feed["x"].dtype == np.float32 and feed["x"].shape == (2, 3)
    np.testing.assert_array_equal(modern_models.input_feed(model)["x"], feed["x"])  # seeded


def test_input_feed_without_specs_skips_initializers() -> None:
    weight = numpy_helper.from_array(np.ones((4, 2), np.float32), "w")
    model = _model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4]),
            helper.make_tensor_value_info("w", TensorProto.FLOAT, [4, 2]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])],
        [weight],
    )
    feed = modern_models.input_feed(model)
    assert list(feed) == ["x"] and feed["x"].shape == (3, 4)


def test_max_rel_error_is_over_all_outputs() -> None:
    want = [np.array([1.0, -4.0], np.float32), np.array([10.0], np.float32)]
    got = [np.array([1.0, -3.0], np.float32), np.array([10.5], np.float32)]
    assert bench_models.max_rel_error(got, want) == pytest.approx(0.25)


def test_failed_rows_print_their_one_line_error_once() -> None:
    error = bench_models.one_line(ValueError("first line\n  second line\n"))
    assert error == "ValueError: first line | second line"
    rows = [{"model": "m", "threads": t, "status": "import failed", "error": error} for t in (1, 2)]
    text = bench_models.markdown(rows, "cmd")
    assert text.count("| m | 1 | import failed |") == 1
    assert text.count("- m, import failed: `ValueError: first line | second line`") == 1


def test_suites_do_not_overlap() -> None:
    modern, holdout = modern_models.suite_names("modern"), modern_models.suite_names("holdout")
    assert len(modern) >= 8 and 5 <= len(holdout) <= 12 and not set(modern) & set(holdout)


def test_build_takes_every_suite_given() -> None:
    modern, holdout = modern_models.suite_names("modern"), modern_models.suite_names("holdout")
    assert modern_models.names_to_build([], ["modern", "holdout"]) == modern + holdout
    assert modern_models.names_to_build([holdout[0]], ["holdout"]) == holdout
    assert modern_models.names_to_build([], []) == list(modern_models.MODELS)


def test_kernels_are_classified_with_their_work() -> None:
    weight = numpy_helper.from_array(np.ones((64, 48), np.float32), "w")
    model = _model(
        [
            helper.make_node("MatMul", ["x", "w"], ["h"]),
            helper.make_node("Erf", ["h"], ["e"]),
            helper.make_node("Add", ["e", "h"], ["y"]),
            helper.make_node("Transpose", ["y"], ["t"], perm=[1, 0]),
            helper.make_node("Sigmoid", ["t"], ["s"]),
            helper.make_node("Mul", ["s", "t"], ["z"]),
        ],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [10, 64])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [48, 10])],
        [weight],
    )
    module, params = mlc.from_onnx(model)
    # AVX2's width: on 512-bit units the weights stay [K, N] and the kernels differ.
    stage = profile_kernels.graph_stage(vector_bits=256)
    mlc.PassManager.parse(stage).run(module, params=params)
    infos = {name: info for name, _, calls, info in profile_kernels.kernel_modules(module)}
    # The kernels mlc-default makes: the weights packed in panels, the product written back to
    # rows (transpose, reshape) with its erf/add diamond in the same kernel.
    assert sorted(infos) == [
        "fused_matmul_transpose_reshape_etc_0",
        "fused_transpose_sigmoid_mul_1",
    ]
    gemm = infos["fused_matmul_transpose_reshape_etc_0"]
    assert (gemm.category, gemm.detail, gemm.gemm) == (
        "gemm",
        "matmul 1x[10x64]x[64x48] +erf",
        (1, 10, 64, 48),
    )
    assert gemm.flops == 2.0 * 10 * 64 * 48 and gemm.bytes == 4 * (10 * 64 + 64 * 48 + 10 * 48)
    silu = infos["fused_transpose_sigmoid_mul_1"]
    assert (silu.category, silu.detail, silu.elements) == (
        "transcendental",
        "transpose+sigmoid+mul",
        480,
    )


def test_knob_pipelines_parse() -> None:
    text = compare_pipelines.pipeline_text("vector-bits=512,max-accumulators=28,layout-block=16")
    assert "vector-bits=512" in text and "graph-alter-layout{block=16}" in text
    mlc.PassManager.parse(text)
    assert compare_pipelines.pipeline_text("builtin.module(mlc-dce)") == "builtin.module(mlc-dce)"
    text = compare_pipelines.pipeline_text("mlc-default{widen-half=false}")
    assert text == "builtin.module(mlc-default{widen-half=false})"
    assert "graph-widen-half" not in str(mlc.PassManager.parse(text))


def test_compare_pipelines_loads_onnx_files(tmp_path: object) -> None:
    model = _model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [2])],
    )
    path = str(tmp_path / "m.onnx")  # type: ignore[operator]
    onnx.save(model, path)
    loaded = compare_pipelines.load(path)
    assert loaded.graph.node[0].op_type == "Relu"
    assert modern_models.input_feed(loaded)["x"].dtype == np.float16  # inputs in their dtype


def test_scaling_kernels_checks_every_kernel_at_two_thread_counts(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`scaling_kernels.py --check-only` splits a model into its kernels, builds each at 1 and 2
    threads and compares their outputs (it crashed when profile_kernels' graph stage became a
    function of the thread count)."""
    w = np.random.default_rng(0).standard_normal((16, 8, 3, 3), np.float32)
    model = _model(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 32, 32])],
        [numpy_helper.from_array(w, "w")],
    )  # fmt: skip
    path = tmp_path / "conv.onnx"
    onnx.save(model, str(path))
    monkeypatch.setattr(sys, "argv", ["scaling_kernels.py", str(path), "--check-only"])
    assert scaling_kernels.main() == 0
    out = capsys.readouterr().out
    assert "probe (relu, 2^17 floats)" in out and "MISMATCH" not in out


def test_scaling_row_gives_speedups_on_each_statistic() -> None:
    one, two = [0.004, 0.002, 0.003, 0.005], [0.001, 0.002, 0.0015, 0.0025]
    row = scaling_models.scaling_row("m", "mlc", one, two)
    # min 2.0/1.0 ms, q1 2.75/1.375, median 3.5/1.75: 2x on all three
    assert row == "| m | mlc | 2.0/2.8/3.5 | 1.0/1.4/1.8 | 2.00/2.00/2.00 |"


def test_scaling_models_times_both_peers_at_both_thread_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = _model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 64])],
    )
    monkeypatch.setattr(bench_models, "load_model", lambda name: model)
    fake = lambda calls, rounds, number: _fake_samples(calls, rounds * number)  # noqa: E731
    monkeypatch.setattr(scaling_models, "alternate", fake)
    rows = scaling_models.bench_scaling("relu", 2, rounds=2, number=3)
    assert [r.split(" | ")[1] for r in rows] == ["mlc", "onnxruntime"]
    assert all(r.endswith(" | 2.00/2.00/2.00 |") for r in rows)


def _fake_samples(calls, count):  # type: ignore[no-untyped-def]
    """Runs every call once (so each peer is built and fed) and makes 2 threads twice as fast."""
    assert sorted(calls) == ["mlc1", "mlc2", "ort1", "ort2"]
    for call in calls.values():
        call()
    return {k: [1e-3 / int(k[-1])] * count for k in calls}


def test_pattern_cases_are_valid_models() -> None:
    """Every bench_patterns case builds a model whose types onnx infers, with feeds for its
    inputs."""
    for name, make in bench_patterns.CASES.items():
        model, feeds = make()
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
        assert [i.name for i in model.graph.input] == list(feeds), name


def test_a_commit_tree_imports_its_own_passes(tmp_path: pathlib.Path) -> None:
    """compare_commits.package_tree: the archived commit's `mlc.passes` is the one imported,
    not the working tree's (which the editable install would supply for a bare checkout)."""
    pkg = compare_commits.package_tree("HEAD", tmp_path)
    code = "import mlc.passes.mlc_default as p, mlc.dialects as d; print(p.__file__, d.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(os.environ, PYTHONPATH=str(pkg)),
        cwd=tmp_path,  # not the repository root, whose mlc/ would come first
        capture_output=True,
        text=True,
        check=True,
    )
    assert all(path.startswith(str(pkg)) for path in out.stdout.split())


def test_3d_convs_and_pools_are_classified_with_their_work() -> None:
    """conv_nd counts its multiply-adds (it was 'elementwise' with no FLOPs); max_pool_nd is a
    pooling kernel."""
    weight = numpy_helper.from_array(np.ones((8, 4, 3, 3, 3), np.float32), "w")
    model = _model(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], pads=[1] * 6),
            helper.make_node("MaxPool", ["c"], ["y"], kernel_shape=[1, 2, 2], strides=[1, 2, 2]),
        ],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 4, 3, 3])],
        [weight],
    )
    module, params = mlc.from_onnx(model)
    # without graph-decompose-3d, which runs these as 2-D ops; deeper kernels, 4-D windows
    # and average pools with ceil_mode still reach the N-D ops
    stage = profile_kernels.graph_stage().replace("graph-decompose-3d,", "")
    mlc.PassManager.parse(stage).run(module, params=params)
    infos = [info for _, _, _, info in profile_kernels.kernel_modules(module)]
    conv = next(i for i in infos if i.detail.startswith("conv_nd"))
    assert conv.category == "conv" and conv.detail == "conv_nd 3x3x3 4->8ch g1 4x6x6"
    assert conv.flops == 2.0 * (8 * 4 * 6 * 6) * (4 * 27)
    assert any(i.category == "reduce/pool" and "max_pool_nd" in i.detail for i in infos)


def test_paired_ratio_cancels_a_drift_of_the_host_speed() -> None:
    """Both peers slow down 3x in the second half of the run: the ratio of overall medians
    would mix fast and slow rounds; the per-round ratio stays 2 (one peer twice as slow)."""
    import peers

    fast = [1.0, 1.0, 1.1, 1.0, 0.9, 1.0]
    ort = fast[:3] + [3 * t for t in fast[3:]]
    mlc_calls = [2 * t for t in fast[:3]] + [6 * t for t in fast[3:]]
    assert peers.paired_ratio(mlc_calls, ort, number=1) == pytest.approx(2.0)
    rounds_of_three = peers.paired_ratio(mlc_calls, ort, number=3)
    assert rounds_of_three == pytest.approx(2.0)
    uneven = peers.paired_ratio([1.0, 4.0, 9.0], [1.0, 2.0, 3.0], number=1)
    assert uneven == pytest.approx(2.0)  # the median of 1, 2, 3


def test_alternate_rotates_which_peer_goes_first() -> None:
    import peers

    calls: list[str] = []
    order = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    samples = peers.alternate(order, rounds=2, number=1, settle=0.0)
    assert calls == ["a", "a", "b", "b", "b", "b", "a", "a"]  # warm-up + timed call per turn
    assert len(samples["a"]) == len(samples["b"]) == 2


def test_a_dense_layer_on_a_3d_input_is_one_gemm_kernel() -> None:
    """A transformer's [1, M, K] x W + b: one kernel (packed panels written back to rows with
    the bias), described as the [M x K] x [K x N] product it computes, not as a batch of
    panels."""
    weight = numpy_helper.from_array(np.ones((64, 48), np.float32), "w")
    bias = numpy_helper.from_array(np.ones(48, np.float32), "b")
    model = _model(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 10, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10, 48])],
        [weight, bias],
    )
    module, params = mlc.from_onnx(model)
    stage = profile_kernels.graph_stage(vector_bits=256)  # packed panels (AVX2's default)
    mlc.PassManager.parse(stage).run(module, params=params)
    infos = [info for _, _, _, info in profile_kernels.kernel_modules(module)]
    assert [(i.category, i.detail, i.gemm) for i in infos] == [
        ("gemm", "matmul 1x[10x64]x[64x48]", (1, 10, 64, 48))
    ]


def test_input_feed_at_a_batch_replaces_the_leading_dim() -> None:
    specs = {
        "ids": {"dtype": "int64", "shape": [1, 8], "fill": "randint", "high": 5},
        "x": {"dtype": "float32", "shape": [1, 3], "fill": "normal"},
    }
    model = _model(
        [helper.make_node("Identity", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
    )
    assert modern_models.input_feed(model, batch=4)["x"].shape == (4, 3)  # no specs
    entry = model.metadata_props.add()
    entry.key, entry.value = modern_models.INPUTS_KEY, json.dumps(specs)
    feed = modern_models.input_feed(model, batch=8)
    assert feed["ids"].shape == (8, 8) and feed["x"].shape == (8, 3)
    assert modern_models.input_feed(model)["x"].shape == (1, 3)


def test_a_bench_model_at_batch_8_runs_its_dynamic_export(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bench_model at batch 8: the `-dyn` export, fed at batch 8, mlc compiled for batch 8
    (static shapes), outputs compared with onnxruntime's; the light zoo refuses batch 8."""
    monkeypatch.setenv("MLC_BENCH_MODELS", str(tmp_path))
    weight = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3) / 7, "w")
    model = _model(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
        [weight],
    )
    entry = model.metadata_props.add()
    specs = {"x": {"dtype": "float32", "shape": [1, 4], "fill": "normal"}}
    entry.key, entry.value = modern_models.INPUTS_KEY, json.dumps(specs)
    onnx.save(model, str(modern_models.model_path("resnet18", dynamic=True)))
    loaded, feed, shapes = bench_models.model_at_batch("resnet18", 8)
    assert feed["x"].shape == (8, 4) and shapes == {"x": [8, 4]}
    module, _ = mlc.from_onnx(loaded, shape_dict=shapes)
    assert "tensor<8x4xf32>" in str(module)  # specialized: no symbolic batch left
    row = bench_models.bench_model("resnet18", 1, rounds=1, number=1, batch=8)
    assert row["status"] == "ok" and row["batch"] == 8, row
    assert float(row["rel_error"]) < 1e-5  # type: ignore[arg-type]
    assert "(batch 8)" in bench_models.markdown([row], "cmd")
    light_name = bench_models.light_model_names()[0]
    light = bench_models.bench_model(light_name, 1, rounds=1, number=1, batch=8)
    assert light["status"] == "load failed" and "dynamic export" in str(light["error"])
