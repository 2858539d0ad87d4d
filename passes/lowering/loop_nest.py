"""Lower one tp.block to scf loops over memrefs, honouring its schedule.

Loops come from `Schedule.loops` (tiling and order). The parallel prefix becomes one
`scf.parallel`; a vectorized innermost loop becomes vector code; unrolled loops are replicated.
Reductions: let P be the first reduce loop. When every spatial loop after P is fully unrolled or
vectorized, the output tile lives in registers: accumulators are `iter_args` of the reduce loops,
initialised before P and stored once after (a register tile, as in a BLIS micro-kernel).
Otherwise the output is initialised by its own loop nest at P and updated in memory.
Tiles that do not divide their axis are guarded by `axis < extent` at the innermost level,
except the vectorized axis: its last, partial tile is peeled into code on narrower vectors (a row
of 197 floats: 12 vectors of 16, then one of 5), so no vector ever reaches past the data.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from mlc.dialects.tp import BlockView, Loop
from mlc.dialects.tp.affine import is_identity, linear_coeff
from mlc.symbolic import Dim

from .body import BodyEmitter, Point
from .emit_util import apply, broadcast, combine, horizontal, index_const, scalar_const
from .runtime_extents import kernel_symbols, materialize

Carried = list[ir.Value]
Inner = Callable[[Point, Carried], Carried]

TAIL_PIECES_ABOVE = 8
"""A partial last vector of more lanes than this that is not a power of two is split."""

ROLLED_READS = 4
"""A map (no reduce axis) with at least this many reads keeps its loops rolled in LLVM."""


def _no_unroll() -> ir.Attribute:
    """LLVM loop metadata forbidding unrolling (carried from scf.for to the loop's latch)."""
    return ir.Attribute.parse("#llvm.loop_annotation<unroll = <disable = true>>")


def _transform_like(ops: ir.OperationList) -> bool:
    """Whether a map's body reads at least ROLLED_READS values, or sums and subtracts at least
    two points of one buffer (Winograd's F(2,3) transforms, two reads per block: LLVM unrolled
    their 7 x 16 x 6 nests, then Loop Strength Reduction took 1.2 s on one inception_v1
    kernel)."""
    reads = [op for op in ops if op.name.startswith("tp.read")]
    if len(reads) >= ROLLED_READS:
        return True
    if len(reads) < 2 or any(r.operands[0] != reads[0].operands[0] for r in reads):
        return False
    return all(
        op.name in ("arith.addf", "arith.subf", "gpu.yield") or op.name.startswith("tp.read")
        for op in ops
    )


class BlockLowering:
    """Emits one block at the current insertion point. `epilogue`: an elementwise block to
    apply to the register tile before it is stored (see `fusable_epilogue`)."""

    def __init__(
        self,
        view: BlockView,
        epilogue: BlockView | None = None,
        threads: int = 0,
        vnni_bits: int = 0,
        madd_bits: int = 0,
        vbmi: bool = False,
    ) -> None:
        self.threads = threads
        self.epilogue = (
            BodyEmitter(epilogue, vnni_bits, madd_bits, vbmi) if epilogue is not None else None
        )
        self.view = view
        self.body = BodyEmitter(view, vnni_bits, madd_bits, vbmi)
        self.axes, self.kinds, self.extents = view.axes, view.kinds, view.extents
        self.schedule = view.schedule
        self.loops = self.schedule.loops(self.axes, self.kinds, self.extents)
        # A transform reading many inputs per point (Winograd's, summing 6 per output) is
        # bound by memory: LLVM fully unrolling its 14-trip loops made 16 x 14 x 6 loads per
        # row that Loop Strength Reduction then took 0.6 s over (1 s for one ResNet-50 kernel).
        self.rolled = "R" not in self.kinds and _transform_like(view.body.operations)
        self.out = view.out
        self.out_map = view.out_map
        self.elem = ir.MemRefType(self.out.type).element_type
        # A fused epilogue may write another buffer of the same shape (an int8 requantization
        # of an i32 accumulator): the finished tile goes there.
        self.final_out = epilogue.out if epilogue is not None else view.out
        self.combiner = view.combiner
        self.extent_of = dict(zip(self.axes, self.extents))
        self.symbols = kernel_symbols(view.op) if view.symbolic else {}
        vec = [lp for lp in self.loops if lp.name == self.schedule.vectorize]
        self.vec: Loop | None = vec[0] if vec else None
        # The vectorized axis is peeled, never guarded (Schedule.check: then it is tiled once).
        self.vec_tail = self.vec is not None and not self.vec.exact
        self._assume_inside: set[str] = set()  # axes known in range (a full register tile)
        self.inexact = sorted(
            {
                lp.axis
                for lp in self.loops
                if not lp.exact and not (self.vec_tail and lp.axis == self.vec.axis)
            }  # type: ignore[union-attr]
        )
        self.lanes = self.vec.trip if self.vec is not None else 1
        # A vectorized reduce loop: accumulators hold partial results per lane.
        self.vec_reduce = self.vec is not None and self.vec.kind == "R"
        """Lanes of the vectorized loop where code is being emitted (fewer in the peeled tail)."""

    # -- entry -----------------------------------------------------------------------------
    def emit(self) -> None:
        self.around_parallel(
            len(self.schedule.parallel), lambda par, p: self._after_parallel(par, p, len(par))
        )

    def around_parallel(
        self,
        n_par: int,
        inner: Callable[[Sequence[Loop], Point], None],
        loops: Sequence[Loop] | None = None,
    ) -> None:
        """The first `n_par` of `loops` (default: the block's) as parallel loops (static chunks
        per thread with `threads` > 1) and `inner(parallel loops, point)` inside them; sequential
        without threads. Row fusion passes its own loops: the rows' last loop runs in tiles."""
        point = Point([], {a: ir.AffineConstantExpr.get(0) for a in self.axes})
        if n_par == 0 or self.threads == 1:
            inner([], point)
            return
        iterations = math.prod(self.extents)
        if self.schedule.parallel_from and not isinstance(iterations, int):
            # Too little work for threads below `parallel_from` iterations: decided per call.
            enough = arith.CmpIOp(
                arith.CmpIPredicate.sge,
                self.bound(iterations),
                index_const(self.schedule.parallel_from),
            ).result
            branch = scf.IfOp(enough, [], has_else=True)
            with ir.InsertionPoint(branch.then_block):
                self._parallel(n_par, inner, loops, point)
                scf.YieldOp([])
            with ir.InsertionPoint(branch.else_block):
                inner([], point)
                scf.YieldOp([])
            return
        self._parallel(n_par, inner, loops, point)

    def _parallel(
        self,
        n_par: int,
        inner: Callable[[Sequence[Loop], Point], None],
        loops: Sequence[Loop] | None,
        point: Point,
    ) -> None:
        par = list(loops if loops is not None else self.loops)[:n_par]
        total = 1
        for lp in par:
            total *= lp.trip
        # Trips known at run time only: one parallel iteration per trip (the threading
        # runtime's static schedule shards them).
        if isinstance(total, int) and 1 < self.threads < total:
            self._chunked(par, total, point, inner)
            return
        op = scf.ParallelOp(
            [],
            [index_const(0)] * n_par,
            [self.bound(lp.trip) for lp in par],
            [index_const(1)] * n_par,
            [],
        )
        block = op.regions[0].blocks.append(*([ir.IndexType.get()] * n_par))
        with ir.InsertionPoint(block):
            for lp, iv in zip(par, block.arguments):
                point = self._advance(point, lp, iv)
            inner(par, point)
            scf.ReduceOp([], 0)

    def _chunked(
        self,
        par: Sequence[Loop],
        total: int,
        point: Point,
        inner: Callable[[Sequence[Loop], Point], None],
    ) -> None:
        """One parallel iteration per thread, each running a contiguous range of the collapsed
        parallel loops (a static schedule): one task per worker instead of one per trip, so a
        small kernel pays the threading runtime's per-task cost once per thread."""
        op = scf.ParallelOp([], [index_const(0)], [index_const(self.threads)], [index_const(1)], [])
        block = op.regions[0].blocks.append(ir.IndexType.get())
        with ir.InsertionPoint(block):
            chunk = [block.arguments[0]]
            c = ir.AffineDimExpr.get(0)
            lo = apply(ir.AffineExpr.get_floor_div(c * total, self.threads), chunk)
            hi = apply(ir.AffineExpr.get_floor_div(c * total + total, self.threads), chunk)
            loop = scf.ForOp(lo, hi, index_const(1))
            with ir.InsertionPoint(loop.body):
                dims = point.dims + [loop.induction_variable]
                linear = ir.AffineDimExpr.get(len(dims) - 1)
                terms = dict(point.terms)
                stride = total
                for i, lp in enumerate(par):
                    stride //= lp.trip
                    e = ir.AffineExpr.get_floor_div(linear, stride) if stride > 1 else linear
                    terms[lp.axis] = terms[lp.axis] + (e if i == 0 else e % lp.trip) * lp.stride
                inner(par, Point(dims, terms, point.vec_axis, point.lanes))
                scf.YieldOp([])
            scf.ReduceOp([], 0)

    def _after_parallel(self, par: Sequence[Loop], point: Point, n_par: int) -> None:
        """The loops below the parallel ones; when the vectorized axis's outer loop is parallel,
        its last (partial) tile takes the peeled code on narrower vectors."""
        outer = [lp for lp in par if self.vec_tail and lp.axis == self.vec.axis]  # type: ignore[union-attr]
        if not outer:
            self._from(n_par, point)
            return
        assert self.vec is not None
        start = outer[0].stride * (outer[0].trip - 1)
        at = apply(point.terms[self.vec.axis], point.dims)
        if isinstance(start, Dim):  # the last tile starts at the last multiple of the width
            start = self.extent_of[self.vec.axis] // self.vec.trip * self.vec.trip
        tail = arith.CmpIOp(arith.CmpIPredicate.sge, at, self.bound(start)).result
        branch = scf.IfOp(tail, [], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            if isinstance(outer[0].trip, Dim):
                self._runtime_tail(point, [], lambda p, c: self._from(n_par, p) or [])
            for offset, lanes in self._tail_pieces() if isinstance(start, int) else []:
                with self._narrowed(lanes):
                    self._from(n_par, self._shift(point, self.vec, offset))
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            self._from(n_par, point)
            scf.YieldOp([])

    def _runtime_tail(self, point: Point, carried: Carried, inner: Inner) -> Carried:
        """The elements of the vectorized axis past its last full vector when its extent is
        known at run time only: one narrower vector per set bit of their count, widest first
        (a rest of 13 of 16 lanes: 8, 4 and 1 lanes), each under `rest & lanes != 0`; at most
        log2(width) pieces where a loop ran them one lane at a time."""
        assert self.vec is not None
        width = self.vec.trip
        rest = self.bound(self.extent_of[self.vec.axis] % width)
        piece = 1 << ((width - 1).bit_length() - 1) if width > 1 else 0
        step = replace(self.vec, stride=1)
        while piece:
            taken = arith.AndIOp(rest, index_const(piece)).result
            cond = arith.CmpIOp(arith.CmpIPredicate.ne, taken, index_const(0)).result
            branch = scf.IfOp(cond, [v.type for v in carried], has_else=bool(carried))
            with ir.InsertionPoint(branch.then_block), self._narrowed(piece):
                # The pieces before this one cover the bits of `rest` above it.
                offset = arith.AndIOp(rest, index_const(-2 * piece)).result
                scf.YieldOp(inner(self._advance(point, step, offset), carried))
            if carried:
                with ir.InsertionPoint(branch.else_block):
                    scf.YieldOp(carried)
            carried = list(branch.results)
            piece //= 2
        return carried

    def _tail_pieces(self) -> list[tuple[int, int]]:
        """(offset, lanes) of the vectors covering the axis's last, partial tile: one vector when
        it is short or a power of two, else powers of two, widest first (52 = 32 + 16 + 4).
        LLVM legalizes a vector<52xf32> with shuffles: a 500-column matmul ran 4x slower than a
        512-column one, all of it in its tail."""
        assert self.vec is not None
        tail = self.extent_of[self.vec.axis] % self.vec.trip
        if tail <= TAIL_PIECES_ABOVE or tail & (tail - 1) == 0:
            return [(0, tail)]
        pieces, offset = [], 0
        while offset < tail:
            lanes = 1 << ((tail - offset).bit_length() - 1)
            pieces.append((offset, lanes))
            offset += lanes
        return pieces

    @contextlib.contextmanager
    def _narrowed(self, lanes: int) -> Iterator[None]:
        """Emit with the vectorized loop narrowed to `lanes`."""
        full = self.lanes
        self.lanes = lanes
        try:
            yield
        finally:
            self.lanes = full

    def nest(self, loops: Sequence[Loop], point: Point, inner: Callable[[Point], object]) -> None:
        """`loops` (sequential, of this block) around `inner(point)`."""
        self._nest(loops, point, [], lambda p, c: inner(p) or [])

    def emit_from(self, start: int, point: Point) -> None:
        """Everything below the first `start` loops, whose axes `point` has bound (row fusion:
        another block's loops run those)."""
        self._from(start, point)

    def _from(self, start: int, point: Point) -> None:
        first_r = next((i for i, lp in enumerate(self.loops) if lp.kind == "R"), None)
        if first_r is None or first_r < start:
            assert first_r is None, "reduce loops cannot be parallel"
            self._nest(self.loops[start:], point, [], self._store_body)
            return
        self._nest(
            self.loops[start:first_r], point, [], lambda p, c: self._reduce(first_r, p) or []
        )

    # -- generic loops ---------------------------------------------------------------------
    def _nest(self, loops: Sequence[Loop], point: Point, carried: Carried, inner: Inner) -> Carried:
        if not loops:
            return inner(point, carried)
        lp, rest = loops[0], loops[1:]
        if self.vec is not None and lp.name == self.vec.name:
            assert not rest
            vpoint = Point(point.dims, point.terms, lp.axis, self.lanes)
            return inner(vpoint, carried)
        return self._loop(lp, point, carried, lambda p, c: self._nest(rest, p, c, inner))

    def _loop(self, lp: Loop, point: Point, carried: Carried, inner: Inner) -> Carried:
        if self.vec_tail and lp.axis == self.vec.axis and not lp.exact:  # type: ignore[union-attr]
            if isinstance(lp.trip, Dim):  # full tiles to a run-time count, then element-wise
                assert self.vec is not None
                full = self.bound(self.extent_of[lp.axis] // self.vec.trip)
                carried = self._for(0, full, 1, lp, point, carried, inner, 1)
                return self._runtime_tail(self._advance(point, lp, full), carried, inner)
            # The full tiles, then the partial last one on narrower vectors.
            if lp.trip > 1:
                carried = self._loop(
                    replace(lp, trip=lp.trip - 1, exact=True), point, carried, inner
                )
            last = self._advance(point, lp, lp.trip - 1)
            for offset, lanes in self._tail_pieces():
                with self._narrowed(lanes):
                    carried = inner(self._shift(last, self.vec, offset), carried)
            return carried
        if isinstance(lp.trip, Dim):  # to a bound known at run time
            return self._for(0, self.bound(lp.trip), 1, lp, point, carried, inner, 1)
        factor = self.schedule.unroll.get(lp.name, 1)
        if factor >= lp.trip:
            for i in range(lp.trip):
                carried = inner(self._advance(point, lp, i), carried)
            return carried
        main = lp.trip - lp.trip % factor
        carried = self._for(0, main, factor, lp, point, carried, inner, factor)
        if main < lp.trip:
            carried = self._for(main, lp.trip, 1, lp, point, carried, inner, 1)
        return carried

    def bound(self, value: int | Dim) -> ir.Value:
        """An extent or trip count as an `index` value (computed from the kernel's symbol
        arguments when it is only known at run time)."""
        return materialize(value, self.symbols)

    def _for(
        self,
        lo: int,
        hi: int | ir.Value,
        step: int,
        lp: Loop,
        point: Point,
        carried: Carried,
        inner: Inner,
        copies: int,
    ) -> Carried:
        upper = hi if isinstance(hi, ir.Value) else index_const(hi)
        loop = scf.ForOp(index_const(lo), upper, index_const(step), carried)
        if self.rolled:
            loop.operation.attributes["loop_annotation"] = _no_unroll()
        with ir.InsertionPoint(loop.body):
            state = list(loop.inner_iter_args)
            base = self._advance(point, lp, loop.induction_variable)
            for u in range(copies):
                p = base if u == 0 else self._shift(base, lp, u)
                state = inner(p, state)
            scf.YieldOp(state)
        return list(loop.results)

    def _advance(self, point: Point, lp: Loop, iv: ir.Value | int) -> Point:
        terms = dict(point.terms)
        if isinstance(iv, int):
            terms[lp.axis] = terms[lp.axis] + iv * lp.stride
            return Point(point.dims, terms, point.vec_axis, point.lanes)
        dims = point.dims + [iv]
        terms[lp.axis] = terms[lp.axis] + ir.AffineDimExpr.get(len(dims) - 1) * lp.stride
        return Point(dims, terms, point.vec_axis, point.lanes)

    def _shift(self, point: Point, lp: Loop, u: int) -> Point:
        terms = dict(point.terms)
        terms[lp.axis] = terms[lp.axis] + u * lp.stride
        return Point(point.dims, terms, point.vec_axis, point.lanes)

    # -- reductions ------------------------------------------------------------------------
    def _reduce(self, first_r: int, point: Point) -> None:
        inner = self.loops[first_r:]
        spatial = [lp for lp in inner if lp.kind == "S"]
        unrolled = [lp for lp in spatial if self.vec is None or lp.name != self.vec.name]
        if all(self._in_registers(lp) for lp in unrolled):
            self._register_tile(point, [lp for lp in inner if lp.kind == "R"], unrolled)
            return
        init = self._init_value(point)
        self._nest(
            spatial,
            point,
            [],
            lambda p, c: self._guarded(p, c, lambda: self._store(init(p), p) or []),
        )
        tail = self._register_tail(inner)
        if tail is not None:
            # Blocked reduction (outer reduce loops around spatial ones, e.g. input-channel
            # blocks around the pixels): a register tile per visit, loaded from and stored to
            # the output, which the loops above sweep while one block of weights stays in cache.
            loops = inner[tail:]
            regs = [
                lp
                for lp in loops
                if lp.kind == "S" and (self.vec is None or lp.name != self.vec.name)
            ]
            reduce = [lp for lp in loops if lp.kind == "R"]
            self._nest(
                inner[:tail],
                point,
                [],
                lambda p, c: self._register_tile(p, reduce, regs, from_memory=True) or [],
            )
            return
        self._nest(inner, point, [], self._update_body)

    def _in_registers(self, lp: Loop) -> bool:
        if self.vec is not None and lp.name == self.vec.name:
            return True
        return not isinstance(lp.trip, Dim) and self.schedule.unroll.get(lp.name, 1) >= lp.trip

    def _register_tail(self, inner: Sequence[Loop]) -> int | None:
        """Where a register tile can start inside a reduction whose outer loops mix reduce and
        spatial loops: the first reduce loop after which every spatial loop is in registers."""
        if self.epilogue is not None:  # an epilogue needs the whole reduction first
            return None
        for q, lp in enumerate(inner):
            if (
                q > 0
                and lp.kind == "R"
                and all(self._in_registers(x) for x in inner[q:] if x.kind == "S")
            ):
                return q
        return None

    def _register_tile(
        self, point: Point, reduce: list[Loop], unrolled: list[Loop], from_memory: bool = False
    ) -> None:
        """One register tile. When a spatial axis of the tile has a partial last tile, the full
        tiles take a copy without its guards: guarded rows inside the reduce loop kept a
        197-row product from running faster on 2 threads than on 1 (1.50x against 1.97x for
        198 rows; one guard and one load of the vector operand per row and step)."""
        spatial = [a for a in self.inexact if self.kinds[self.axes.index(a)] == "S"]
        if not spatial or self._assume_inside:
            self._emit_register_tile(point, reduce, unrolled, from_memory)
            return
        last = self._combo_point(point, unrolled, tuple(lp.trip - 1 for lp in unrolled))
        cond = None
        for axis in spatial:
            value = apply(last.terms[axis], last.dims)
            inside = arith.CmpIOp(
                arith.CmpIPredicate.slt, value, self.bound(self.extent_of[axis])
            ).result
            cond = inside if cond is None else arith.AndIOp(cond, inside).result
        branch = scf.IfOp(cond, [], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            self._assume_inside = set(spatial)
            try:
                self._emit_register_tile(point, reduce, unrolled, from_memory)
            finally:
                self._assume_inside = set()
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            self._emit_register_tile(point, reduce, unrolled, from_memory)
            scf.YieldOp([])

    def _emit_register_tile(
        self, point: Point, reduce: list[Loop], unrolled: list[Loop], from_memory: bool
    ) -> None:
        combos = [
            self._combo_point(point, unrolled, c)
            for c in itertools.product(*(range(lp.trip) for lp in unrolled))
        ]
        init = self._init_value(combos[0])
        if from_memory:  # rows past a partial tile's end load nothing (their stores are guarded)
            accs = [self._guarded(p, [init(p)], lambda p=p: [self._load_out(p)])[0] for p in combos]
        else:
            accs = [init(p) for p in combos]

        def accumulate(rpoint: Point, state: Carried) -> Carried:
            out = []
            for p, acc in zip(combos, state):
                q = self._merge(p, rpoint)
                out.append(
                    self._guarded(q, [acc], lambda q=q, acc=acc: [self._accumulate(acc, q)])[0]
                )
            return out

        accs = self._nest(reduce, point, accs, accumulate)
        for p, acc in zip(combos, accs):
            if self.vec_reduce:  # lanes of partial results: one value per output element
                acc, p = horizontal(self.combiner, acc), Point(p.dims, p.terms)
            self._guarded(
                p, [], lambda p=p, acc=acc: self._store(self._finish(acc, p), p, final=True) or []
            )

    def _accumulate(self, acc: ir.Value, point: Point) -> ir.Value:
        """acc combined with the body at `point`. A vectorized reduction's peeled tail (fewer
        lanes than the accumulator) is combined horizontally into lane 0."""
        if not self.vec_reduce or point.lanes == ir.VectorType(acc.type).shape[0]:
            return self.body.accumulated(self.combiner, acc, point)
        tail = horizontal(self.combiner, self.body.value(point))
        lane0 = combine(self.combiner, vector.ExtractOp(acc, [], [0]).result, tail)
        return vector.InsertOp(lane0, acc, [], [0]).result

    def _finish(self, acc: ir.Value, point: Point) -> ir.Value:
        """The fused epilogue applied to a finished accumulator (identity without one)."""
        if self.epilogue is None:
            return acc
        # The epilogue's axes are the output dims: its point is the out_map of ours.
        exprs = [
            r.compose(ir.AffineMap.get(len(point.dims), 0, [point.terms[a] for a in self.axes]))
            for r in self.out_map.results
        ]
        terms = dict(zip(self.epilogue.axes, exprs))
        vec_axis = None
        if point.vec_axis is not None:
            pos = self.axes.index(point.vec_axis)
            for axis, r in zip(self.epilogue.axes, self.out_map.results):
                if linear_coeff(r, pos) == 1:  # the lanes step along this output dim
                    vec_axis = axis
        epoint = Point(point.dims, terms, vec_axis, point.lanes if vec_axis else 1)
        return self.epilogue.value(epoint, {self.out: acc})

    def _combo_point(self, point: Point, unrolled: list[Loop], values: tuple[int, ...]) -> Point:
        p = point
        for lp, v in zip(unrolled, values):
            p = self._advance(p, lp, v)
        if self.vec is not None:
            p = Point(p.dims, p.terms, self.vec.axis, self.lanes)
        return p

    def _merge(self, spatial: Point, reduce: Point) -> Point:
        """The spatial point's S-axis terms with the reduce point's dims and R-axis terms (and
        its lanes, when the vectorized loop is a reduce loop)."""
        terms = dict(reduce.terms)
        for a, k in zip(self.axes, self.kinds):
            if k == "S":
                terms[a] = spatial.terms[a]
        vec = reduce if self.vec_reduce else spatial
        return Point(reduce.dims, terms, vec.vec_axis, vec.lanes)

    def _init_value(self, point: Point) -> Callable[[Point], ir.Value]:
        def make(p: Point) -> ir.Value:
            v = scalar_const(self.view.init)
            return broadcast(v, ir.VectorType.get([p.lanes], self.elem)) if p.vec_axis else v

        return make

    # -- innermost bodies ------------------------------------------------------------------
    def _store_body(self, point: Point, carried: Carried) -> Carried:
        if self.view.scatter:
            return self._guarded(point, carried, lambda: self._scatter(point) or carried)
        return self._guarded(
            point, carried, lambda: self._store(self.body.value(point), point) or carried
        )

    def _scatter(self, point: Point) -> None:
        """A scatter block's point: the value goes to the position the body computes, combined
        with the element already there unless the combiner is `none`. Vectorized (along the
        axis that is the last position, as the verifier ensures), lane 0's position starts
        the consecutive elements the lanes write."""
        value, *idx = self.body.values(point)
        if point.vec_axis is None:
            if self.combiner != "none":
                value = combine(self.combiner, memref.LoadOp(self.out, idx).result, value)
            memref.StoreOp(value, self.out, idx)
            return
        vtype = ir.VectorType.get([point.lanes], self.elem)
        start = [
            vector.ExtractOp(i, [], [0]).result if isinstance(i.type, ir.VectorType) else i
            for i in idx
        ]
        value = broadcast(value, vtype)
        if self.combiner != "none":
            value = combine(self.combiner, vector.LoadOp(vtype, self.out, start).result, value)
        vector.StoreOp(value, self.out, start)

    def _update_body(self, point: Point, carried: Carried) -> Carried:
        def update() -> Carried:
            new = self.body.accumulated(self.combiner, self._load_out(point), point)
            self._store(new, point)
            return carried

        return self._guarded(point, carried, update)

    def _guarded(self, point: Point, carried: Carried, then: Callable[[], Carried]) -> Carried:
        conds = []
        for axis in self.inexact:
            if axis in self._assume_inside:
                continue
            value = apply(point.terms[axis], point.dims)
            conds.append(
                arith.CmpIOp(
                    arith.CmpIPredicate.slt, value, self.bound(self.extent_of[axis])
                ).result
            )
        if not conds:
            return then()
        cond = conds[0]
        for c in conds[1:]:
            cond = arith.AndIOp(cond, c).result
        op = scf.IfOp(cond, [v.type for v in carried], has_else=bool(carried))
        with ir.InsertionPoint(op.then_block):
            scf.YieldOp(then())
        if carried:
            with ir.InsertionPoint(op.else_block):
                scf.YieldOp(carried)
        return list(op.results)

    # -- output accesses -------------------------------------------------------------------
    def _out_layout(self, point: Point) -> tuple[list[ir.Value], bool]:
        idx = self.body.indices(self.out_map, point)
        if point.vec_axis is None:
            return idx, False
        coeffs = self.body.lane_coeffs(self.out_map, point)
        return idx, coeffs[-1] == 1 and all(c == 0 for c in coeffs[:-1])

    def _store(self, value: ir.Value, point: Point, final: bool = False) -> None:
        """Store into the output (`final`: the finished tile, into the epilogue's buffer)."""
        out = self.final_out if final else self.out
        idx, contiguous = self._out_layout(point)
        if point.vec_axis is None:
            memref.StoreOp(value, out, idx)
            return
        elem = ir.MemRefType(out.type).element_type
        value = broadcast(value, ir.VectorType.get([point.lanes], elem))
        if contiguous:
            vector.StoreOp(value, out, idx)
            return
        for lane in range(point.lanes):
            lane_idx = self.body.indices(self.out_map, point.with_lane(lane))
            memref.StoreOp(vector.ExtractOp(value, [], [lane]).result, out, lane_idx)

    def _load_out(self, point: Point) -> ir.Value:
        idx, contiguous = self._out_layout(point)
        if point.vec_axis is None:
            return memref.LoadOp(self.out, idx).result
        vtype = ir.VectorType.get([point.lanes], self.elem)
        if contiguous:
            return vector.LoadOp(vtype, self.out, idx).result
        lanes = [
            memref.LoadOp(self.out, self.body.indices(self.out_map, point.with_lane(i))).result
            for i in range(point.lanes)
        ]
        return vector.FromElementsOp(vtype, lanes).result


__all__ = ["BlockLowering", "fusable_epilogue"]


def fusable_epilogue(block: BlockView, nxt: BlockView) -> bool:
    """Whether `nxt` can run on `block`'s register tile instead of as its own pass: an
    elementwise block over exactly `block`'s output that reads it only at each element itself,
    after a reduction whose schedule keeps the output tile in registers. `nxt` writes the same
    buffer, or one of the same shape when it is the only reader of `block`'s (a temporary)."""
    if nxt.combiner != "none" or block.combiner == "none":
        return False
    shape = list(ir.MemRefType(block.out.type).shape)
    if nxt.out != block.out and (
        list(ir.MemRefType(nxt.out.type).shape) != shape or not _only_read_by(block, nxt)
    ):
        return False
    if not _spans(nxt.extents, shape) or not is_identity(nxt.out_map):
        return False
    lowering = BlockLowering(block)
    first_r = next((i for i, lp in enumerate(lowering.loops) if lp.kind == "R"), None)
    if first_r is None or not _register_mode(lowering, first_r):
        return False
    for op in nxt.body.operations:
        op = op.operation
        if op.name == "tp.load" and op.operands[0] == block.out:
            return False
        if op.name in ("tp.read", "tp.read_padded") and op.operands[0] == block.out:
            if op.name != "tp.read" or not is_identity(
                ir.AffineMapAttr(op.attributes["map"]).value
            ):
                return False
    # The lanes must step along one output dim, one element per lane (the out map is a plain
    # dim there, or a sum with it: a panel-major product written row-major, p * 16 + j).
    if lowering.vec is None:
        return True
    pos = block.axes.index(lowering.vec.axis)
    coeffs = [linear_coeff(r, pos) for r in block.out_map.results]
    return coeffs.count(1) == 1 and all(c in (0, 1) for c in coeffs)


def _spans(extents: Sequence[int | Dim], shape: Sequence[int]) -> bool:
    """Extents that run over a whole buffer of `shape`: equal where its size is static, known at
    run time only (the buffer's own dim) where it is dynamic."""
    return len(extents) == len(shape) and all(
        isinstance(e, Dim) if ir.ShapedType.is_dynamic_size(n) else e == n
        for e, n in zip(extents, shape)
    )


def _only_read_by(block: BlockView, nxt: BlockView) -> bool:
    """Whether nothing but `block` (writing it) and reads inside `nxt` uses `block`'s output."""
    for use in block.out.uses:
        owner = use.owner
        if owner == block.op:
            continue
        parent = owner.parent
        while parent is not None and parent != nxt.op:
            parent = parent.parent
        if parent is None or owner.name != "tp.read":
            return False
    return True


def _register_mode(lowering: BlockLowering, first_r: int) -> bool:
    spatial = [lp for lp in lowering.loops[first_r:] if lp.kind == "S"]
    unrolled = [lp for lp in spatial if lowering.vec is None or lp.name != lowering.vec.name]
    return all(
        not isinstance(lp.trip, Dim) and lowering.schedule.unroll.get(lp.name, 1) >= lp.trip
        for lp in unrolled
    )
