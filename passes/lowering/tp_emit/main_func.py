"""Lower the model function (`@main`: constants and kernel calls on tensors) to `@mlc_main`.

`mlc_main(inputs..., outputs..., params: memref<Pxi8>, workspace: memref<Wxi8>)` calls the tp
kernels on buffers: parameters are views into the params blob, intermediates and kernel scratch
are views into the workspace at offsets planned once (`planner.py`), and a kernel whose result
is a model output writes the output buffer directly. A reshape left in @main by graph-fuse
(of a kernel's result) is a view of that result's workspace buffer, which then lives as long
as its views. See docs/design.md for the contract.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import func, memref

from mlc.contract import ENTRY, NUMPY_DTYPES, Manifest, ParamSpec, TensorSpec
from mlc.dialects.attrs import param_name, tensor_t
from mlc.errors import DiagnosticError
from mlc.symbolic import Dim, interval, sym

from ...graph_simplify_identity import RESHAPE_LIKE
from ...outline import is_kernel_view
from ..emit_util import index_const
from .kernel import DYNAMIC, elem_bytes, memref_type
from .planner import Lifetime, aligned, plan
from .runtime_sizes import RuntimeSizes, buffer_bytes


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


def _spec(name: str, t: ir.Type) -> TensorSpec:
    """Name, shape and numpy dtype of a tensor type (its buffer stores bools as bytes); a dim
    known only at run time is its expression's text."""
    dtype = str(ir.RankedTensorType(t).element_type)
    shape = tuple(d if isinstance(d, int) else str(d) for d in _dims(t))
    return TensorSpec(name, shape, NUMPY_DTYPES.get(dtype, dtype))  # type: ignore[arg-type]


def _dims(t: ir.Type) -> tuple[int | Dim, ...]:
    tt = tensor_t(t)
    assert tt is not None
    return tuple(tt.shape)


@dataclass
class _Plan:
    params: dict[ir.Value, tuple[str, int]]  # constant result -> (param name, offset)
    params_size: int
    work: dict[object, int]  # value or ("scratch", step) -> workspace offset
    last_read: dict[ir.Value, int]  # buffer owner -> the step after which it is dead
    workspace_size: int
    bound_outputs: dict[ir.Value, int]  # kernel result -> output position it writes directly
    owner: dict[ir.Value, ir.Value]  # view -> the kernel result whose buffer it is


def _buffers(
    ops: list[ir.Operation], results: list[ir.Value]
) -> tuple[dict[ir.Value, ir.Value], dict[ir.Value, int]]:
    """Each view's buffer owner (a kernel's result), and each owner's last reader: the step of
    the last op reading it or one of its views, len(ops) for a model output (copied at the end)."""
    owner: dict[ir.Value, ir.Value] = {}
    for op in ops:
        if op.name in RESHAPE_LIKE:
            src = op.operands[0]
            owner[op.results[0]] = owner.get(src, src)
    last: dict[ir.Value, int] = {}
    for i, op in enumerate(ops):
        for v in op.operands:
            last[owner.get(v, v)] = i
    for v in results:
        last[owner.get(v, v)] = len(ops)
    return owner, last


MAX_BOUNDED_BYTES = 1 << 28
"""A buffer of run-time size is planned in the workspace at its upper bound (from the symbols'
bounds) when that is at most this; larger or unbounded ones are allocated per call."""


def bounded_bytes(count: int | Dim) -> int | None:
    """`count` bytes at the upper bounds of its symbols (the assumed ones), or None when that
    is unbounded or above MAX_BOUNDED_BYTES."""
    if isinstance(count, int):
        return count
    hi = interval(count)[1]
    return int(hi) if hi <= MAX_BOUNDED_BYTES else None


