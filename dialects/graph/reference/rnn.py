"""Reference implementations of the recurrent ops: the ONNX equations, one time step at a time."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..spec import TensorT
from .core import reference

Act = Callable[[np.ndarray], np.ndarray]


def activation(name: str, alpha: float, beta: float) -> Act:
    """The ONNX recurrent-op activation `name` with its alpha and beta."""
    table: dict[str, Act] = {
        "Relu": lambda x: np.maximum(x, 0),
        "Tanh": np.tanh,
        "Sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "Affine": lambda x: alpha * x + beta,
        "LeakyRelu": lambda x: np.where(x >= 0, x, alpha * x),
        "ThresholdedRelu": lambda x: np.where(x > alpha, x, 0),
        "ScaledTanh": lambda x: alpha * np.tanh(beta * x),
        "HardSigmoid": lambda x: np.clip(alpha * x + beta, 0, 1),
        "Elu": lambda x: np.where(x >= 0, x, alpha * np.expm1(x)),
        "Softsign": lambda x: x / (1 + np.abs(x)),
        "Softplus": lambda x: np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))),
    }
    fn = table[name]

    def typed(x: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.asarray(fn(x), dtype=x.dtype)

    return typed


def _activations(attrs: dict[str, object]) -> list[Act]:
    names, alphas, betas = attrs["activations"], attrs["activation_alpha"], attrs["activation_beta"]
    return [activation(str(n), float(a), float(b)) for n, a, b in zip(names, alphas, betas)]  # type: ignore[call-overload]


class _Loop:
    """The time loop shared by the three cells: step order, masking, the packed result."""

    def __init__(self, ins: list[np.ndarray], attrs: dict[str, object], extra: int) -> None:
        self.xw = ins[0]
        panels, self.h, width = ins[1].shape
        self.rt = ins[1].transpose(1, 0, 2).reshape(self.h, panels * width)  # unpacked R^T
        self.t, self.b, _ = self.xw.shape
        self.lens = ins[3 + extra] if len(ins) > 3 + extra else None
        self.reverse = bool(attrs["reverse"])
        clip = float(attrs["clip"])  # type: ignore[arg-type]
        self.clip: Act = (lambda x: np.clip(x, -clip, clip)) if clip > 0 else (lambda x: x)
        self.acts = _activations(attrs)
        self.y = np.zeros((self.t, self.b, self.h), self.xw.dtype)

    def steps(self) -> list[tuple[int, np.ndarray]]:
        """(time, rows of the batch still running) for every step, in processing order."""
        out = []
        for s in range(self.t):
            t = self.t - 1 - s if self.reverse else s
            valid = np.ones(self.b, bool) if self.lens is None else s < self.lens
            out.append((t, valid[:, None]))
        return out

    def gate(self, t: int, g: int) -> np.ndarray:
        return self.xw[t, :, g * self.h : (g + 1) * self.h]

    def rec(self, h: np.ndarray, g: int) -> np.ndarray:
        return h @ self.rt[:, g * self.h : (g + 1) * self.h]

    def result(self, *states: np.ndarray) -> np.ndarray:
        return np.concatenate([self.y, *[s[None] for s in states]], axis=0)


@reference("rnn_recurrence")
def rnn_recurrence(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    loop = _Loop(ins, attrs, 0)
    (f,) = loop.acts
    h = ins[2].copy()
    for t, valid in loop.steps():
        new = f(loop.clip(loop.gate(t, 0) + loop.rec(h, 0)))
        loop.y[t] = np.where(valid, new, 0)
        h = np.where(valid, new, h)
    return loop.result(h)


@reference("gru_recurrence")
def gru_recurrence(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    loop = _Loop(ins, attrs, 1)
    f, g = loop.acts
    h, rbh = ins[2].copy(), ins[3]
    for t, valid in loop.steps():
        z = f(loop.clip(loop.gate(t, 0) + loop.rec(h, 0)))
        r = f(loop.clip(loop.gate(t, 1) + loop.rec(h, 1)))
        if attrs["linear_before_reset"]:
            pre = loop.gate(t, 2) + r * (loop.rec(h, 2) + rbh)
        else:
            pre = loop.gate(t, 2) + loop.rec(r * h, 2) + rbh
        new = (1 - z) * g(loop.clip(pre)) + z * h
        loop.y[t] = np.where(valid, new, 0)
        h = np.where(valid, new, h)
    return loop.result(h)


@reference("lstm_recurrence")
def lstm_recurrence(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    loop = _Loop(ins, attrs, 2)
    f, g, hf = loop.acts
    h, c, p = ins[2].copy(), ins[3].copy(), ins[4]
    pi, po, pf = p[: loop.h], p[loop.h : 2 * loop.h], p[2 * loop.h :]
    for t, valid in loop.steps():
        i = f(loop.clip(loop.gate(t, 0) + loop.rec(h, 0) + pi * c))
        if attrs["input_forget"]:
            fg = 1 - i
        else:
            fg = f(loop.clip(loop.gate(t, 2) + loop.rec(h, 2) + pf * c))
        c_new = fg * c + i * g(loop.clip(loop.gate(t, 3) + loop.rec(h, 3)))
        o = f(loop.clip(loop.gate(t, 1) + loop.rec(h, 1) + po * c_new))
        new = o * hf(c_new)
        loop.y[t] = np.where(valid, new, 0)
        h = np.where(valid, new, h)
        c = np.where(valid, c_new, c)
    return loop.result(h, c)
