"""Lower one outlined graph kernel (`func.func private ... {graph.kernel}`) to a tp program.

Elementwise and injective ops become inline expressions (`expr.py`); every other op is an
anchor that writes a buffer with tp blocks. An anchor whose result reaches the kernel's output
through elementwise ops only writes the output buffer directly, and the epilogue is applied in
place by one elementwise block. Temporaries live in a scratch argument (planned by the caller
like every other intermediate buffer), never in per-call allocations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, func, memref

from mlc.contract import ALIGNMENT, aligned
from mlc.dialects import tp
from mlc.dialects.attrs import from_attr, tensor_t
from mlc.dialects.graph import TensorT, op_kind
from mlc.dialects.graph.spec import OPS
from mlc.dialects.walk import walk
from mlc.errors import DiagnosticError
from mlc.symbolic import Dim, UndecidableError, free_symbols
from mlc.symbolic import parse as parse_dim

from ..runtime_extents import UnsupportedSymbolic, kernel_symbols, materialize
from .expr import Expr, Leaf, block_over, storage_type, to_storage
from .remap_fold import fold_output_remap

DYNAMIC = ir.ShapedType.get_dynamic_size()  # a dynamic memref dim (not -1 in this MLIR)
InlineFn = Callable[["KernelBuilder", ir.Operation], Expr]
# An anchor writes its op's result into the given buffer; it may return a pending elementwise
# expression over that buffer (a bias add, a division) that consumers see as the op's value.
AnchorFn = Callable[["KernelBuilder", ir.Operation, ir.Value], "Expr | None"]
INLINE: dict[str, InlineFn] = {}
ANCHOR: dict[str, AnchorFn] = {}
# Forms of a kernel's leading ops tried before anchor by anchor (attention with an online
# softmax): each emits those ops, sets the value of the last one and returns how many it took,
# or emits nothing and returns 0. The ops after them are lowered as usual.
KernelForm = Callable[["KernelBuilder", Sequence[ir.Operation]], int]
KERNEL_FORMS: list[KernelForm] = []


def inline(*names: str) -> Callable[[InlineFn], InlineFn]:
    def register(fn: InlineFn) -> InlineFn:
        for n in names:
            INLINE[n] = fn
        return fn

    return register


def anchor(*names: str) -> Callable[[AnchorFn], AnchorFn]:
    def register(fn: AnchorFn) -> AnchorFn:
        for n in names:
            ANCHOR[n] = fn
        return fn

    return register


def elem_bytes(t: ir.Type) -> int:
    """Bytes per element in memory (i1 takes a byte, as LLVM stores it)."""
    if isinstance(t, ir.IndexType):
        return 8
    return max(1, -(-t.width // 8))  # type: ignore[attr-defined]


def memref_type(t: ir.Type) -> ir.MemRefType:
    rt = ir.RankedTensorType(t)
    return ir.MemRefType.get(list(rt.shape), storage_type(rt.element_type))


class KernelBuilder:
    """State while lowering one kernel: graph values -> buffers or inline expressions."""

    def __init__(
        self, graph_fn: ir.Operation, tp_fn: ir.Operation, kernel_forms: bool = True
    ) -> None:
        self.graph_fn = graph_fn
        self.kernel_forms = kernel_forms
        self.tp_fn = tp_fn
        self.entry = tp_fn.regions[0].blocks[0]
        graph_entry = graph_fn.regions[0].blocks[0]
        self.values: dict[ir.Value, Expr] = {}
        for g_arg, m_arg in zip(graph_entry.arguments, self.entry.arguments):
            t = tensor_t(g_arg.type)
            assert t is not None
            self.values[g_arg] = Leaf(t.shape, t.dtype, m_arg)
        self.output = self.entry.arguments[len(graph_entry.arguments)]
        self.symbols = kernel_symbols(tp_fn)
        self.owned: dict[ir.Value, ir.Value] = {}  # op result -> the buffer its anchor wrote
        self.scratch: ir.Value | None = None
        self.scratch_size: int | Dim = 0
        self._last_temp: tuple[ir.Value, int | Dim] | None = None
        self.temp_dims: dict[ir.Value, list[int | Dim]] = {}  # a temporary's view -> its sizes
        self.block_count = 0
        self.result: ir.Value | None = None  # the kernel's result (graph value), set by lower()

    # -- values ----------------------------------------------------------------------------
    def expr(self, v: ir.Value) -> Expr:
        return self.values[v]

    def buffer(self, v: ir.Value) -> ir.Value:
        """`v` as a buffer, materializing an inline expression into a temporary."""
        e = self.values[v]
        if isinstance(e, Leaf):
            return e.buffer
        t = tensor_t(v.type)
        assert t is not None
        # A pending epilogue over the anchor's own buffer is applied in place.
        buf = self.owned.get(v) or self.temp(t)
        self.store(e, buf, "materialize")
        self.values[v] = Leaf(t.shape, t.dtype, buf)
        return buf

    def temp(self, t: TensorT) -> ir.Value:
        if self.scratch is None:
            self.scratch = self.entry.add_argument(
                ir.MemRefType.get([DYNAMIC], ir.IntegerType.get_signless(8)), self.tp_fn.location
            )
        shape = [d if isinstance(d, int) else DYNAMIC for d in t.shape]
        mtype = ir.MemRefType.get(shape, storage_type(ir.Type.parse(t.dtype)))
        offset = self.scratch_size
        self.scratch_size += _aligned(t.size * elem_bytes(mtype.element_type))
        sizes = [materialize(d, self.symbols) for d in t.shape if isinstance(d, Dim)]
        view = memref.ViewOp(mtype, self.scratch, materialize(offset, self.symbols), sizes).result
        self._last_temp = (view, offset)
        self.temp_dims[view] = list(t.shape)
        return view

    def dims_of(self, buf: ir.Value) -> list[int | Dim] | None:
        """The sizes of the output or of a temporary (a Dim where known at run time only)."""
        if buf == self.output and self.result is not None:
            return list(self.type_of(self.result).shape)
        return self.temp_dims.get(buf)

    def _release_last_temp(self) -> None:
        """Give back the scratch of the last temporary (no longer used); with nothing left the
        kernel takes no scratch argument."""
        assert self._last_temp is not None and self.scratch is not None
        self.scratch_size = self._last_temp[1]
        self._last_temp = None
        if self.scratch_size == 0 and not list(self.scratch.uses):
            self.entry.erase_argument(len(self.entry.arguments) - 1)
            self.scratch = None

    def store(self, e: Expr, out: ir.Value, name: str) -> None:
        """One elementwise block writing `e` over the whole of `out`."""
        blk, axes, idx = block_over(out, self.name(name), e.shape)
        with ir.InsertionPoint(blk.body):
            tp.yield_(to_storage(e.emit(axes, idx), out))

    def name(self, base: str) -> str:
        self.block_count += 1
        return f"{base}_{self.block_count - 1}"

    def subview(
        self,
        buf: ir.Value,
        offsets: Sequence[int | Dim | ir.Value],
        sizes: Sequence[int | Dim],
    ) -> ir.Value:
        """The box of `buf` at `offsets` of `sizes` (unit strides), as a strided memref: how a
        slice or a concatenation at an offset known only at run time addresses its part. An
        offset may be an `index` value (a loop's position)."""
        mtype = ir.MemRefType(buf.type)
        dyn = ir.ShapedType.get_dynamic_stride_or_offset()
        strides: list[int] = []
        stride: int | None = 1
        for d in reversed(mtype.shape):
            strides.insert(0, dyn if stride is None else stride)
            stride = None if stride is None or ir.ShapedType.is_dynamic_size(d) else stride * d
        static_offset = all(isinstance(o, int) for o in offsets) and dyn not in strides
        offset = sum(o * st for o, st in zip(offsets, strides)) if static_offset else dyn
        if mtype.layout != ir.AffineMapAttr.get(ir.AffineMap.get_identity(mtype.rank)):
            raise UnsupportedSymbolic("a run-time slice of a strided view")
        shape = [d if isinstance(d, int) else DYNAMIC for d in sizes]
        layout = ir.StridedLayoutAttr.get(offset, strides)
        result = ir.MemRefType.get(shape, mtype.element_type, layout)
        return memref.SubViewOp(
            result,
            buf,
            [
                o if isinstance(o, ir.Value) else materialize(o, self.symbols)
                for o in offsets
                if not isinstance(o, int)
            ],
            [materialize(d, self.symbols) for d in sizes if isinstance(d, Dim)],
            [],
            [o if isinstance(o, int) else dyn for o in offsets],
            shape,
            [1] * mtype.rank,
        ).result

    def reshaped(
        self, buf: ir.Value, in_shape: Sequence[int | Dim], out_shape: Sequence[int | Dim]
    ) -> ir.Value:
        """A contiguous buffer viewed in another shape whose dims merge or split runs of its
        dims (memref.collapse_shape / expand_shape: sizes known at run time allowed)."""
        mtype = ir.MemRefType(buf.type)
        if mtype.layout != ir.AffineMapAttr.get(ir.AffineMap.get_identity(mtype.rank)):
            raise UnsupportedSymbolic("a reshape of a strided view with run-time sizes")
        core = [d for d in out_shape if not (isinstance(d, int) and d == 1)]
        if core and list(core) != list(out_shape):  # without its 1s first, then with them
            return self._regroup(self._regroup(buf, in_shape, core), core, out_shape)
        return self._regroup(buf, in_shape, out_shape)

    def _regroup(
        self, buf: ir.Value, in_shape: Sequence[int | Dim], out_shape: Sequence[int | Dim]
    ) -> ir.Value:
        """One collapse_shape or expand_shape from `in_shape` to `out_shape`."""
        if list(in_shape) == list(out_shape):
            return buf
        mtype = ir.MemRefType(buf.type)
        collapse = len(out_shape) <= len(in_shape)
        fine, coarse = (in_shape, out_shape) if collapse else (out_shape, in_shape)
        groups = _runs(fine, coarse)
        if groups is None:
            raise UnsupportedSymbolic(
                f"a reshape from {list(in_shape)} to {list(out_shape)} that is not a merge or "
                "split of runs of dims"
            )
        shape = [d if isinstance(d, int) else DYNAMIC for d in out_shape]
        result = ir.MemRefType.get(shape, mtype.element_type)
        i64 = ir.IntegerType.get_signless(64)
        assoc = ir.ArrayAttr.get(
            [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, k) for k in g]) for g in groups]
        )
        if collapse:
            return memref.CollapseShapeOp(result, buf, assoc).result
        sizes = [materialize(d, self.symbols) for d in out_shape if isinstance(d, Dim)]
        if any(sum(isinstance(out_shape[k], Dim) for k in g) > 1 for g in groups):
            # expand_shape takes one run-time size per group (expand-strided-metadata asserts
            # otherwise): the row-major view with its strides computed instead
            return self._row_major_view(buf, out_shape)
        return memref.ExpandShapeOp(result, buf, assoc, sizes, shape).result

    def _row_major_view(self, buf: ir.Value, shape: Sequence[int | Dim]) -> ir.Value:
        """`buf` (contiguous) seen as a row-major array of `shape`."""
        dyn = ir.ShapedType.get_dynamic_stride_or_offset()
        strides: list[int | Dim] = []
        stride: int | Dim = 1
        for d in reversed(shape):
            strides.insert(0, stride)
            stride = stride * d
        static = [st if isinstance(st, int) else dyn for st in strides]
        dims = [d if isinstance(d, int) else DYNAMIC for d in shape]
        element = ir.MemRefType(buf.type).element_type
        result = ir.MemRefType.get(dims, element, ir.StridedLayoutAttr.get(0, static))
        return memref.ReinterpretCastOp(
            result,
            buf,
            [],
            [materialize(d, self.symbols) for d in shape if isinstance(d, Dim)],
            [materialize(st, self.symbols) for st in strides if isinstance(st, Dim)],
            [0],
            dims,
            static,
        ).result

    def index_value(self, size: Dim) -> ir.Value:
        """A size known at run time as an `index` value at the kernel's top level."""
        return materialize(size, self.symbols)

    def size_scalar(self, size: Dim, element: ir.Type) -> ir.Value:
        """A size known at run time as a scalar of `element` (a mean's count), computed at the
        kernel's top level for block bodies to use."""
        count = arith.IndexCastOp(ir.IntegerType.get_signless(64), materialize(size, self.symbols))
        if isinstance(element, ir.IntegerType):
            return arith.TruncIOp(element, count).result if element.width < 64 else count.result
        return arith.SIToFPOp(element, count).result

    @staticmethod
    def attrs(op: ir.Operation) -> dict[str, object]:
        return {k: from_attr(op.attributes[k]) for k in op.attributes}

    @staticmethod
    def type_of(v: ir.Value) -> TensorT:
        t = tensor_t(v.type)
        assert t is not None, v.type
        return t

    # -- driver ----------------------------------------------------------------------------
    def lower(self) -> None:
        ops = [o.operation for o in self.graph_fn.regions[0].blocks[0].operations]
        ret = ops[-1]
        assert ret.name == "func.return"
        result = ret.operands[0]
        self.result = result
        in_place = _in_place_root(ops[:-1], result)
        with ir.InsertionPoint(self.entry):
            if (
                self.type_of(result).size == 0
            ):  # an empty result: nothing to write (no 0-extent block)
                func.ReturnOp([])
                return
            taken = 0
            for form in KERNEL_FORMS if self.kernel_forms else []:
                taken = taken or form(self, ops[:-1])
            for op in ops[taken:-1]:
                try:
                    self._lower_op(op, result, in_place)
                except (UnsupportedSymbolic, UndecidableError, TypeError, AttributeError) as e:
                    if not self.symbols:
                        raise
                    why = f": {e}" if isinstance(e, (UnsupportedSymbolic, UndecidableError)) else ""
                    raise DiagnosticError(
                        f"graph-to-tp: '{op.name}' on sizes known only at run time is not "
                        f"supported yet{why}; fix the sizes with --input-shapes",
                        op.location,
                    ) from e
            final = self.values[result]
            if not (isinstance(final, Leaf) and final.buffer == self.output):
                self.store(final, self.output, "epilogue" if in_place is not None else "copy")
                freed = fold_output_remap(self.entry, self.output, self.dims_of)
                if freed is not None and self._last_temp and self._last_temp[0] == freed:
                    self._release_last_temp()
            func.ReturnOp([])

    def _lower_op(self, op: ir.Operation, result: ir.Value, in_place: ir.Operation | None) -> None:
        name = op.name.removeprefix("graph.")
        with op.location:
            if name in INLINE and op is not in_place:
                self.values[op.results[0]] = INLINE[name](self, op)
                return
            if name not in ANCHOR:
                raise DiagnosticError(f"graph-to-tp: no lowering for '{op.name}' yet", op.location)
            out = self.output if (op.results[0] == result or op is in_place) else None
            self.values[op.results[0]] = self.anchor_value(op, out)

    def anchor_value(self, op: ir.Operation, out: ir.Value | None = None) -> Expr:
        """Run `op`'s anchor into `out` (a new temporary by default); the op's value after it."""
        name = op.name.removeprefix("graph.")
        t = self.type_of(op.results[0])
        if out is None:  # an anchor reached from an inline op (pad) writes the output directly
            out = self.output if op.results[0] == self.result else self.temp(t)
        pending = ANCHOR[name](self, op, out)
        self.owned[op.results[0]] = out
        return pending if pending is not None else Leaf(t.shape, t.dtype, out)


