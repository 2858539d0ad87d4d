"""Print a tp kernel as tp script (the DSL `parser` reads), so generated kernels read as Python.

Body ops the DSL has sugar for print as operators and `T.` calls; any other one-result op prints
as `T.op("dialect.name", operands..., result="type", attr="...")`, so every kernel round-trips.
Values used once are inlined; others get a local name.
"""

from __future__ import annotations

import ast
import keyword
import math

from mlir import ir

from mlc.dialects.tp import BlockView
from mlc.dialects.tp.affine import is_identity
from mlc.errors import MlcError

from .dtypes import dtype_name, is_float
from .exprs import CMPF, CMPI, FLOAT_BIN, INT_BIN, MATH_UNARY

_BIN = {f"arith.{n}": op for table in (FLOAT_BIN, INT_BIN) for op, n in table.items()}
_CMP = {("arith.cmpf", p): op for op, p in CMPF.items()}
_CMP.update({("arith.cmpi", p): op for op, p in CMPI.items()})
_CALLS = {f"math.{n}": n for n in MATH_UNARY}
_CALLS.update(
    {
        "math.absf": "abs",
        "math.absi": "abs",
        "math.powf": "pow",
        "arith.maxnumf": "fastmax",
        "arith.maxui": "maxui",
        "arith.minui": "minui",
        "arith.select": "select",
        "tp.dot4": "dot4",
    }
)
_MINMAX = {"arith.maximumf": "max", "arith.minimumf": "min", "arith.maxsi": "max",
           "arith.minsi": "min"}  # fmt: skip
_CASTS = ("arith.extf", "arith.truncf", "arith.sitofp", "arith.fptosi", "arith.extsi",
          "arith.trunci", "arith.index_cast")  # fmt: skip
_NO_FASTMATH = "#arith.fastmath<none>"
"""The default the op builders add: printed as no attribute."""
_COMBINE = {"max": "max", "min": "min", "fastmax": "fastmax", "maxui": "maxui", "minui": "minui"}


class PrintError(MlcError):
    """A kernel the tp script cannot express."""


def _t(attr: str) -> ast.expr:
    return ast.Attribute(ast.Name("T"), attr)


def _call(name: str, *args: ast.expr, **kw: ast.expr) -> ast.Call:
    return ast.Call(_t(name), list(args), [ast.keyword(k, v) for k, v in kw.items()])


def _const(value: object) -> ast.expr:
    return ast.Constant(value)


def _number(t: ir.Type, value: float | int) -> ast.expr:
    name = dtype_name(t)
    if name is None:
        raise PrintError(f"no tp script dtype for {t}")
    if isinstance(value, float) and not math.isfinite(value):
        return _call(name, _const(str(value)))
    return _call(name, _const(value))


def _shape(t: ir.MemRefType) -> ast.expr:
    dims = [_const(None if ir.ShapedType.is_dynamic_size(d) else d) for d in t.shape]
    return ast.Tuple(dims)


def _buffer_type(t: ir.Type) -> ast.expr:
    mtype = ir.MemRefType(t)
    name = dtype_name(mtype.element_type)
    layout = mtype.layout
    if name is None or not (isinstance(layout, ir.AffineMapAttr) and is_identity(layout.value)):
        raise PrintError(f"no tp script buffer type for {t}")
    return _call("Buffer", _shape(mtype), _const(name))


def _attr_number(attr: ir.Attribute) -> float | int:
    try:
        return ir.FloatAttr(attr).value
    except ValueError:
        pass
    try:
        return ir.IntegerAttr(attr).value
    except ValueError:
        raise PrintError(f"tp script has no constant form for {attr}") from None


class _Names:
    def __init__(self) -> None:
        self.used: set[str] = {"T"}

    def fresh(self, want: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in want) or "x"
        if base[0].isdigit():
            base = "_" + base
        name, n = base, 0
        while name in self.used or keyword.iskeyword(name):
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return name


