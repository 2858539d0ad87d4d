"""Reference implementations of the elementwise ops of the `graph` dialect (ONNX semantics)."""

from __future__ import annotations

import math

import numpy as np

from ..spec import TensorT
from .core import Impl, acc_dtype, float_map, is_float, np_dtype, reference, to_dtype, trunc_div

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _erf_like(x: np.ndarray) -> np.ndarray:
    return _erf(x.astype(np.float64)).astype(x.dtype)


_FLOAT_UNARY = {
    "sigmoid": lambda x: np.exp(-np.logaddexp(0, -x)),
    "tanh": np.tanh,
    "erf": _erf_like,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "reciprocal": np.reciprocal,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,  # half to even
    "sin": np.sin,
    "cos": np.cos,
    "softplus": lambda x: np.logaddexp(0, x),
    "softsign": lambda x: x / (1 + np.abs(x)),
}
for _name, _fn in _FLOAT_UNARY.items():
    reference(_name)(float_map(_fn))


def _same_type(fn: object) -> Impl:
    """A unary op computed in the input's own type (integers included)."""

    def impl(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
        x = ins[0]
        with np.errstate(all="ignore"):
            return to_dtype(fn(x), x.dtype)  # type: ignore[operator]

    return impl


reference("relu")(_same_type(lambda x: np.maximum(x, x.dtype.type(0))))
reference("neg")(_same_type(np.negative))
reference("abs")(_same_type(np.abs))
reference("sign")(_same_type(np.sign))
reference("not")(_same_type(np.logical_not))


def _binary(fn: object) -> Impl:
    def impl(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
        a, b = ins
        with np.errstate(all="ignore"):
            return to_dtype(fn(a, b), np.result_type(a, b))  # type: ignore[operator]

    return impl


reference("add")(_binary(np.add))
reference("sub")(_binary(np.subtract))
reference("mul")(_binary(np.multiply))
reference("max")(_binary(np.maximum))  # NaN propagates
reference("min")(_binary(np.minimum))
reference("and")(_binary(np.logical_and))
reference("or")(_binary(np.logical_or))
reference("xor")(_binary(np.logical_xor))
for _name, _fn in {
    "equal": np.equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}.items():
    reference(_name)(lambda ins, attrs, out, _fn=_fn: _fn(ins[0], ins[1]))


@reference("div")
def div(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    a, b = ins
    if is_float(a):
        with np.errstate(all="ignore"):
            return to_dtype(np.true_divide(a, b), a.dtype)
    return trunc_div(a, b)


@reference("pow")
def pow_(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    a, b = ins
    with np.errstate(all="ignore"):
        if is_float(a):
            acc = acc_dtype(a.dtype)
            return to_dtype(np.power(a.astype(acc), b.astype(acc)), a.dtype)
        if np.any(b < 0):  # like C++ std::pow on integers: through double, truncated
            return to_dtype(np.trunc(np.power(a.astype(np.float64), b.astype(np.float64))), a.dtype)
        return to_dtype(np.power(a, b), a.dtype)


@reference("mod")
def mod(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """fmod=1: C fmod (sign of the dividend); fmod=0: sign of the divisor (Python %)."""
    a, b = ins
    fn = np.fmod if int(attrs["fmod"]) else np.mod  # type: ignore[call-overload]
    with np.errstate(all="ignore"):
        return to_dtype(fn(a, b), a.dtype)


@reference("prelu")
def prelu(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, slope = ins
    with np.errstate(all="ignore"):
        return to_dtype(np.where(x < 0, x * slope, x), x.dtype)


@reference("where")
def where(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    cond, a, b = ins
    return np.where(cond.astype(bool), a, b).astype(np.result_type(a, b), copy=False)


@reference("clip")
def clip(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """min(max(x, min), max): when min > max every element becomes max, as ONNX says."""
    x = ins[0]
    lo, hi = float(attrs["min"]), float(attrs["max"])  # type: ignore[arg-type]
    if is_float(x):
        t = x.dtype.type
        return np.minimum(np.maximum(x, t(lo)), t(hi))
    info = np.iinfo(x.dtype)
    # x >= lo <=> x >= ceil(lo) for integers; infinite bounds are the type's limits.
    ilo = info.min if lo == -math.inf else int(min(max(math.ceil(lo), info.min), info.max))
    ihi = info.max if hi == math.inf else int(min(max(math.floor(hi), info.min), info.max))
    return np.minimum(np.maximum(x, x.dtype.type(ilo)), x.dtype.type(ihi))


def _activation(fn: object) -> Impl:
    """A float op with attributes, computed in `acc_dtype`."""

    def impl(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
        x = ins[0]
        with np.errstate(all="ignore"):
            return to_dtype(fn(x.astype(acc_dtype(x.dtype)), attrs), x.dtype)  # type: ignore[operator]

    return impl


def _f(attrs: dict[str, object], key: str) -> float:
    return float(attrs[key])  # type: ignore[arg-type]


reference("leaky_relu")(_activation(lambda x, a: np.where(x >= 0, x, _f(a, "alpha") * x)))
reference("elu")(_activation(lambda x, a: np.where(x >= 0, x, _f(a, "alpha") * np.expm1(x))))
reference("selu")(
    _activation(lambda x, a: _f(a, "gamma") * np.where(x > 0, x, _f(a, "alpha") * np.expm1(x)))
)
reference("hard_sigmoid")(
    _activation(lambda x, a: np.clip(_f(a, "alpha") * x + _f(a, "beta"), 0, 1))
)
reference("hard_swish")(_activation(lambda x, a: x * np.clip(x / 6 + 0.5, 0, 1)))


@reference("gelu")
def gelu(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    mode = str(attrs["approximate"])
    if mode not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got '{mode}'")
    xf = x.astype(np.float64)
    if mode == "none":
        y = 0.5 * xf * (1 + _erf(xf / math.sqrt(2)))
    else:
        y = 0.5 * xf * (1 + np.tanh(math.sqrt(2 / math.pi) * (xf + 0.044715 * xf**3)))
    return to_dtype(y, x.dtype)


@reference("cast")
def cast(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """float -> int truncates toward zero; anything -> i1 is `!= 0`."""
    x = ins[0]
    target = np_dtype(str(attrs["to"]))
    if target == np.bool_:
        return x != 0
    return to_dtype(x, target)