def _in_place_root(ops: Sequence[ir.Operation], result: ir.Value) -> ir.Operation | None:
    """The anchor whose result reaches `result` through same-shape elementwise ops only."""
    anchors = [op for op in ops if op_kind(op) in ("compute", "reduce")]
    if len(anchors) != 1 or anchors[0].results[0].type != result.type:
        return None
    root = anchors[0]
    after = ops[list(ops).index(root) + 1 :]
    if all(op_kind(op) == "elemwise" and op.results[0].type == result.type for op in after):
        return root
    return None


def _runs(fine: Sequence[int | Dim], coarse: Sequence[int | Dim]) -> list[list[int]] | None:
    """For each coarse dim, the run of consecutive fine dims whose product it is (structural
    equality of sizes; dims of 1 join the run before them), or None."""
    groups: list[list[int]] = []
    i = 0
    for d in coarse:
        run: list[int] = []
        product: int | Dim = 1
        while not (run and product == d):
            if i == len(fine):
                return None
            product = product * fine[i]
            run.append(i)
            i += 1
        groups.append(run)
    if not groups:
        return None
    while i < len(fine) and fine[i] == 1:
        groups[-1].append(i)
        i += 1
    return groups if i == len(fine) else None


def _aligned(nbytes: int | Dim) -> int | Dim:
    return (
        aligned(nbytes)
        if isinstance(nbytes, int)
        else (nbytes + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
    )


def kernel_symbols_of(graph_fn: ir.Operation) -> list[str]:
    """The symbols the sizes of a graph kernel's values use (its tp program's `index` arguments)."""
    values = list(graph_fn.regions[0].blocks[0].arguments)
    names: set[str] = set()
    for op in walk(graph_fn):
        values += list(op.results)
        spec = OPS.get(op.name.removeprefix("graph.")) if op.name.startswith("graph.") else None
        for attr_spec in spec.attrs if spec is not None else ():
            # `dims` attributes: sizes as data (dim_values, range, a reshape's shape)
            attr = op.attributes[attr_spec.name] if attr_spec.name in op.attributes else None
            if attr_spec.kind == "dims" and isinstance(attr, ir.ArrayAttr):
                for a in attr:
                    if isinstance(a, ir.StringAttr):
                        names |= free_symbols(parse_dim(a.value))
    for v in values:
        t = tensor_t(v.type) if isinstance(v.type, ir.RankedTensorType) else None
        for d in t.shape if t is not None else ():
            names |= free_symbols(d)
    return sorted(names)


def kernel_signature(graph_fn: ir.Operation) -> tuple[list[ir.Type], ir.Type]:
    ftype = ir.FunctionType(ir.TypeAttr(graph_fn.attributes["function_type"]).value)
    return [memref_type(t) for t in ftype.inputs], memref_type(ftype.results[0])
