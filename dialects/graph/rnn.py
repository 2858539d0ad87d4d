"""Recurrent ops of the `graph` dialect: the time loop of one direction of ONNX RNN, GRU, LSTM.

The input projection of every time step (X W^T plus the biases that do not depend on the state)
is one matrix product computed before the loop; these ops take its result `xw` [T, B, G*H]
(G gates, ONNX gate order: `zrh` for GRU, `iofc` for LSTM) and run the recurrence, whose only
matrix product per step is H_{t-1} R^T. `rt` holds R^T [H, G*H] in column panels: [P, H, w]
with rt[p, k, n] = R^T[k, p*w + n], P*w = G*H and w dividing H (`panel_width`). R is re-read at
every step, so it should stay in L2: a panel is one contiguous block the prefetcher streams,
where rows of R^T would step a whole row per k (measured: an LSTM with hidden 256, whose R is
1 MiB, ran 4x slower that way).

One result holds every output (graph ops and fused kernels have one result): rows 0..T-1 are Y
(zero after a sequence's end), row T is the last hidden state Y_h and, for LSTM, row T+1 is the
last cell state Y_c; [T + S, B, H] in all. With `reverse`, step s reads and writes time T-1-s.
`lens` (optional, [B] integers, ONNX `sequence_lens`): steps at or after a sequence's length
keep its state and write zeros to Y. Activations are ONNX names with one alpha and beta each
(the converter resolves the defaults); `clip` > 0 bounds every gate's pre-activation.
"""

from __future__ import annotations

from .spec import AttrSpec, InferFn, OpSpec, TensorT, need, register

ACTIVATIONS = (
    "Relu",
    "Tanh",
    "Sigmoid",
    "Affine",
    "LeakyRelu",
    "ThresholdedRelu",
    "ScaledTanh",
    "HardSigmoid",
    "Elu",
    "Softsign",
    "Softplus",
)
"""The activation functions ONNX defines for its recurrent ops."""

# op name -> (gates per step, state rows after Y, number of activations, extra operands)
CELLS = {
    "rnn_recurrence": (1, 1, 1, ()),
    "gru_recurrence": (3, 1, 2, ("rbh",)),
    "lstm_recurrence": (4, 2, 3, ("c0", "p")),
}


def panel_width(hidden: int, dtype: str) -> int:
    """The panel width of `rt`: the largest divisor of `hidden` up to 256 bytes of columns
    (8 AVX2 vectors), preferring whole vectors (32 bytes); the gates then start on panels."""
    elem = 8 if dtype == "f64" else 4
    divisors = [d for d in range(1, min(hidden, 256 // elem) + 1) if hidden % d == 0]
    whole = [d for d in divisors if d * elem % 32 == 0]
    return max(whole or divisors)


def _check_activations(attrs: dict[str, object], count: int) -> None:
    acts = tuple(str(a) for a in attrs["activations"])  # type: ignore[union-attr]
    need(len(acts) == count, f"needs {count} activations, got {list(acts)}")
    for a in acts:
        need(a in ACTIVATIONS, f"activation '{a}' is not one of {', '.join(ACTIVATIONS)}")
    for key in ("activation_alpha", "activation_beta"):
        values = attrs[key]
        assert isinstance(values, tuple)
        need(len(values) == count, f"{key} needs one value per activation ({count})")
    need(float(attrs["clip"]) >= 0.0, "clip must be >= 0 (0: no clipping)")  # type: ignore[arg-type]


def _infer(name: str) -> InferFn:
    gates, rows, n_acts, extra = CELLS[name]

    def infer(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
        xw, rt, h0 = ins[0], ins[1], ins[2]
        assert xw is not None and rt is not None and h0 is not None
        need(xw.dtype in ("f32", "f64"), f"element type {xw.dtype} is not f32 or f64")
        need(xw.rank == 3, f"xw {xw} must be [T, B, {gates}*H]")
        t, b, gh = xw.shape
        need(gh % gates == 0, f"xw {xw}: the last dim must be {gates} gates x hidden size")
        need(rt.rank == 3, f"rt {rt} must be R^T in column panels [P, H, w]")
        panels, h, w = rt.shape
        need(
            panels * w == gh and gh == gates * h and h % w == 0,
            f"rt {rt} must be R^T [{gh // gates}, {gh}] in panels [P, H, w], w dividing H",
        )
        need(h0.shape == (b, h), f"h0 {h0} must be [{b}, {h}]")
        shapes = {"c0": (b, h), "p": (3 * h,), "rbh": (h,)}
        for k, key in enumerate(extra):
            got = ins[3 + k]
            need(
                got is not None and got.shape == shapes[key],
                f"{key} {got} must have shape {list(shapes[key])}",
            )
        same = {x.dtype for x in ins[: 3 + len(extra)] if x is not None}
        need(len(same) == 1, "xw, rt, h0" + "".join(f", {e}" for e in extra) + " differ in type")
        lens = ins[3 + len(extra)] if len(ins) > 3 + len(extra) else None
        if lens is not None:
            need(
                lens.shape == (b,) and lens.dtype in ("i32", "i64"),
                f"lens {lens} must be i32 or i64 of shape [{b}]",
            )
        _check_activations(attrs, n_acts)
        need(int(attrs["reverse"]) in (0, 1), "reverse must be 0 or 1")  # type: ignore[arg-type]
        return [TensorT((t + rows, b, h), xw.dtype)]

    return infer


def _common(n_acts: int) -> tuple[AttrSpec, ...]:
    return (
        AttrSpec("activations", "strs", doc=f"{n_acts} ONNX activation names"),
        AttrSpec("activation_alpha", "floats", doc="one alpha per activation"),
        AttrSpec("activation_beta", "floats", doc="one beta per activation"),
        AttrSpec("clip", "float", 0.0, "bound of the gate pre-activations; 0: no clipping"),
        AttrSpec("reverse", "int", 0, "1: step s processes time T-1-s"),
    )


register(
    OpSpec(
        "rnn_recurrence",
        ("xw", "rt", "h0", "lens?"),
        _common(1),
        "Simple RNN time loop: H_t = f(xw_t + H_{t-1} R^T); result [Y; Y_h].",
        "nn",
        _infer("rnn_recurrence"),
        "RNN",
        kind="compute",
    ),
    OpSpec(
        "gru_recurrence",
        ("xw", "rt", "h0", "rbh", "lens?"),
        _common(2) + (AttrSpec("linear_before_reset", "int", 0),),
        "GRU time loop (gates zrh; rbh: the recurrence bias of h); result [Y; Y_h].",
        "nn",
        _infer("gru_recurrence"),
        "GRU",
        kind="compute",
    ),
    OpSpec(
        "lstm_recurrence",
        ("xw", "rt", "h0", "c0", "p", "lens?"),
        _common(3) + (AttrSpec("input_forget", "int", 0),),
        "LSTM time loop (gates iofc, peepholes p = [Pi, Po, Pf]); result [Y; Y_h; Y_c].",
        "nn",
        _infer("lstm_recurrence"),
        "LSTM",
        kind="compute",
    ),
)
