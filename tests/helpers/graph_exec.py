"""Build graph-dialect models in tests, compile and run them, compare with the reference.

`run_graph(body, inputs)` builds `func.func @main` from graph builders, compiles it with the full
pipeline, runs it and returns the compiled outputs next to the numpy reference interpreter's;
the tests compare both with an independent numpy expression as well.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import func

import mlc
from mlc.dialects.attrs import param_attr, to_type
from mlc.dialects.graph import TensorT
from mlc.dialects.graph.builders import constant
from mlc.dialects.graph.reference import run_module
from mlc.dialects.graph.reference.core import mlir_dtype
from mlc.testing import run_compiled

PIPELINE = (
    "builtin.module(graph-fuse,graph-to-tp,tp-to-loops,func.func(canonicalize,cse),lower-to-llvm)"
)
TO_TP = "builtin.module(graph-fuse,graph-to-tp)"
# What `mlc-default` runs: the same with the default schedules (vectorized, register tiles).
SCHEDULED = (
    "builtin.module(graph-fuse,graph-to-tp,tp-default-schedule,tp-to-loops,"
    "func.func(canonicalize,cse),lower-to-llvm)"
)

Body = Callable[..., "ir.Value | Sequence[ir.Value]"]


def tensor_type(a: np.ndarray) -> ir.Type:
    return to_type(TensorT(tuple(a.shape), mlir_dtype(a.dtype)))


def build_main(
    body: Body, inputs: Sequence[np.ndarray], params: dict[str, np.ndarray] | None = None
) -> ir.Module:
    """`@main(inputs...)` returning `body(*args, *param_constants)` (needs a current context)."""
    types = [tensor_type(a) for a in inputs]
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("main", (types, []))
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            consts = [constant(param_attr(k), tensor_type(v)) for k, v in (params or {}).items()]
            out = body(*entry.arguments, *consts)
            results = [out] if isinstance(out, ir.Value) else list(out)
            func.ReturnOp(results)
        fn.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(types, [r.type for r in results])
        )
    return module


def run_graph(
    body: Body,
    inputs: Sequence[np.ndarray],
    params: dict[str, np.ndarray] | None = None,
    pipeline: str = PIPELINE,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(compiled outputs, reference-interpreter outputs) of `@main` built by `body`."""
    with mlc.Context(), ir.Location.unknown():
        module = build_main(body, inputs, params)
        expected = run_module(module, params or {}, list(inputs))
        mlc.PassManager.parse(pipeline).run(module)
        got = run_compiled(module, params or {}, list(inputs))
    return got, expected


def lower_to_tp(body: Body, inputs: Sequence[np.ndarray], pipeline: str = TO_TP) -> str:
    """The tp program text of `@main` built by `body` (graph-fuse, graph-to-tp)."""
    with mlc.Context(), ir.Location.unknown():
        module = build_main(body, inputs)
        mlc.PassManager.parse(pipeline).run(module)
        return str(module)


def check(
    got: np.ndarray,
    reference: np.ndarray,
    numpy_value: np.ndarray,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    what: str = "",
) -> None:
    """Same dtype and shape as both oracles, values within tolerance (exact for integers)."""
    numpy_value = np.asarray(numpy_value)
    types = (got.dtype, reference.dtype, numpy_value.dtype)
    assert types[0] == types[1] == types[2], (what, types)
    shapes = (got.shape, reference.shape, numpy_value.shape)
    assert shapes[0] == shapes[1] == shapes[2], (what, shapes)
    if got.dtype.kind in "iub":
        np.testing.assert_array_equal(got, reference, err_msg=f"{what} vs reference")
        np.testing.assert_array_equal(got, numpy_value, err_msg=f"{what} vs numpy")
    else:
        np.testing.assert_allclose(
            got, reference, rtol=rtol, atol=atol, err_msg=f"{what} vs reference"
        )
        np.testing.assert_allclose(
            got, numpy_value, rtol=rtol, atol=atol, err_msg=f"{what} vs numpy"
        )


def rand(
    shape: Sequence[int], dtype: str = "float32", seed: int = 0, scale: float = 1.0
) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * scale).astype(dtype)
    return rng.integers(-50, 50, size=shape).astype(dtype)
