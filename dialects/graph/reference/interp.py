"""Interpret `@main` of a graph-level module op by op with the numpy reference.

Handles graph ops, `graph.constant` (params table or dense literal), `tensor.concat`,
`func.call` into outlined kernels (`func.func private ... {graph.kernel}`) and `func.return`;
any other op is an error naming it, at its location.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from mlir import ir

from mlc.errors import DiagnosticError

from ...attrs import from_attr, tensor_t
from ...walk import top_level_funcs
from .core import np_dtype
from .dispatch import evaluate
from .literal import ParamError, constant_array

_MAX_CALL_DEPTH = 64


def run_module(
    module: ir.Module | ir.Operation,
    params: Mapping[str, np.ndarray] | None,
    inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray],
) -> list[np.ndarray]:
    """Run `@main` on `inputs` (positional, or by the names of `mlc.input_names` / `argN`).

    Raises ValueError for inputs that do not match `@main`'s signature and DiagnosticError,
    located at the op, for an op it cannot interpret or a parameter it cannot resolve.
    """
    op = module.operation if isinstance(module, ir.Module) else module
    funcs = {ir.StringAttr(f.attributes["sym_name"]).value: f for f in top_level_funcs(op)}
    main = funcs.get("main")
    if main is None:
        raise ValueError("run_module: the module has no func.func @main")
    args = _bind_inputs(main, inputs)
    return _Interpreter(funcs, params or {}).call(main, args, 0)


def _input_names(main: ir.Operation, count: int) -> list[str]:
    if "mlc.input_names" in main.attributes:
        names = from_attr(main.attributes["mlc.input_names"])
        if isinstance(names, tuple) and len(names) == count:
            return [str(n) for n in names]
    return [f"arg{i}" for i in range(count)]


def _bind_inputs(
    main: ir.Operation, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray]
) -> list[np.ndarray]:
    block = main.regions[0].blocks[0]
    formal = list(block.arguments)
    names = _input_names(main, len(formal))
    if isinstance(inputs, Mapping):
        missing = [n for n in names if n not in inputs]
        extra = sorted(set(inputs) - set(names))
        if missing or extra:
            raise ValueError(
                f"run_module: @main takes inputs {names}; missing {missing}, unknown {extra}"
            )
        values = [inputs[n] for n in names]
    else:
        values = list(inputs)
        if len(values) != len(formal):
            raise ValueError(
                f"run_module: @main takes {len(formal)} inputs {names}, got {len(values)}"
            )
    out = []
    for name, arg, value in zip(names, formal, values):
        t = tensor_t(arg.type)
        value = np.asarray(value)
        if t is None:
            raise ValueError(f"run_module: input '{name}' has type {arg.type}, not a static tensor")
        if value.shape != t.shape or value.dtype != np_dtype(t.dtype):
            raise ValueError(
                f"run_module: input '{name}' must be {t}, got {value.dtype}{list(value.shape)}"
            )
        out.append(value)
    return out


class _Interpreter:
    def __init__(self, funcs: dict[str, ir.Operation], params: Mapping[str, np.ndarray]) -> None:
        self.funcs = funcs
        self.params = params

    def call(self, fn: ir.Operation, args: list[np.ndarray], depth: int) -> list[np.ndarray]:
        if depth > _MAX_CALL_DEPTH:
            raise DiagnosticError(
                f"run_module: calls nest deeper than {_MAX_CALL_DEPTH}", fn.location
            )
        block = fn.regions[0].blocks[0]
        env: dict[ir.Value, np.ndarray] = dict(zip(block.arguments, args))
        for child in block.operations:
            op = child.operation
            if op.name == "func.return":
                return [env[v] for v in op.operands]
            results = self.step(op, [env[v] for v in op.operands], depth)
            env.update(zip(op.results, results))
        raise DiagnosticError("run_module: function ends without func.return", fn.location)

    def step(self, op: ir.Operation, args: list[np.ndarray], depth: int) -> list[np.ndarray]:
        name = op.name
        if name == "graph.constant":
            return [self.constant(op)]
        if name.startswith("graph.") or name == "tensor.concat":
            attrs = {n: from_attr(op.attributes[n]) for n in op.attributes}
            try:
                return [evaluate(name, args, attrs, tensor_t(op.results[0].type))]
            except (ValueError, NotImplementedError) as e:
                raise DiagnosticError(f"run_module: '{name}': {e}", op.location) from None
        if name == "func.call":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            if callee not in self.funcs:
                raise DiagnosticError(
                    f"run_module: call to unknown function @{callee}", op.location
                )
            return self.call(self.funcs[callee], args, depth + 1)
        raise DiagnosticError(
            f"run_module: cannot interpret '{name}' (the reference runs graph "
            "ops, graph.constant, tensor.concat, func.call and func.return)",
            op.location,
        )

    def constant(self, op: ir.Operation) -> np.ndarray:
        try:
            value = constant_array(op, self.params)
        except (ParamError, NotImplementedError) as e:
            raise DiagnosticError(f"run_module: {e}", op.location) from None
        if value is None:
            raise DiagnosticError(
                f"run_module: parameter {op.attributes['value']} is not in the params table",
                op.location,
            )
        return value
