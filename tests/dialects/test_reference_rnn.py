"""Reference interpreter: the recurrent ops against single ONNX RNN/GRU/LSTM nodes run by
onnxruntime, and their shape rules.

Each case feeds one ONNX node and derives the graph op's operands from the same arrays as the
op's contract states them (xw = X W^T + state-free biases, rt = R^T in column panels), so the
time loop itself is what is compared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from helpers.onnx_testing import node_model, run_ort
from mlc.dialects.graph.reference import evaluate
from mlc.dialects.graph.rnn import panel_width
from mlc.dialects.graph.spec import OPS, ShapeError, TensorT

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
OP = {"RNN": "rnn_recurrence", "GRU": "gru_recurrence", "LSTM": "lstm_recurrence"}
DEFAULT_ACTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}
T, B, IN, H = 5, 3, 4, 8  # steps, batch, input size, hidden size


class RnnCase:
    """One direction of an ONNX recurrent node against the graph op (`op` as the oracle tables
    of the other reference tests name it). A plain class: the completeness test loads this
    module under a private name, where dataclasses cannot resolve their annotations."""

    def __init__(
        self,
        cell: str,
        id: str,
        *,
        reverse: bool = False,
        lens: list[int] | None = None,
        acts: list[tuple[str, float, float]] | None = None,
        clip: float = 0.0,
        extra: dict[str, int] | None = None,
        peepholes: bool = False,
    ) -> None:
        self.cell, self.id, self.reverse, self.lens = cell, id, reverse, lens
        self.acts, self.clip, self.extra, self.peepholes = acts, clip, extra or {}, peepholes
        self.op = OP[cell]

    def __str__(self) -> str:
        return self.id


CASES = [
    RnnCase("RNN", "rnn_forward"),
    RnnCase("RNN", "rnn_reverse_clip", reverse=True, clip=0.4),
    RnnCase("RNN", "rnn_lens", lens=[5, 2, 3]),
    RnnCase("RNN", "rnn_relu", acts=[("Relu", 0, 0)]),
    RnnCase("GRU", "gru_forward"),
    RnnCase("GRU", "gru_linear_before_reset_reverse", reverse=True, extra={"lbr": 1}),
    RnnCase("GRU", "gru_lens_clip", lens=[1, 5, 4], clip=0.3),
    RnnCase("GRU", "gru_hard_sigmoid_elu", acts=[("HardSigmoid", 0.3, 0.4), ("Elu", 0.7, 0)]),
    RnnCase("LSTM", "lstm_forward"),
    RnnCase("LSTM", "lstm_peepholes_reverse", reverse=True, peepholes=True),
    RnnCase("LSTM", "lstm_input_forget_lens", lens=[3, 5, 1], extra={"input_forget": 1}),
    RnnCase(
        "LSTM",
        "lstm_activations_clip",
        acts=[("Sigmoid", 0, 0), ("ScaledTanh", 0.8, 1.2), ("Softsign", 0, 0)],
        clip=0.5,
        peepholes=True,
    ),
]


def _onnx_attrs(case: RnnCase) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "hidden_size": H,
        "direction": "reverse" if case.reverse else "forward",
    }
    if case.clip:
        attrs["clip"] = case.clip
    if case.acts:
        attrs["activations"] = [a[0] for a in case.acts]
        takes = {"ScaledTanh", "HardSigmoid", "Elu", "LeakyRelu", "Affine", "ThresholdedRelu"}
        alphas = [a[1] for a in case.acts if a[0] in takes]
        if alphas:
            attrs["activation_alpha"] = alphas
        betas = [a[2] for a in case.acts if a[0] in ("ScaledTanh", "HardSigmoid", "Affine")]
        if betas:
            attrs["activation_beta"] = betas
    if "lbr" in case.extra:
        attrs["linear_before_reset"] = case.extra["lbr"]
    if "input_forget" in case.extra:
        attrs["input_forget"] = case.extra["input_forget"]
    return attrs


def _arrays(case: RnnCase) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(len(case.id))
    g = GATES[case.cell]
    arrays = {
        "X": rng.uniform(-1, 1, (T, B, IN)),
        "W": rng.uniform(-0.6, 0.6, (1, g * H, IN)),
        "R": rng.uniform(-0.6, 0.6, (1, g * H, H)),
        "B": rng.uniform(-0.5, 0.5, (1, 2 * g * H)),
        "initial_h": rng.uniform(-1, 1, (1, B, H)),
    }
    if case.cell == "LSTM":
        arrays["initial_c"] = rng.uniform(-1, 1, (1, B, H))
        arrays["P"] = rng.uniform(-0.5, 0.5, (1, 3 * H)) * case.peepholes
    return {k: v.astype(np.float32) for k, v in arrays.items()}


def _graph_operands(case: RnnCase, a: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The op's operands from the ONNX inputs, as its contract defines them."""
    gh = GATES[case.cell] * H
    wb, rb = a["B"][0, :gh], a["B"][0, gh:]
    state_free = wb + rb
    if case.cell == "GRU":
        state_free = wb + np.concatenate([rb[: 2 * H], np.zeros(H, np.float32)])
    xw = a["X"] @ a["W"][0].T + state_free
    w = panel_width(H, "f32")
    rt = a["R"][0].reshape(gh // w, w, H).transpose(0, 2, 1)
    ops = [xw, np.ascontiguousarray(rt), a["initial_h"][0]]
    if case.cell == "GRU":
        ops.append(rb[2 * H :])
    if case.cell == "LSTM":
        ops += [a["initial_c"][0], a["P"][0]]
    if case.lens is not None:
        ops.append(np.array(case.lens, np.int32))
    return ops


@pytest.mark.parametrize("case", CASES, ids=str)
def test_recurrence_matches_onnxruntime(case: RnnCase) -> None:
    a = _arrays(case)
    names = ["X", "W", "R", "B", "lens" if case.lens else "", "initial_h"]
    if case.cell == "LSTM":
        names += ["initial_c", "P"]
    feeds = {k: v for k, v in a.items() if k in names}
    consts = {"lens": np.array(case.lens, np.int32)} if case.lens else None
    outs = ["Y", "Y_h"] + (["Y_c"] if case.cell == "LSTM" else [])
    model = node_model(
        case.cell, feeds, consts=consts, opset=14, outputs=outs, order=names, **_onnx_attrs(case)
    )
    expected = run_ort(model, feeds)
    acts = case.acts or [(n, 0.0, 0.0) for n in DEFAULT_ACTS[case.cell]]
    attrs: dict[str, Any] = {
        "activations": tuple(n for n, _, _ in acts),
        "activation_alpha": tuple(float(x) for _, x, _ in acts),
        "activation_beta": tuple(float(x) for _, _, x in acts),
        "clip": case.clip,
        "reverse": int(case.reverse),
    }
    if case.cell == "GRU":
        attrs["linear_before_reset"] = case.extra.get("lbr", 0)
    if case.cell == "LSTM":
        attrs["input_forget"] = case.extra.get("input_forget", 0)
    rows = 2 if case.cell == "LSTM" else 1
    got = evaluate(case.op, _graph_operands(case, a), attrs, TensorT((T + rows, B, H), "f32"))
    np.testing.assert_allclose(got[:T], expected[0][:, 0], rtol=1e-5, atol=1e-6)
    for k in range(rows):
        np.testing.assert_allclose(got[T + k], expected[1 + k][0], rtol=1e-5, atol=1e-6)
    assert np.abs(got[:T]).max() > 0.05  # not a degenerate all-zero sequence


def _infer(op: str, shapes: list[tuple[int, ...] | None], **attrs: Any) -> list[TensorT]:
    n_acts = {"rnn_recurrence": 1, "gru_recurrence": 2, "lstm_recurrence": 3}[op]
    full: dict[str, Any] = {
        "activations": ("Tanh",) * n_acts,
        "activation_alpha": (0.0,) * n_acts,
        "activation_beta": (0.0,) * n_acts,
        "clip": 0.0,
        "reverse": 0,
        **attrs,
    }
    fixed = {"rnn_recurrence": 3, "gru_recurrence": 4, "lstm_recurrence": 5}[op]
    types = [
        None if s is None else TensorT(s, "i32" if k >= fixed else "f32")
        for k, s in enumerate(shapes)
    ]
    return OPS[op].infer(types, full)


def test_result_packs_y_and_the_final_states() -> None:
    assert _infer("rnn_recurrence", [(7, 2, 16), (2, 16, 8), (2, 16)]) == [
        TensorT((8, 2, 16), "f32")
    ]
    lstm = _infer("lstm_recurrence", [(7, 2, 64), (4, 16, 16), (2, 16), (2, 16), (48,), (2,)])
    assert lstm == [TensorT((9, 2, 16), "f32")]


@pytest.mark.parametrize(
    "shapes,attrs,message",
    [
        ([(7, 2, 16), (16, 16), (2, 16)], {}, "column panels"),
        ([(7, 2, 16), (3, 16, 5), (2, 16)], {}, "w dividing H"),
        ([(7, 2, 16), (2, 16, 8), (3, 16)], {}, r"h0 .* must be \[2, 16\]"),
        ([(7, 2, 16), (2, 16, 8), (2, 16), (3,)], {}, "lens"),
        ([(7, 2, 16), (2, 16, 8), (2, 16)], {"activations": ("Gelu",)}, "not one of"),
        ([(7, 2, 16), (2, 16, 8), (2, 16)], {"activation_alpha": ()}, "one value per"),
        ([(7, 2, 16), (2, 16, 8), (2, 16)], {"clip": -1.0}, "clip must be >= 0"),
    ],
)
def test_shape_rule_errors(
    shapes: list[tuple[int, ...]], attrs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ShapeError, match=message):
        _infer("rnn_recurrence", shapes, **attrs)


def test_panel_width_prefers_whole_vectors() -> None:
    assert panel_width(256, "f32") == 64 and panel_width(256, "f64") == 32
    assert panel_width(20, "f32") == 20  # no multiple of 8 divides 20: the whole of it
    assert panel_width(24, "f32") == 24 and panel_width(5, "f32") == 5
    assert panel_width(100, "f32") == 50
