"""`from_onnx`: an ONNX model -> (`builtin.module` with `func.func @main` of graph ops, params).

Order of work: load and check the model, resolve static input shapes, plan every node (fold or
convert) and report everything unsupported at once, then convert in model order, folding
constant sub-graphs on the way. Afterwards the result types are checked against ONNX shape
inference and the module against `graph-verify`.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from mlir import ir
from mlir.dialects import func

from mlc.dialects.attrs import tensor_t, to_type
from mlc.dialects.context import make_context
from mlc.dialects.graph.spec import TensorT
from mlc.dialects.graph.verify import SYMBOL_BOUNDS_ATTR, verify_graph
from mlc.errors import DiagnosticError, UnsupportedOpError
from mlc.symbolic import UndecidableError, assume, collect_checks

from .context import ImportContext
from .converters.registry import lookup
from .dtypes import check_model_dtypes, mlir_type_of_dtype
from .folding import Folder
from .graph_inputs import resolve_inputs
from .loader import load_model, opset_versions
from .node_schema import raise_if_malformed
from .plan import PlannedNode, plan_graph
from .shape_check import check_against_onnx
from .symbolic_fold import fold_symbolic, is_symbolic
from .tensors import tensor_array

if TYPE_CHECKING:
    import onnx


def from_onnx(
    model: str | os.PathLike[str] | onnx.ModelProto,
    shape_dict: Mapping[str, Sequence[int | str]] | None = None,
    dtype: str = "float32",
    *,
    context: ir.Context | None = None,
    symbolic_dims: bool = False,
) -> tuple[ir.Module, dict[str, np.ndarray]]:
    """Import an ONNX model into the graph dialect.

    Args:
        model: path of an `.onnx` file, or a loaded `onnx.ModelProto`.
        shape_dict: static shapes for graph inputs (overriding the model's, dynamic or not);
            a dim may be a range `"1..512"` (`"1.."`: no upper bound) that keeps the model's
            dynamic dim there symbolic, with those bounds (`mlc.symbol_bounds` on @main).
        dtype: element type (numpy name) of graph inputs whose ONNX type declares none.
        context: an `mlc.Context()` to build in; a new one by default.
        symbolic_dims: keep dynamic input dims (not fixed by `shape_dict`) as symbolic dims
            (`tensor<?x128xi64, ["batch", 128]>`) instead of refusing them. The graph passes
            and the compiler do not handle them yet: they refuse such a module.

    Returns:
        The module (`func.func @main`, with `mlc.input_names` / `mlc.output_names`) and the
        parameters it references by name (`#graph.param<"name">`).

    Raises:
        ModelLoadError: the file is not a readable ONNX model.
        UnsupportedOpError: unsupported operators/opsets (all listed), element types or
            dynamic input dimensions.
        DiagnosticError: a node whose shapes do not satisfy the op's rules.
    """
    proto = load_model(model)
    graph = proto.graph
    planned = plan_graph(graph, opset_versions(proto))
    check_model_dtypes(graph, {i for p in planned if p.reads_values for i in p.node.input})
    bounds: dict[str, tuple[int, int | None]] = {}
    inputs = resolve_inputs(graph, shape_dict, dtype, symbolic_dims, bounds)
    context = context or make_context()
    with context, ir.Location.unknown(), assume(bounds):
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            main = func.FuncOp("main", ir.FunctionType.get([to_type(t) for _, t in inputs], []))
        block = main.add_entry_block(arg_locs=[ir.Location.name(n) for n, _ in inputs])
        ctx = ImportContext(ir.InsertionPoint(block))
        ctx.opsets = opset_versions(proto)
        ctx.convert_nodes = functools.partial(_convert_nodes, ctx)
        for (name, _), arg in zip(inputs, block.arguments):
            ctx.values[name] = arg
        for init in graph.initializer:
            ctx.constants[init.name] = tensor_array(init, f"initializer '{init.name}'")
        with collect_checks() as checks:
            _convert_nodes(ctx, planned)
        results = [ctx.graph_output(o.name) for o in graph.output]
        func.ReturnOp(results, ip=ctx.ip)
        main.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([to_type(t) for _, t in inputs], [r.type for r in results])
        )
        main.attributes["mlc.input_names"] = _names([n for n, _ in inputs])
        main.attributes["mlc.output_names"] = _names([o.name for o in graph.output])
        if checks:  # equalities of sizes the shape rules assumed: to check at run time
            main.attributes["mlc.shape_checks"] = _names([f"{a} == {b}" for a, b in checks])
        if bounds:
            main.attributes[SYMBOL_BOUNDS_ATTR] = _bounds_attr(bounds)
    with assume(bounds):
        check_against_onnx(proto, dict(inputs), _types(ctx), planned)
    module.operation.verify()  # MLIR's own verifier (IRDL constraints)
    with assume(bounds):
        errors = verify_graph(module.operation)  # the shape rules IRDL cannot express
    if errors:
        raise DiagnosticError.many([(e.message, e.location) for e in errors])
    return module, ctx.params


def _convert_nodes(ctx: ImportContext, planned: list[PlannedNode]) -> None:
    folder = Folder()
    for p in planned:
        node = p.node
        if p.fold:
            outputs = _fold(ctx, folder, p)
            if outputs is not None:
                for out, array in zip(node.output, outputs):
                    if out:
                        ctx.constants[out] = array
                        ctx.origins[out] = p.name
                continue
            p = _demoted(p)
        ctx.begin(node, p.name, p.opset)
        assert p.entry is not None
        try:
            results = list(p.entry.fn(ctx, node))
            assert all(r is None for r in results[len(node.output) :]), (
                f"{ctx.where}: extra results"
            )
        except UndecidableError as e:  # a rule written for sizes met a symbolic one
            if os.environ.get("MLC_DEBUG"):
                raise
            raise ctx.unsupported(str(e)) from None
        except (AssertionError, AttributeError, ValueError, TypeError, IndexError, KeyError):
            # the node itself, then the others (a malformed producer of one of its inputs)
            for q in [p, *planned]:
                raise_if_malformed(q.node, q.name, q.domain, ctx.opsets)
            raise
        for k, out in enumerate(node.output):
            result = results[k] if k < len(results) else None
            if not out:
                continue
            if isinstance(result, ir.Value):
                ctx.values[out] = result
            elif isinstance(result, np.ndarray):
                ctx.constants[out] = result
                ctx.origins[out] = p.name
            else:
                ctx.missing[out] = (
                    f"output #{k} ('{out}') of {ctx.where}, which mlc does not "
                    "produce (only inference outputs are supported)"
                )


def _fold(ctx: ImportContext, folder: Folder, p: PlannedNode) -> list[np.ndarray] | None:
    """The outputs of a node planned as folded, or None when it must be converted: with
    symbolic dims, a "constant" may be data of a symbolic shape (a constant sliced to `seq`)."""
    node = p.node
    names = [n for n in node.input if n]
    computed = [n for n in names if n in ctx.values and n not in ctx.constants]
    if computed and node.op_type != "CastLike":  # CastLike folds on its target's type alone
        return None  # an input became a graph value: a node demoted before it
    inputs = [_fold_input(ctx, name) if name else None for name in node.input]
    if not any(is_symbolic(x) for x in inputs):
        return folder.fold(node, p.opset, p.name, inputs)
    try:
        return fold_symbolic(node, p.opset, p.name, inputs)  # type: ignore[arg-type]
    except UnsupportedOpError:
        if is_symbolic(inputs[0]) or lookup(p.domain, node.op_type, p.opset) is None:
            raise
        return None  # numeric data indexed by symbolic sizes: a graph op


def _demoted(p: PlannedNode) -> PlannedNode:
    entry = lookup(p.domain, p.node.op_type, p.opset)
    assert entry is not None
    return dataclasses.replace(p, fold=False, entry=entry)


def _fold_input(ctx: ImportContext, name: str) -> np.ndarray | TensorT:
    if name in ctx.constants:
        return ctx.constants[name]
    return ctx.type_of(name)  # CastLike's computed target: its static type is enough


def _types(ctx: ImportContext) -> dict[str, TensorT]:
    """The static type of every ONNX value mlc knows (computed or constant)."""
    out = {name: t for name, v in ctx.values.items() if (t := tensor_t(v.type)) is not None}
    for name, array in ctx.constants.items():
        mlir_type = mlir_type_of_dtype(array.dtype)
        if name not in out and mlir_type is not None:
            out[name] = TensorT(tuple(array.shape), mlir_type)
    return out


def _bounds_attr(bounds: Mapping[str, tuple[int, int | None]]) -> ir.DictAttr:
    return ir.DictAttr.get(
        {
            name: ir.DenseI64ArrayAttr.get([lo] if hi is None else [lo, hi])
            for name, (lo, hi) in sorted(bounds.items())
        }
    )


def _names(names: list[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.StringAttr.get(n) for n in names])
