"""Elementwise and reduction ops of the `graph` dialect."""

from __future__ import annotations

from .spec import (
    AttrSpec,
    OpSpec,
    TensorT,
    broadcast_shapes,
    ints,
    is_float,
    need,
    norm_axis,
    register,
    same_dtype,
)


def infer_unary(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = ins[0]
    assert x is not None
    return [x]


def infer_float_unary(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = ins[0]
    assert x is not None
    need(is_float(x.dtype), f"element type {x.dtype} is not a float type")
    return [x]


def _broadcast(ins: list[TensorT | None]) -> tuple[int, ...]:
    return broadcast_shapes([t.shape for t in ins if t is not None])


def infer_binary(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    return [TensorT(_broadcast(ins), same_dtype(ins))]


def infer_compare(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    same_dtype(ins)
    return [TensorT(_broadcast(ins), "i1")]


def infer_logical(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    need(same_dtype(ins) == "i1", "logical ops need i1 (bool) operands")
    return [TensorT(_broadcast(ins), "i1")]


def infer_where(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    cond = ins[0]
    assert cond is not None
    need(cond.dtype == "i1", f"condition must be i1 (bool), got {cond.dtype}")
    return [TensorT(_broadcast(ins), same_dtype(ins[1:]))]


def infer_reduce(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = ins[0]
    assert x is not None
    axes = sorted({norm_axis(a, x.rank) for a in ints(attrs, "axes")})
    need(len(axes) == len(ints(attrs, "axes")), "reduction axes contain duplicates")
    keep = bool(attrs["keepdims"])
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keep or i not in axes)
    return [TensorT(shape, x.dtype)]


def infer_arg_reduce(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = ins[0]
    assert x is not None
    axis = norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[arg-type]
    keep = bool(attrs["keepdims"])
    shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape) if keep or i != axis)
    return [TensorT(shape, "i64")]


def infer_cast(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    # The result element type is the cast's target; the verifier compares shapes only.
    x = ins[0]
    assert x is not None
    return [TensorT(x.shape, str(attrs["to"]))]


_UNARY_FLOAT = {
    "sigmoid": ("1 / (1 + exp(-x)).", "Sigmoid"),
    "tanh": ("Hyperbolic tangent.", "Tanh"),
    "erf": ("Gauss error function.", "Erf"),
    "exp": ("Natural exponential.", "Exp"),
    "log": ("Natural logarithm.", "Log"),
    "sqrt": ("Square root.", "Sqrt"),
    "reciprocal": ("1 / x.", "Reciprocal"),
    "floor": ("Round down.", "Floor"),
    "ceil": ("Round up.", "Ceil"),
    "round": ("Round half to even.", "Round"),
    "sin": ("Sine.", "Sin"),
    "cos": ("Cosine.", "Cos"),
    "softplus": ("log(1 + exp(x)).", "Softplus"),
    "softsign": ("x / (1 + |x|).", "Softsign"),
}
_UNARY_ANY = {
    "relu": ("max(x, 0).", "Relu"),
    "neg": ("-x.", "Neg"),
    "abs": ("|x|.", "Abs"),
    "sign": ("-1, 0 or 1 by the sign of x.", "Sign"),
}
_BINARY = {
    "add": ("Elementwise a + b with numpy broadcasting.", "Add"),
    "sub": ("Elementwise a - b with numpy broadcasting.", "Sub"),
    "mul": ("Elementwise a * b with numpy broadcasting.", "Mul"),
    "div": ("Elementwise a / b (integer division truncates) with numpy broadcasting.", "Div"),
    "pow": ("Elementwise a ** b with numpy broadcasting.", "Pow"),
    "max": ("Elementwise maximum with numpy broadcasting (NaN propagates).", "Max"),
    "min": ("Elementwise minimum with numpy broadcasting (NaN propagates).", "Min"),
    "mod": ("Elementwise remainder; `fmod` = 1 gives C fmod, 0 the sign of the divisor.", "Mod"),
    "prelu": ("x if x >= 0 else slope * x, slope broadcast to x.", "PRelu"),
}
_COMPARE = {
    "equal": ("a == b -> i1.", "Equal"),
    "less": ("a < b -> i1.", "Less"),
    "less_equal": ("a <= b -> i1.", "LessOrEqual"),
    "greater": ("a > b -> i1.", "Greater"),
    "greater_equal": ("a >= b -> i1.", "GreaterOrEqual"),
}
_LOGICAL = {
    "and": ("Logical and of i1 tensors.", "And"),
    "or": ("Logical or of i1 tensors.", "Or"),
    "xor": ("Logical xor of i1 tensors.", "Xor"),
}
_REDUCE = {
    "reduce_sum": ("Sum over `axes`.", "ReduceSum"),
    "reduce_mean": ("Mean over `axes`.", "ReduceMean"),
    "reduce_max": ("Maximum over `axes`.", "ReduceMax"),
    "reduce_min": ("Minimum over `axes`.", "ReduceMin"),
    "reduce_prod": ("Product over `axes`.", "ReduceProd"),
    "reduce_l2": ("sqrt(sum(x^2)) over `axes`.", "ReduceL2"),
    "reduce_sum_square": ("sum(x^2) over `axes`.", "ReduceSumSquare"),
}
_REDUCE_ATTRS = (
    AttrSpec("axes", "ints", doc="non-negative, sorted; every axis when empty is not allowed"),
    AttrSpec("keepdims", "int", 1),
)

register(
    *(
        OpSpec(n, ("input",), (), s, "math", infer_float_unary, o)
        for n, (s, o) in _UNARY_FLOAT.items()
    ),
    *(OpSpec(n, ("input",), (), s, "math", infer_unary, o) for n, (s, o) in _UNARY_ANY.items()),
    *(
        OpSpec(
            n,
            ("lhs", "rhs"),
            (AttrSpec("fmod", "int", 0),) if n == "mod" else (),
            s,
            "math",
            infer_binary,
            o,
        )
        for n, (s, o) in _BINARY.items()
    ),
    *(OpSpec(n, ("lhs", "rhs"), (), s, "math", infer_compare, o) for n, (s, o) in _COMPARE.items()),
    *(OpSpec(n, ("lhs", "rhs"), (), s, "math", infer_logical, o) for n, (s, o) in _LOGICAL.items()),
    OpSpec("not", ("input",), (), "Logical not of an i1 tensor.", "math", infer_unary, "Not"),
    *(
        OpSpec(n, ("input",), _REDUCE_ATTRS, s, "math", infer_reduce, o, kind="reduce")
        for n, (s, o) in _REDUCE.items()
    ),
    OpSpec(
        "argmax",
        ("input",),
        (
            AttrSpec("axis", "int", 0),
            AttrSpec("keepdims", "int", 1),
            AttrSpec("select_last_index", "int", 0),
        ),
        "Index of the maximum along `axis` (i64).",
        "math",
        infer_arg_reduce,
        "ArgMax",
        kind="reduce",
    ),
    OpSpec(
        "argmin",
        ("input",),
        (
            AttrSpec("axis", "int", 0),
            AttrSpec("keepdims", "int", 1),
            AttrSpec("select_last_index", "int", 0),
        ),
        "Index of the minimum along `axis` (i64).",
        "math",
        infer_arg_reduce,
        "ArgMin",
        kind="reduce",
    ),
    OpSpec(
        "clip",
        ("input",),
        (AttrSpec("min", "float", float("-inf")), AttrSpec("max", "float", float("inf"))),
        "min(max(x, min), max); ReLU6 is clip(0, 6).",
        "math",
        infer_unary,
        "Clip",
    ),
    OpSpec(
        "leaky_relu",
        ("input",),
        (AttrSpec("alpha", "float", 0.01),),
        "x if x >= 0 else alpha * x.",
        "math",
        infer_float_unary,
        "LeakyRelu",
    ),
    OpSpec(
        "elu",
        ("input",),
        (AttrSpec("alpha", "float", 1.0),),
        "x if x >= 0 else alpha * (exp(x) - 1).",
        "math",
        infer_float_unary,
        "Elu",
    ),
    OpSpec(
        "selu",
        ("input",),
        (
            AttrSpec("alpha", "float", 1.67326319217681884765625),
            AttrSpec("gamma", "float", 1.05070102214813232421875),
        ),
        "gamma * (x if x > 0 else alpha * (exp(x) - 1)).",
        "math",
        infer_float_unary,
        "Selu",
    ),
    OpSpec(
        "hard_sigmoid",
        ("input",),
        (AttrSpec("alpha", "float", 0.2), AttrSpec("beta", "float", 0.5)),
        "max(0, min(1, alpha * x + beta)).",
        "math",
        infer_float_unary,
        "HardSigmoid",
    ),
    OpSpec(
        "hard_swish",
        ("input",),
        (),
        "x * max(0, min(1, x / 6 + 1 / 2)).",
        "math",
        infer_float_unary,
        "HardSwish",
    ),
    OpSpec(
        "gelu",
        ("input",),
        (AttrSpec("approximate", "str", "none"),),
        "x * Phi(x), exact (erf) or `tanh` approximation.",
        "math",
        infer_float_unary,
        "Gelu",
    ),
    OpSpec(
        "where",
        ("condition", "lhs", "rhs"),
        (),
        "Select lhs where condition is true, else rhs; all three broadcast.",
        "math",
        infer_where,
        "Where",
    ),
    OpSpec(
        "cast",
        ("input",),
        (AttrSpec("to", "str", doc="target element type, e.g. f32, i64, i1"),),
        "Element type conversion (float->int truncates toward zero, like C).",
        "math",
        infer_cast,
        "Cast",
    ),
)
