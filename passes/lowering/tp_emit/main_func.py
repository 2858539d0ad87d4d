"""Lower the model function (`@main`: constants and kernel calls on tensors) to `@mlc_main`.

`mlc_main(inputs..., outputs..., params: memref<Pxi8>, workspace: memref<Wxi8>)` calls the tp
kernels on buffers: parameters are views into the params blob, intermediates and kernel scratch
are views into the workspace at offsets planned once (`planner.py`), and a kernel whose result
is a model output writes the output buffer directly. See docs/design.md for the contract.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from mlir import ir
from mlir.dialects import func, memref

from mlc.dialects.attrs import param_name
from mlc.errors import DiagnosticError

from ..emit_util import index_const
from .kernel import DYNAMIC, elem_bytes, memref_type
from .planner import Lifetime, aligned, plan

ENTRY = "mlc_main"
NUMPY_DTYPE = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16", "i64": "int64",
               "i32": "int32", "i16": "int16", "i8": "int8", "i1": "bool", "ui8": "uint8",
               "ui16": "uint16", "ui32": "uint32", "ui64": "uint64"}


def nbytes(t: ir.Type) -> int:
    mt = memref_type(t) if isinstance(t, ir.RankedTensorType) else ir.MemRefType(t)
    count = 1
    for d in mt.shape:
        count *= d
    return count * elem_bytes(mt.element_type)


def _names(fn: ir.Operation, attr: str, count: int, prefix: str) -> list[str]:
    if attr in fn.attributes:
        names = [ir.StringAttr(a).value for a in ir.ArrayAttr(fn.attributes[attr])]
        if len(names) == count:
            return names
    return [f"{prefix}{i}" for i in range(count)]


def _info(name: str, t: ir.Type) -> dict[str, object]:
    """Name, shape and numpy dtype of a tensor type (its buffer stores bools as bytes)."""
    rt = ir.RankedTensorType(t)
    dtype = str(rt.element_type)
    mt = memref_type(t)
    return {"name": name, "shape": list(mt.shape), "dtype": NUMPY_DTYPE.get(dtype, dtype)}


@dataclass
class _Plan:
    params: dict[ir.Value, tuple[str, int]]  # constant result -> (param name, offset)
    params_size: int
    work: dict[object, int]  # value or ("scratch", step) -> workspace offset
    workspace_size: int
    bound_outputs: dict[ir.Value, int]  # kernel result -> output position it writes directly


def _plan(ops: list[ir.Operation], results: list[ir.Value], scratch: dict[str, int]) -> _Plan:
    params: dict[ir.Value, tuple[str, int]] = {}
    seen_names: dict[str, int] = {}
    p_off = 0
    bound: dict[ir.Value, int] = {}
    for k, v in enumerate(results):
        owner = v.owner
        if not isinstance(owner, ir.Block) and owner.operation.name == "func.call" and v not in bound:
            bound[v] = k
    position = {op: i for i, op in enumerate(ops)}
    lifetimes: list[Lifetime] = []
    for i, op in enumerate(ops):
        if op.name == "graph.constant":
            name = param_name(op.attributes["value"])
            if name is not None:
                if name not in seen_names:
                    seen_names[name] = p_off
                    p_off += aligned(nbytes(op.results[0].type))
                params[op.results[0]] = (name, seen_names[name])
        elif op.name == "func.call":
            v = op.results[0]
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            if scratch.get(callee):
                lifetimes.append(Lifetime(("scratch", i), scratch[callee], i, i))
            if v in bound:
                continue
            last = max((position[u.owner.operation] for u in v.uses if u.owner.operation in position),
                       default=i)
            lifetimes.append(Lifetime(v, nbytes(v.type), i, last))
    work, peak = plan(lifetimes)
    return _Plan(params, p_off, work, peak, bound)


def lower_main(module: ir.Operation, main: ir.Operation, scratch: dict[str, int]) -> dict[str, object]:
    """Replace `main` by `mlc_main`; returns the manifest."""
    entry = main.regions[0].blocks[0]
    ops = [o.operation for o in entry.operations]
    ret = ops[-1]
    results = list(ret.operands)
    for op in ops[:-1]:
        if op.name not in ("graph.constant", "func.call"):
            raise DiagnosticError(f"graph-to-tp: '{op.name}' must be inside a kernel before lowering "
                                  "@main (run graph-fuse first)", op.location)
    p = _plan(ops[:-1], results, scratch)
    entry_types = [a.type for a in entry.arguments]
    result_types = [v.type for v in results]
    in_types = [memref_type(t) for t in entry_types]
    out_types = [memref_type(t) for t in result_types]
    i8 = ir.IntegerType.get_signless(8)
    blob = lambda n: ir.MemRefType.get([max(n, 1)], i8)  # noqa: E731
    with ir.InsertionPoint(module.regions[0].blocks[0]), main.location:
        new = func.FuncOp(ENTRY, (in_types + out_types + [blob(p.params_size), blob(p.workspace_size)], []))
        new.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        body = new.add_entry_block()
    args = list(body.arguments)
    inputs, outputs = args[:len(in_types)], args[len(in_types):len(in_types) + len(out_types)]
    params_blob, work = args[-2], args[-1]
    env: dict[ir.Value, ir.Value] = dict(zip(entry.arguments, inputs))
    globals_count = 0
    with ir.InsertionPoint(body):
        for i, op in enumerate(ops[:-1]):
            with op.location:
                if op.name == "graph.constant":
                    v = op.results[0]
                    if v in p.params:
                        env[v] = memref.ViewOp(memref_type(v.type), params_blob, index_const(p.params[v][1]), []).result
                    else:
                        env[v] = _literal(module, op, globals_count)
                        globals_count += 1
                    continue
                v = op.results[0]
                out = outputs[p.bound_outputs[v]] if v in p.bound_outputs else \
                    memref.ViewOp(memref_type(v.type), work, index_const(p.work[v]), []).result
                call_args = [env[a] for a in op.operands] + [out]
                callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                if scratch.get(callee):
                    dyn = ir.MemRefType.get([DYNAMIC], i8)
                    call_args.append(memref.ViewOp(dyn, work, index_const(p.work[("scratch", i)]),
                                                   [index_const(scratch[callee])]).result)
                func.CallOp([], ir.FlatSymbolRefAttr.get(callee), call_args)
                env[v] = out
        for k, v in enumerate(results):
            if p.bound_outputs.get(v) != k:
                memref.CopyOp(env[v], outputs[k])
        func.ReturnOp([])
    in_names = _names(main, "mlc.input_names", len(in_types), "input")
    out_names = _names(main, "mlc.output_names", len(out_types), "output")
    params_info = {}
    for v, (name, off) in p.params.items():
        params_info[name] = dict(_info(name, v.type), offset=off)
    main.erase()
    return {
        "entry": ENTRY,
        "inputs": [_info(n, t) for n, t in zip(in_names, entry_types)],
        "outputs": [_info(n, t) for n, t in zip(out_names, result_types)],
        "params": sorted(params_info.values(), key=lambda d: d["offset"]),  # type: ignore[arg-type, return-value]
        "params_size": p.params_size,
        "workspace_size": p.workspace_size,
    }


def _literal(module: ir.Operation, op: ir.Operation, index: int) -> ir.Value:
    value = op.attributes["value"]
    mtype = memref_type(op.results[0].type)
    if mtype.element_type != ir.RankedTensorType(op.results[0].type).element_type:
        # bools as bytes, unsigned as signless: the same bits in a signed numpy type
        array = np.array(value)
        signed = np.dtype(f"i{max(array.dtype.itemsize, 1)}")
        bits = (array.astype(np.int8) if array.dtype == np.bool_ else array.view(signed)).reshape(mtype.shape)
        value = ir.DenseElementsAttr.get(bits, type=mtype.element_type)
    name = f"__mlc_constant_{index}"
    with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]):
        memref.GlobalOp(name, ir.TypeAttr.get(mtype), sym_visibility="private", initial_value=value,
                        constant=True)
    return memref.GetGlobalOp(mtype, name).result


def manifest_attr(manifest: dict[str, object]) -> ir.Attribute:
    return ir.StringAttr.get(json.dumps(manifest, sort_keys=True))