def _plan(ops: list[ir.Operation], results: list[ir.Value], scratch: dict[str, int | Dim]) -> _Plan:
    params: dict[ir.Value, tuple[str, int]] = {}
    seen_names: dict[str, int] = {}
    p_off = 0
    owner, last_read = _buffers(ops, results)
    viewed = set(owner.values())
    bound: dict[ir.Value, int] = {}
    for k, v in enumerate(results):
        producer = v.owner
        if (
            not isinstance(producer, ir.Block)
            and producer.operation.name == "func.call"
            and v not in bound
            and v not in viewed  # its views need it in the workspace
        ):
            bound[v] = k
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
            most = bounded_bytes(scratch.get(callee, 0))
            if most:  # unbounded run-time scratch: allocated per call (`_emit_entry`)
                lifetimes.append(Lifetime(("scratch", i), most, i, i))
            if v in bound:
                continue
            most = bounded_bytes(buffer_bytes(v.type))
            if most is not None:  # else allocated per call
                lifetimes.append(Lifetime(v, most, i, last_read.get(v, i)))
    work, peak = plan(lifetimes)
    return _Plan(params, p_off, work, last_read, peak, bound, owner)


def lower_main(
    module: ir.Operation,
    main: ir.Operation,
    scratch: dict[str, int | Dim],
    symbols: dict[str, tuple[str, ...]] | None = None,
) -> Manifest:
    """Replace `main` by `mlc_main`; returns the manifest (the contract part). `symbols`: the
    symbol arguments each kernel with run-time extents takes after its buffers."""
    ops = [o.operation for o in main.regions[0].blocks[0].operations]
    results = list(ops[-1].operands)
    for op in ops[:-1]:
        if is_kernel_view(op):
            continue
        if op.name not in ("graph.constant", "func.call"):
            raise DiagnosticError(
                f"graph-to-tp: '{op.name}' must be inside a kernel before lowering "
                "@main (run graph-fuse first)",
                op.location,
            )
    p = _plan(ops[:-1], results, scratch)
    manifest = _manifest(main, results, p)
    _emit_entry(module, main, ops[:-1], results, p, scratch, symbols or {})
    main.erase()
    return manifest


def _manifest(main: ir.Operation, results: list[ir.Value], p: _Plan) -> Manifest:
    entry_types = [a.type for a in main.regions[0].blocks[0].arguments]
    in_names = _names(main, "mlc.input_names", len(entry_types), "input")
    out_names = _names(main, "mlc.output_names", len(results), "output")
    params = {
        name: ParamSpec(**vars(_spec(name, v.type)), offset=off)
        for v, (name, off) in p.params.items()
    }
    return Manifest(
        entry=ENTRY,
        inputs=tuple(_spec(n, t) for n, t in zip(in_names, entry_types)),
        outputs=tuple(_spec(n, v.type) for n, v in zip(out_names, results)),
        params=tuple(sorted(params.values(), key=lambda q: q.offset)),
        params_size=p.params_size,
        workspace_size=p.workspace_size,
    )


