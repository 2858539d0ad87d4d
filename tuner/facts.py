"""What knob generators may look at: a tp.block's iteration domain, the linear coefficients of
its affine reads and writes, its default schedule, and the target's vector registers."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from mlir import ir

from mlc.contract import TargetInfo
from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.tp.affine import linear_coeff
from mlc.dialects.walk import walk


def vector_registers(target: TargetInfo) -> tuple[int, int]:
    """(vector registers, bits per register) of a target: AVX-512 has 32 of 512 bits, AVX2 16
    of 256, NEON 32 of 128."""
    features = set(target.features)
    if "avx512f" in features:
        return 32, 512
    if features & {"neon", "asimd"}:
        return 32, 128
    return 16, 256


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


@dataclass(frozen=True)
class BlockFacts:
    """What knob generators may look at: the block's iteration domain, its affine reads (linear
    coefficient of each axis in each index), its default schedule and the target."""

    name: str
    axes: tuple[str, ...]
    kinds: str
    extents: tuple[int, ...]
    elem_bits: int
    reads: tuple[tuple[tuple[int | None, ...], ...], ...]
    writes: tuple[tuple[int | None, ...], ...]
    """Coefficients of each axis in each index of the output map."""
    default: Schedule
    threads: int
    registers: int
    register_bits: int

    @classmethod
    def of(cls, view: BlockView, default: Schedule, threads: int, target: TargetInfo) -> BlockFacts:
        reads = []
        for op in walk(view.op):
            if op.name in ("tp.read", "tp.read_padded"):
                amap = ir.AffineMapAttr(op.attributes["map"]).value
                reads.append(
                    tuple(
                        tuple(linear_coeff(e, i) for i in range(len(view.axes)))
                        for e in amap.results
                    )
                )
        writes = tuple(
            tuple(linear_coeff(e, i) for i in range(len(view.axes))) for e in view.out_map.results
        )
        elem = ir.MemRefType(view.out.type).element_type
        registers, bits = vector_registers(target)
        return cls(
            name=view.name,
            axes=tuple(view.axes),
            kinds=view.kinds,
            extents=tuple(view.extents),
            elem_bits=getattr(elem, "width", 32),
            reads=tuple(reads),
            writes=writes,
            default=default,
            threads=threads,
            registers=registers,
            register_bits=bits,
        )

    # -- derived ---------------------------------------------------------------------------
    def extent(self, axis: str) -> int:
        return self.extents[self.axes.index(axis)]

    @property
    def spatial(self) -> list[str]:
        return [a for a, k in zip(self.axes, self.kinds) if k == "S"]

    @property
    def reduce(self) -> list[str]:
        return [a for a, k in zip(self.axes, self.kinds) if k == "R"]

    @cached_property
    def vec(self) -> str | None:
        """The axis of the default schedule's vectorized loop."""
        name = self.default.vectorize
        return name.split(".")[0] if name else None

    @property
    def native_lanes(self) -> int:
        return max(1, self.register_bits // max(self.elem_bits, 8))

    def uses(self, read: tuple[tuple[int | None, ...], ...], axis: str) -> bool:
        i = self.axes.index(axis)
        return any(coeffs[i] != 0 for coeffs in read)

    @cached_property
    def vector_reads(self) -> list[tuple[tuple[int | None, ...], ...]]:
        return [r for r in self.reads if self.vec and self.uses(r, self.vec)]

    @cached_property
    def broadcast(self) -> bool:
        """Whether some read does not vary along the vector axis (a value broadcast to all
        lanes and reused by every vector of a register-tile row)."""
        return any(r not in self.vector_reads for r in self.reads)

    @cached_property
    def columns(self) -> list[str]:
        """Spatial axes besides the vector axis that only the vector reads depend on."""
        others = [r for r in self.reads if r not in self.vector_reads]
        return [
            a
            for a in self.spatial
            if a != self.vec
            and any(self.uses(r, a) for r in self.vector_reads)
            and not any(self.uses(r, a) for r in others)
        ]

    @property
    def rows(self) -> list[str]:
        return [a for a in self.spatial if a != self.vec and a not in self.columns]

    @cached_property
    def leading_rows(self) -> tuple[str, ...]:
        """Row axes the default schedule keeps outside its column loops when other rows come
        after those (a batch's images, in `n, ocb, oh, ow` order; a batched matmul's batch, in
        `b, j.0, i.0`): the template's
        columns-first order keeps them first too, so that it reproduces the default."""
        order = [n.split(".")[0] for n in self.default.order]
        # the vector axis's outer loop is a column loop too (a batched matmul over Winograd's
        # positions: `s0, s2.0, s1.0` with s2 the vector axis and no other column)
        first_col = next(
            (i for i, b in enumerate(order) if b in self.columns or b == self.vec), None
        )
        if first_col is None or not any(b in self.rows for b in order[first_col:]):
            return ()
        return tuple(dict.fromkeys(b for b in order[:first_col] if b in self.rows))

    @cached_property
    def last_row(self) -> str | None:
        """A map's spatial axis that the default schedule moves from its place among the outer
        loops to just outside the vectors (a transpose's input rows, so that each tile of
        vectors re-reads the same few lines), if any."""
        if self.reduce or self.vec is None:
            return None
        outer = [n for n in self.default.order if n != self.default.vectorize]
        natural = sorted(outer, key=lambda n: self.axes.index(n.split(".")[0]))
        if outer == natural or not outer:
            return None
        moved = outer[-1]
        return moved if [n for n in natural if n != moved] + [moved] == outer else None

    @property
    def register_tiled(self) -> bool:
        """A vectorized reduction: its spatial loops after the reduce loops live in registers."""
        return self.vec is not None and "R" in self.kinds

    def vectors(self, width: int) -> int:
        """Vector registers one row of `width` lanes takes."""
        return max(1, -(-width // self.native_lanes))


# -- the nest template ---------------------------------------------------------------------------
