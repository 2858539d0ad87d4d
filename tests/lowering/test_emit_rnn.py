"""Recurrent ops lowered to an scf.for over time steps around tp blocks: compiled results against
the reference interpreter (graph level) and onnxruntime (whole ONNX nodes), the loop structure,
and the schedules of the per-step H R^T."""

from __future__ import annotations

import re

import numpy as np
import pytest
from mlir import ir

import mlc
from helpers.graph_exec import PIPELINE, SCHEDULED, lower_to_tp, run_graph
from helpers.onnx_testing import run_ort
from helpers.recurrent_models import recurrent_model
from mlc.dialects.graph import builders as g
from mlc.dialects.graph.rnn import panel_width
from mlc.frontend import from_onnx
from mlc.passes.lowering.tp_emit.rnn_step import gemm_schedule
from mlc.runtime import GraphModule

T, B, H = 4, 3, 8
GATES = {"rnn": 1, "gru": 3, "lstm": 4}


def _operands(cell: str, lens: bool, dtype: type = np.float32, hidden: int = H) -> list:
    rng = np.random.default_rng(7)
    gh = GATES[cell] * hidden
    w = panel_width(hidden, "f64" if dtype == np.float64 else "f32")
    ops = [
        rng.uniform(-1, 1, (T, B, gh)),
        rng.uniform(-0.5, 0.5, (gh // w, hidden, w)),
        rng.uniform(-1, 1, (B, hidden)),
    ]
    if cell == "gru":
        ops.append(rng.uniform(-0.5, 0.5, (hidden,)))
    if cell == "lstm":
        ops += [rng.uniform(-1, 1, (B, hidden)), rng.uniform(-0.5, 0.5, (3 * hidden,))]
    ops = [o.astype(dtype) for o in ops]
    if lens:
        ops.append(np.array([4, 1, 3], np.int32))
    return ops


def _attrs(cell: str, **extra: object) -> dict[str, object]:
    acts = {"rnn": ["Tanh"], "gru": ["Sigmoid", "Tanh"], "lstm": ["Sigmoid", "Tanh", "Tanh"]}[cell]
    attrs: dict[str, object] = {
        "activations": acts,
        "activation_alpha": [0.0] * len(acts),
        "activation_beta": [0.0] * len(acts),
    }
    return attrs | extra


CASES = [
    ("rnn", {}, False),
    ("rnn", {"reverse": 1, "clip": 0.5}, True),
    ("gru", {"linear_before_reset": 0}, True),
    ("gru", {"linear_before_reset": 1, "reverse": 1}, False),
    ("lstm", {}, True),
    ("lstm", {"input_forget": 1, "clip": 0.3, "reverse": 1}, True),
]


@pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["unscheduled", "scheduled"])
@pytest.mark.parametrize("cell,extra,lens", CASES, ids=lambda c: str(c))
def test_compiled_matches_reference(
    pipeline: str, cell: str, extra: dict[str, object], lens: bool
) -> None:
    ops = _operands(cell, lens)
    got, expected = run_graph(
        lambda *a: g.make(f"{cell}_recurrence", *a, **_attrs(cell, **extra)), ops, pipeline=pipeline
    )
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)
    assert np.abs(expected[0]).max() > 0.1


def test_double_precision_and_activations_with_parameters() -> None:
    ops = _operands("lstm", True, np.float64)
    attrs = _attrs(
        "lstm",
        activations=["HardSigmoid", "ScaledTanh", "Elu"],
        activation_alpha=[0.3, 0.8, 0.7],
        activation_beta=[0.4, 1.2, 0.0],
    )
    got, expected = run_graph(
        lambda *a: g.make("lstm_recurrence", *a, **attrs), ops, pipeline=SCHEDULED
    )
    assert got[0].dtype == np.float64
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("activation", ["Affine", "ThresholdedRelu", "LeakyRelu", "Softplus"])
def test_activations_compile(activation: str) -> None:
    attrs = _attrs("rnn", activations=[activation], activation_alpha=[0.3])
    attrs["activation_beta"] = [0.2]
    got, expected = run_graph(
        lambda *a: g.make("rnn_recurrence", *a, **attrs), _operands("rnn", False)
    )
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)


def _compile_and_compare(model: object, feeds: dict[str, np.ndarray], threads: int = 1) -> None:
    expected = run_ort(model, feeds)  # type: ignore[arg-type]
    gm = GraphModule(mlc.build(*from_onnx(model), threads=threads).jit())  # type: ignore[arg-type]
    for name, value in feeds.items():
        gm.set_input(name, value)
    gm.run()
    for k, e in enumerate(expected):
        np.testing.assert_allclose(gm.get_output(k), e, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "cell,kwargs",
    [
        ("LSTM", {"direction": "bidirectional", "lens": [5, 2, 4], "lens_input": True}),
        ("LSTM", {"batch": 4, "hidden": 16, "peepholes": True, "initial": True}),
        ("LSTM", {"batch": 7, "hidden": 5, "direction": "reverse", "clip": 0.6}),
        ("GRU", {"direction": "bidirectional", "lens": [1, 5, 3], "linear_before_reset": 1}),
        ("GRU", {"batch": 1, "hidden": 24, "initial": True}),
        ("RNN", {"direction": "reverse", "batch": 2, "activations": ["Relu"]}),
    ],
)
def test_onnx_nodes_compiled_match_onnxruntime(cell: str, kwargs: dict[str, object]) -> None:
    _compile_and_compare(*recurrent_model(cell, **kwargs))