def _emit_entry(
    module: ir.Operation,
    main: ir.Operation,
    ops: list[ir.Operation],
    results: list[ir.Value],
    p: _Plan,
    scratch: dict[str, int | Dim],
    symbols: dict[str, tuple[str, ...]],
) -> None:
    """`mlc_main` over buffers: views into the two blobs, one call per kernel, output copies.
    A buffer whose size is known at run time only is a view at its planned offset when its
    symbols are bounded (planned at the bounds), else allocated when its kernel runs and freed
    after its last reader."""
    entry = main.regions[0].blocks[0]
    in_types = [memref_type(a.type) for a in entry.arguments]
    out_types = [memref_type(v.type) for v in results]
    i8 = ir.IntegerType.get_signless(8)
    blob = lambda n: ir.MemRefType.get([max(n, 1)], i8)  # noqa: E731
    with ir.InsertionPoint(module.regions[0].blocks[0]), main.location:
        new = func.FuncOp(
            ENTRY, (in_types + out_types + [blob(p.params_size), blob(p.workspace_size)], [])
        )
        new.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        body = new.add_entry_block()
    args = list(body.arguments)
    inputs, outputs = args[: len(in_types)], args[len(in_types) : len(in_types) + len(out_types)]
    params_blob, work = args[-2], args[-1]
    env: dict[ir.Value, ir.Value] = dict(zip(entry.arguments, inputs))
    globals_count = 0
    heap: dict[ir.Value, ir.Value] = {}  # symbolic buffer owner -> its bytes
    with ir.InsertionPoint(body):
        sizes = RuntimeSizes(entry.arguments, inputs, main.location)
        for i, op in enumerate(ops):
            with op.location:
                v = op.results[0]
                if op.name == "graph.constant":
                    if v in p.params:
                        env[v] = memref.ViewOp(
                            memref_type(v.type), params_blob, index_const(p.params[v][1]), []
                        ).result
                    else:
                        env[v] = _literal(module, op, globals_count)
                        globals_count += 1
                    continue
                if op.name in RESHAPE_LIKE:
                    owner = p.owner[v]
                    if owner in heap:
                        env[v] = sizes.view(v.type, heap[owner])
                        continue
                    env[v] = sizes.view(v.type, work, p.work[owner])
                    continue
                if v in p.bound_outputs:
                    out = outputs[p.bound_outputs[v]]
                elif v not in p.work:  # run-time size without a bound
                    heap[v] = sizes.allocate(v.type)
                    out = sizes.view(v.type, heap[v])
                else:
                    out = sizes.view(v.type, work, p.work[v])
                call_args = [env[a] for a in op.operands] + [out]
                callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                call_args += [sizes.value(sym(s)) for s in symbols.get(callee, ())]
                size = scratch.get(callee, 0)
                per_call = size and ("scratch", i) not in p.work
                if per_call:
                    temporaries = sizes.allocate_bytes(size)
                    call_args.append(temporaries)
                elif size:
                    dyn = ir.MemRefType.get([DYNAMIC], i8)
                    call_args.append(
                        memref.ViewOp(
                            dyn,
                            work,
                            index_const(p.work[("scratch", i)]),
                            [sizes.value(size)],
                        ).result
                    )
                func.CallOp([], ir.FlatSymbolRefAttr.get(callee), call_args)
                if per_call:
                    memref.DeallocOp(temporaries)
                env[v] = out
                for owner in [o for o in heap if p.last_read.get(o, i) == i]:
                    memref.DeallocOp(heap.pop(owner))
        for k, v in enumerate(results):
            if p.bound_outputs.get(v) != k:
                memref.CopyOp(env[v], outputs[k])
        for buffer in heap.values():
            memref.DeallocOp(buffer)
        func.ReturnOp([])


def _literal(module: ir.Operation, op: ir.Operation, index: int) -> ir.Value:
    value = op.attributes["value"]
    mtype = memref_type(op.results[0].type)
    if mtype.element_type != ir.RankedTensorType(op.results[0].type).element_type:
        # bools as bytes, unsigned as signless: the same bits in a signed numpy type
        array = np.array(value)
        signed = np.dtype(f"i{max(array.dtype.itemsize, 1)}")
        bits = (array.astype(np.int8) if array.dtype == np.bool_ else array.view(signed)).reshape(
            mtype.shape
        )
        value = ir.DenseElementsAttr.get(bits, type=mtype.element_type)
    name = f"__mlc_constant_{index}"
    with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]):
        memref.GlobalOp(
            name,
            ir.TypeAttr.get(mtype),
            sym_visibility="private",
            initial_value=value,
            constant=True,
        )
    return memref.GetGlobalOp(mtype, name).result


def manifest_attr(manifest: Manifest) -> ir.Attribute:
    """The manifest as the module's `mlc.manifest` attribute: JSON on one line, keys sorted."""
    return ir.StringAttr.get(json.dumps(manifest.to_dict(), sort_keys=True))
