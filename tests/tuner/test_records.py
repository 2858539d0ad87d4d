"""Tuning records: workload keys, parsing errors, best-record selection, and applying records
through `mlc compile --tuning-records` (schedules change, numbers do not)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from mlir import ir

import mlc
from mlc.dialects.tp import BlockView
from mlc.dialects.walk import walk
from mlc.errors import MlcError
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.target import host_target
from mlc.tuner.records import (
    Record,
    RecordError,
    best_records,
    load_records,
    parse_record,
    read_records,
    target_dict,
    workload_key,
    workloads,
)

KERNEL = """
func.func @{name}(%A: memref<16xf32>, %O: memref<16xf32>) attributes {{tp.kernel}} {{
  "tp.block"(%O) ({{
    %a = "tp.read"(%A) {{map = affine_map<(i) -> (i)>}} : (memref<16xf32>) -> f32
    %e = math.{fn} %a : f32
    gpu.yield %e : f32
  }}) {{name = "b", axes = ["i"], kinds = "S", extents = array<i64: 16>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {sched}}} : (memref<16xf32>) -> ()
  return
}}
"""


def _keys(text: str) -> list[str]:
    module = ir.Module.parse(text, mlc.Context())
    return [k for k, _, _ in workloads(module.operation)]


def test_workload_key_ignores_name_and_schedule_but_not_computation() -> None:
    a = _keys(KERNEL.format(name="x", fn="exp", sched="{}"))[0]
    b = _keys(KERNEL.format(name="y", fn="exp", sched='{vectorize = "i"}'))[0]
    c = _keys(KERNEL.format(name="x", fn="log", sched="{}"))[0]
    assert a == b != c
    module = ir.Module.parse(
        KERNEL.format(name="x", fn="exp", sched='{vectorize = "i"}'), mlc.Context()
    )
    kernel = module.body.operations[0].operation
    workload_key(kernel)
    assert 'vectorize = "i"' in str(module)  # the key is computed on a clone


@pytest.mark.parametrize(
    "line, message",
    [
        ("not json", "not a JSON object"),
        ("[1, 2]", "must be a JSON object"),
        (
            '{"schema": 1, "workload": "w", "block": "b", "schedule": "{}", "cost_ms": 1}',
            "schema 1 is not 2; re-tune",
        ),
        (
            '{"schema": 2, "workload": "w", "block": "b", "schedule": "{}", "cost_ms": 1, "x": 0}',
            "unknown field(s) ['x']",
        ),
        (
            '{"schema": 2, "workload": "w", "block": "b"}',
            "missing field(s) ['cost_ms', 'schedule']",
        ),
        (
            '{"schema": 2, "workload": "w", "block": "b", "schedule": "{}", "cost_ms": -1}',
            "cost_ms must be a positive number or null",
        ),
        (
            '{"schema": 2, "workload": "w", "block": "b", "schedule": "{}", "cost_ms": 1, '
            '"threads": "2"}',
            "field 'threads' has the wrong type (str)",
        ),
    ],
)
def test_bad_records_name_the_line(line: str, message: str) -> None:
    with pytest.raises(
        RecordError,
        match=message.replace("[", r"\[")
        .replace("]", r"\]")
        .replace("(", r"\(")
        .replace(")", r"\)"),
    ):
        parse_record(line, "log.jsonl:7")


def test_best_record_per_workload_and_block(tmp_path: pathlib.Path) -> None:
    here = target_dict(host_target())
    other = dict(here, cpu="another-cpu")
    records = [
        Record("w", "b", "{}", 3.0, target=here),
        Record("w", "b", '{vectorize = "i"}', 1.0, target=here),
        Record("w", "b", '{unroll = {"i" = 2}}', 0.5, target=here, threads=2),
        Record("w", "b", '{unroll = {"i" = 4}}', 0.2, target=other),
        Record("w", "b", '{unroll = {"i" = 8}}', None, target=here, error="run: crashed"),
        Record("w", "c", "{}", 5.0, target=here),
        Record("v", "b", "{}", 0.5, target=here, costs_ms=(0.6, 0.7), reference_ms=(0.6, 0.6)),
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(r.to_json() for r in records) + "\n\n")
    best = best_records(load_records(path), target=host_target(), threads=1)
    assert best[("w", "b")].cost_ms == 1.0 and best[("w", "c")].cost_ms == 5.0 and len(best) == 3
    assert best_records(records, target=host_target(), threads=2)[("w", "b")].cost_ms == 0.5
    assert best_records(records)[("w", "b")].cost_ms == 0.2  # no filter: any target
    assert json.loads(records[0].to_json())["schema"] == 2
    assert load_records(path) == records  # a round trip keeps every field
    assert "reference_ms" not in json.loads(records[0].to_json())  # older readers parse it
    assert json.loads(records[-1].to_json())["reference_ms"] == [0.6, 0.6]


def test_an_incomplete_last_line_is_reported_not_fatal(tmp_path: pathlib.Path) -> None:
    good = Record("w", "b", "{}", 1.0).to_json()
    path = tmp_path / "log.jsonl"
    path.write_text(good + "\n" + good[: len(good) // 2])  # a run killed while writing
    log = read_records(path)
    assert len(log.records) == 1 and log.where(0).endswith("log.jsonl:1")
    assert len(log.problems) == 1 and "log.jsonl:2" in log.problems[0]
    assert "incomplete last line" in log.problems[0]
    with pytest.raises(RecordError, match="log.jsonl:2"):
        load_records(path)


def test_compile_with_tuning_records(tmp_path: pathlib.Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    b = rng.standard_normal((64, 40)).astype(np.float32)  # 40 columns: no weight panels
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["y"])],
        "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [24, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [24, 40])],
        [numpy_helper.from_array(b, "b")],
    )
    model = tmp_path / "mm.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(model))
    # Find the matmul kernel's workload, then record a schedule the default would not choose.
    module, params = mlc.from_onnx(model)
    graph_stage = MlcDefaultPipeline().stages()[0]  # the compile's own graph passes
    mlc.PassManager.parse(f"builtin.module({graph_stage},graph-to-tp)").run(module, params=params)
    ((key, name, kernel),) = workloads(module.operation)
    block = BlockView(next(op for op in walk(kernel) if op.name == "tp.block"))
    schedule = (
        '{tile = {s0 = array<i64: 3>}, order = ["s0.0", "s1", "k", "s0.1"], unroll = {"s0.1" = 3}}'
    )
    log = tmp_path / "log.jsonl"
    log.write_text(
        Record(
            key, block.name, schedule, 0.1, kernel=name, target=target_dict(host_target())
        ).to_json()
        + "\n"
    )
    temps = tmp_path / "temps"
    lib = mlc.build(*mlc.from_onnx(model), tuning_records=str(log), save_temps=str(temps))
    scheduled = next(p for p in sorted(temps.glob("*tp-default-schedule*.mlir")))
    assert 'order = ["s0.0", "s1", "k", "s0.1"]' in scheduled.read_text()
    from mlc.runtime import GraphModule

    gm = GraphModule(lib.jit())
    a = rng.standard_normal((24, 64)).astype(np.float32)
    gm.run(a=a)
    np.testing.assert_allclose(gm.get_output(0), a @ b, rtol=1e-4, atol=1e-4)
    with pytest.raises(MlcError, match="do not exist"):
        mlc.build(*mlc.from_onnx(model), tuning_records=str(tmp_path / "missing.jsonl"))