class _KernelPrinter:
    def __init__(self, fn: ir.Operation) -> None:
        self.fn = fn
        self.names = _Names()
        self.buffers: dict[ir.Value, str] = {}

    def function(self) -> ast.FunctionDef:
        entry = self.fn.regions[0].blocks[0]
        args = []
        for i, a in enumerate(entry.arguments):
            name = self.names.fresh(chr(ord("A") + i) if i < 26 else f"buf{i}")
            self.buffers[a] = name
            args.append(ast.arg(name, _buffer_type(a.type)))
        self.consts: dict[ir.Value, int] = {}
        self.scalars: dict[ir.Value, ast.expr] = {}  # serial loop variables, outer scalars
        self.writer: dict[ir.Value, str] = {}  # a temporary is named after the block filling it
        self._find_writers(entry)
        body = self.top_ops([op.operation for op in entry.operations])
        sym = ir.StringAttr(self.fn.attributes["sym_name"]).value
        return ast.FunctionDef(
            name=self.names.fresh(sym),
            args=ast.arguments([], args, None, [], [], None, []),
            body=body or [ast.Pass()],
            decorator_list=[_t("script")],
            returns=None,
            type_params=[],
            lineno=1,
        )

    def _find_writers(self, block: ir.Block) -> None:
        for op in block.operations:
            op = op.operation
            if op.name == "tp.block":
                self.writer.setdefault(op.operands[0], BlockView(op).name)
            for region in op.regions:
                for inner in region.blocks:
                    self._find_writers(inner)

    def _buffer_name(self, v: ir.Value, fallback: str) -> str:
        name = self.names.fresh(self.writer.get(v, fallback))
        self.buffers[v] = name
        return name

    def top_ops(self, ops: list[ir.Operation]) -> list[ast.stmt]:
        """Statements for the ops of a kernel body or of a serial loop's body."""
        body: list[ast.stmt] = []
        for op in ops:
            if op.name in ("func.return", "scf.yield"):
                continue
            if op.name == "arith.constant":  # printed where used
                if isinstance(op.result.type, ir.IndexType):
                    self.consts[op.result] = ir.IntegerAttr(op.attributes["value"]).value
            elif op.name == "memref.alloc" and not op.operands:
                t = ir.MemRefType(op.result.type)
                call = _call("alloc_buffer", _shape(t), _const(dtype_name(t.element_type)))
                body.append(ast.Assign([ast.Name(self._buffer_name(op.result, "tmp"))], call))
            elif (
                op.name == "memref.view" and len(op.operands) == 2 and op.operands[1] in self.consts
            ):
                t = ir.MemRefType(op.result.type)
                call = _call(
                    "view",
                    ast.Name(self.buffers[op.operands[0]]),
                    _const(self.consts[op.operands[1]]),
                    _shape(t),
                    _const(dtype_name(t.element_type)),
                )
                body.append(ast.Assign([ast.Name(self._buffer_name(op.result, "view"))], call))
            elif op.name == "memref.subview":
                body.append(self.subview(op))
            elif op.name == "scf.for" and not op.results:
                body.append(self.serial(op))
            elif op.name == "tp.block":
                outer = set(self.names.used)  # loop, block and local names are per block
                body.append(self.block(BlockView(op)))
                self.names.used = outer
            elif len(op.results) == 1 and not op.regions:  # a scalar outside the blocks
                self.bvars, self.axes = [], []
                expr = self.expr(op, {})
                name = self.names.fresh(f"s{len(self.scalars)}")
                self.scalars[op.result] = ast.Name(name)
                body.append(ast.Assign([ast.Name(name)], expr))
            else:
                raise PrintError(f"tp script cannot express '{op.name}' at the top of a kernel")
        return body

    def subview(self, op: ir.Operation) -> ast.stmt:
        attrs = op.attributes
        static = list(ir.DenseI64ArrayAttr(attrs["static_offsets"]))
        sizes = list(ir.DenseI64ArrayAttr(attrs["static_sizes"]))
        strides = list(ir.DenseI64ArrayAttr(attrs["static_strides"]))
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        if any(x == dynamic for x in sizes) or any(x != 1 for x in strides):
            raise PrintError("tp script has subviews of static sizes and unit strides only")
        operands = iter(list(op.operands)[1:])
        offsets = [self.scalar(next(operands)) if x == dynamic else _const(x) for x in static]
        call = _call(
            "subview",
            ast.Name(self.buffers[op.operands[0]]),
            ast.List(offsets),
            ast.List([_const(x) for x in sizes]),
            _const(str(op.result.type)),
        )
        return ast.Assign([ast.Name(self._buffer_name(op.result, "sub"))], call)

    def scalar(self, v: ir.Value) -> ast.expr:
        got = self.scalars.get(v)
        if got is not None:
            return got
        expr = self.captured(v)
        if expr is None:
            raise PrintError("tp script cannot express a value defined outside the kernel body")
        return expr

    def serial(self, op: ir.Operation) -> ast.stmt:
        bounds = list(op.operands)[:3]
        if any(b not in self.consts for b in bounds):
            raise PrintError("tp script has serial loops with constant bounds only")
        lo, hi, step = (self.consts[b] for b in bounds)
        args = [hi] if (lo, step) == (0, 1) else [lo, hi, step]
        body_block = op.regions[0].blocks[0]
        var = self.names.fresh("t")
        self.scalars[body_block.arguments[0]] = ast.Name(var)
        inner = self.top_ops([o.operation for o in body_block.operations])
        return ast.For(
            ast.Name(var), _call("serial", *[_const(a) for a in args]), inner or [ast.Pass()], []
        )

    def block(self, view: BlockView) -> ast.stmt:
        loop_names = [self.names.fresh(a) for a in view.axes]
        if loop_names != view.axes:
            raise PrintError(f"block '{view.name}': axis names {view.axes} are not Python names")
        bvars = [self.names.fresh(f"v{a}") for a in view.axes]
        self.bvars = bvars
        self.axes = view.axes
        stmts: list[ast.stmt] = [
            ast.Assign(
                [ast.Tuple([ast.Name(v) for v in bvars]) if len(bvars) > 1 else ast.Name(bvars[0])],
                _call("remap", _const(view.kinds), ast.List([ast.Name(n) for n in loop_names])),
            )
        ]
        stmts[0].value.func = ast.Attribute(_t("axis"), "remap")  # type: ignore[attr-defined]
        sched = view.schedule
        if sched != type(sched)():
            kw: dict[str, ast.expr] = {}
            if sched.tile:
                kw["tile"] = _const({k: list(v) for k, v in sched.tile.items()})
            if sched.order:
                kw["order"] = _const(list(sched.order))
            if sched.unroll:
                kw["unroll"] = _const(dict(sched.unroll))
            if sched.vectorize:
                kw["vectorize"] = _const(sched.vectorize)
            if sched.parallel:
                kw["parallel"] = _const(list(sched.parallel))
            stmts.append(ast.Expr(_call("schedule", **kw)))
        target = ast.Subscript(
            ast.Name(self.buffers[view.out]),
            self.index_tuple(view.out_map.results),
        )
        elem = ir.MemRefType(view.out.type).element_type
        if not isinstance(view.init, ir.UnitAttr):
            init = _number(elem, _attr_number(view.init))
            stmts.append(ast.With([ast.withitem(_call("init"))], [ast.Assign([target], init)]))
        body_ops = [op.operation for op in view.body.operations]
        value, *position = self.body(body_ops, stmts)
        combiner = view.combiner
        if view.scatter:  # OUT[T.scatter(i, j, combiner="add")] = value
            kw = {} if combiner == "none" else {"combiner": _const(combiner)}
            target.slice = _call("scatter", *position, **kw)
            stmts.append(ast.Assign([target], value))
        elif combiner == "none":
            stmts.append(ast.Assign([target], value))
        elif isinstance(view.init, ir.UnitAttr):
            if combiner not in ("add", "mul"):
                raise PrintError(f"block '{view.name}': combiner {combiner} without init")
            op = ast.Add() if combiner == "add" else ast.Mult()
            stmts.append(ast.AugAssign(target, op, value))
        elif combiner in ("add", "mul"):
            op = ast.Add() if combiner == "add" else ast.Mult()
            stmts.append(ast.Assign([target], ast.BinOp(target, op, value)))
        else:
            stmts.append(ast.Assign([target], _call(_COMBINE[combiner], target, value)))
        grid = _call("grid", *[_const(e) for e in view.extents])
        names = [ast.Name(n) for n in loop_names]
        return ast.For(
            ast.Tuple(names) if len(names) > 1 else names[0],
            grid,
            [ast.With([ast.withitem(_call("block", _const(view.name)))], stmts)],
            [],
        )

    def captured(self, v: ir.Value) -> ast.expr | None:
        """A constant defined outside the block (bodies may use them): printed in place."""
        op = v.owner
        if isinstance(op, ir.Block) or v in self.buffers:
            return None
        if op.name == "arith.constant" and len(op.attributes) == 1 and dtype_name(v.type):
            return _number(v.type, _attr_number(op.attributes["value"]))
        raise PrintError(f"tp script cannot express a block reading '{op.name}' from outside")

    def index_tuple(self, exprs: list[ir.AffineExpr]) -> ast.expr:
        items = [self.affine(e) for e in exprs]
        return ast.Tuple(items) if len(items) != 1 else items[0]

    def affine(self, e: ir.AffineExpr) -> ast.expr:
        e = e.maybe_downcast()
        if isinstance(e, ir.AffineDimExpr):
            return ast.Name(self.bvars[e.position])
        if isinstance(e, ir.AffineConstantExpr):
            return _const(e.value)
        if isinstance(e, ir.AffineAddExpr):
            rhs = e.rhs.maybe_downcast()
            if isinstance(rhs, ir.AffineConstantExpr) and rhs.value < 0:
                return ast.BinOp(self.affine(e.lhs), ast.Sub(), _const(-rhs.value))
            if isinstance(rhs, ir.AffineMulExpr):
                k = rhs.rhs.maybe_downcast()
                if isinstance(k, ir.AffineConstantExpr) and k.value == -1:
                    return ast.BinOp(self.affine(e.lhs), ast.Sub(), self.affine(rhs.lhs))
            return ast.BinOp(self.affine(e.lhs), ast.Add(), self.affine(e.rhs))
        if isinstance(e, ir.AffineMulExpr):
            return ast.BinOp(self.affine(e.lhs), ast.Mult(), self.affine(e.rhs))
        if isinstance(e, ir.AffineFloorDivExpr):
            return ast.BinOp(self.affine(e.lhs), ast.FloorDiv(), self.affine(e.rhs))
        if isinstance(e, ir.AffineModExpr):
            return ast.BinOp(self.affine(e.lhs), ast.Mod(), self.affine(e.rhs))
        raise PrintError(f"tp script has no form for the index expression {e}")

    def body(self, ops: list[ir.Operation], stmts: list[ast.stmt]) -> list[ast.expr]:
        """Statements for the body's ops (into `stmts`); the expressions of what the body yields
        (the value, then a scatter block's position)."""
        exprs: dict[ir.Value, ast.expr] = {}
        uses: dict[ir.Value, int] = {}
        for op in ops:
            for v in op.operands:
                uses[v] = uses.get(v, 0) + 1
        for op in ops[:-1]:
            if len(op.results) != 1 or op.regions:
                raise PrintError(f"tp script cannot express '{op.name}' in a block body")
            expr = self.expr(op, exprs)
            v = op.result
            if uses.get(v, 0) == 1:  # body ops are pure: inlining keeps the dataflow
                exprs[v] = expr
            else:
                name = self.names.fresh(f"t{len(stmts)}")
                stmts.append(ast.Assign([ast.Name(name)], expr))
                exprs[v] = ast.Name(name)
        return [  # type: ignore[misc]
            exprs.get(v) or self.scalars.get(v) or self.captured(v) for v in ops[-1].operands
        ]

    def expr(self, op: ir.Operation, exprs: dict[ir.Value, ast.expr]) -> ast.expr:
        args = [exprs.get(v) or self.scalars.get(v) or self.captured(v) for v in op.operands]
        named = [op.attributes[i] for i in range(len(op.attributes))]
        named = [a for a in named if not (a.name == "fastmath" and str(a.attr) == _NO_FASTMATH)]
        attrs = {a.name for a in named}
        t = op.result.type
        if op.name == "arith.constant" and attrs == {"value"} and dtype_name(t):
            return _number(t, _attr_number(op.attributes["value"]))
        if op.name in ("tp.read", "tp.read_padded"):
            amap = ir.AffineMapAttr(op.attributes["map"]).value
            ref = ast.Subscript(
                ast.Name(self.buffers[op.operands[0]]), self.index_tuple(amap.results)
            )
            if op.name == "tp.read":
                return ref
            pad = _number(t, _attr_number(op.attributes["value"]))
            return _call("padded", ref, pad)
        if op.name == "tp.load":
            return ast.Subscript(ast.Name(self.buffers[op.operands[0]]), ast.Tuple(args[1:]))
        if op.name == "tp.index":
            axis = ir.StringAttr(op.attributes["axis"]).value
            return ast.Name(self.bvars[self.axes.index(axis)])
        if not attrs:
            if op.name in _BIN and len(args) == 2 and self._bin_matches(op):
                return ast.BinOp(args[0], _BIN[op.name](), args[1])
            if op.name == "arith.negf":
                return ast.UnaryOp(ast.USub(), args[0])
            if op.name in _MINMAX:
                return _call(_MINMAX[op.name], *args)
            if op.name in _CALLS:
                return _call(_CALLS[op.name], *args)
            if op.name in _CASTS and dtype_name(t) and self._cast_matches(op):
                return _call("cast", args[0], _const(dtype_name(t)))
        if op.name in ("arith.cmpf", "arith.cmpi") and attrs == {"predicate"}:
            pred = ir.IntegerAttr(op.attributes["predicate"]).value
            cmp = _CMP.get((op.name, pred))
            if cmp is not None:
                return ast.Compare(args[0], [cmp()], [args[1]])
        kw = {a.name: _const(str(a.attr)) for a in named if a.name.isidentifier()}
        odd = {a.name: str(a.attr) for a in named if not a.name.isidentifier()}
        if odd or {"result", "attrs"} & set(kw):
            kw = {"attrs": _const({a.name: str(a.attr) for a in named})}
        return _call("op", _const(op.name), *args, result=_const(str(t)), **kw)

    def _bin_matches(self, op: ir.Operation) -> bool:
        """The parser makes float `/`, `%` divf/remf and integer ones divsi/remsi: only then is
        the operator form the same op."""
        floating = is_float(op.result.type)
        return op.name.endswith("f") == floating

    def _cast_matches(self, op: ir.Operation) -> bool:
        """Whether `T.cast` parses back to this very op (the parser picks one op per pair)."""
        s, t = op.operands[0].type, op.result.type
        if op.name == "arith.index_cast":
            return isinstance(s, ir.IndexType) != isinstance(t, ir.IndexType) and not (
                isinstance(s, ir.IndexType) and not isinstance(t, ir.IntegerType)
            )
        return not isinstance(s, ir.IndexType) and not isinstance(t, ir.IndexType)


def to_script(fn: ir.Operation) -> str:
    """The tp script text of one `tp.kernel` function (raises PrintError when it has no form)."""
    printer = _KernelPrinter(fn)
    with fn.context:
        tree = ast.Module([printer.function()], [])
    header = "from mlc import tp as T\n\n\n"
    return header + ast.unparse(ast.fix_missing_locations(tree)) + "\n"