def test_split_over_threads_when_a_step_is_large() -> None:
    """batch 4 x hidden 256: a step's H R^T has 2^20 multiply-adds, its panels go parallel."""
    model, feeds = recurrent_model("LSTM", seq=3, batch=4, input_size=8, hidden=256)
    _compile_and_compare(model, feeds, threads=2)


def _tp_text(steps: int) -> str:
    ops = _operands("lstm", False)
    ops[0] = np.zeros((steps, B, 4 * H), np.float32)
    return lower_to_tp(lambda *a: g.make("lstm_recurrence", *a, **_attrs("lstm")), ops)


def test_one_loop_whatever_the_sequence_length() -> None:
    short, long = _tp_text(3), _tp_text(200)
    for text, steps in ((short, 3), (long, 200)):
        assert len(re.findall(r"scf\.for", text)) == 1
        assert re.search(rf"%c{steps} = arith.constant {steps} : index", text)
    assert short.count('"tp.block"') == long.count('"tp.block"') == 6  # 2 initial states,
    # per step: H R^T, the cell state, the hidden state, the state copy


def test_step_views_are_rank_reduced_subviews() -> None:
    text = _tp_text(5)
    assert re.search(r"memref.subview %arg0\[%\w+, 0, 0\] \[1, 3, 32\]", text)
    assert "strided<[8, 1], offset: ?>" in text  # Y row of step s
    assert "strided<[8, 1], offset: 120>" in text  # Y_h: row T of the result, 5 * 3 * 8


@pytest.mark.parametrize(
    "batch,expected",
    [
        (1, {"order": ("p", "b", "k", "n"), "vectorize": "n"}),
        (4, {"order": ("p", "n.0", "k", "b", "n.1"), "unroll": {"b": 4}, "vectorize": "n.1"}),
        (12, {"order": ("p", "n.0", "b.0", "k", "b.1", "n.1"), "unroll": {"b.1": 6}}),
        (7, {"order": ("p", "n.0", "b", "k", "n.1")}),
    ],
)
def test_gemm_schedules(batch: int, expected: dict[str, object]) -> None:
    schedule = gemm_schedule(batch, panels=4, w=64, hidden=64, lanes=8)
    assert schedule is not None
    for key, value in expected.items():
        assert getattr(schedule, key) == value
    assert schedule.parallel == ()


def test_gemm_schedule_parallel_panels_and_narrow_panels() -> None:
    big = gemm_schedule(1, panels=16, w=64, hidden=1024, lanes=8)
    assert big is not None and big.parallel == ("p",)
    assert gemm_schedule(2, panels=3, w=5, hidden=5, lanes=8) is None  # the default decides


GEMV = """
func.func @k(%h: memref<1x256xf32>, %r: memref<256x1024xf32>, %out: memref<1x1024xf32>)
    attributes {tp.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  BLOCK
  scf.for %t = %c0 to %c3 step %c1 {
    BLOCK
  }
  return
}
"""
BLOCK = """"tp.block"(%out) ({
    %a = "tp.read"(%h) {map = affine_map<(b, n, k) -> (b, k)>} : (memref<1x256xf32>) -> f32
    %b = "tp.read"(%r) {map = affine_map<(b, n, k) -> (k, n)>} : (memref<256x1024xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "gemv", axes = ["b", "n", "k"], kinds = "SSR", extents = array<i64: 1, 1024, 256>,
      out_map = affine_map<(b, n, k) -> (b, n)>, combiner = "add", init = 0.0 : f32,
      schedule = {}} : (memref<1x1024xf32>) -> ()"""


def test_a_gemv_inside_a_loop_is_not_streamed() -> None:
    """A 1 MiB matrix read once is streamed (k outer, the output updated in memory); inside a
    loop it is re-read every iteration and gets the register tile, whose panels stay cached."""
    with mlc.Context():
        module = ir.Module.parse(GEMV.replace("BLOCK", BLOCK))
        mlc.PassManager.parse("builtin.module(tp-default-schedule)").run(module)
        text = str(module)
    once, looped = re.findall(r"schedule = (\{[^}]*\})", text)
    assert once.startswith('{order = ["b", "k", "n.0", "n.1"]')
    assert looped.startswith('{order = ["n.0", "b", "k", "n.1"]')
