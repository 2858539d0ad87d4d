"""Tuning tasks (AutoTVM's `extract_from_program`): one per distinct tp kernel of a model.

    tasks = extract_tasks(module, params, threads=2, runner=runner)
    for t in tasks:   # ordered by share of the model's latency, largest first
        print(t.kernel, t.weight, t.flops, t.default_ms, len(t.space))

A task is a kernel workload (the structural `workload_key`: structurally identical kernels of
any model share it), the block of it that is tuned (the one with the most iterations; the other
blocks keep their default schedules), that block's knob space, how often the model calls the
kernel (`weight`), the ONNX nodes it came from, its FLOPs and its measured default latency.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from mlir import ir

from mlc.contract import TargetInfo
from mlc.dialects.context import make_context
from mlc.dialects.tp import BlockView
from mlc.dialects.walk import walk
from mlc.errors import MlcError
from mlc.passes.diagnostics import node_names
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.passes.pass_manager import PassManager
from mlc.passes.schedule_shapes import SampledView
from mlc.target import host_target

from .facts import BlockFacts
from .harness import arg_specs, kernel_sizes, scratch_at
from .records import workload_key, workloads
from .space import ConfigSpace
from .templates import block_space

if TYPE_CHECKING:
    from .graph_knobs import GraphConfig
    from .runner import Runner


@dataclass(frozen=True)
class Task:
    """One kernel workload to tune (see the module docstring)."""

    workload: str
    kernel: str
    block: str
    ir: str
    """A module holding the kernel alone (tp dialect, default schedules), as text."""
    threads: int
    space: ConfigSpace = field(compare=False, repr=False)
    facts: BlockFacts = field(compare=False, repr=False)
    weight: int = 1
    """Calls per model run."""
    nodes: tuple[str, ...] = ()
    flops: int = 0
    """Arithmetic operations of one call (multiply-adds count two)."""
    scratch: int = 0
    """Bytes of scratch memory the kernel needs."""
    pipeline: str = ""
    """Hash of the pipeline that produced and lowers the kernel (records carry it)."""
    default_ms: float | None = None
    """Measured latency of the default schedules (None until measured)."""
    constants: tuple[int, ...] = ()
    """Inputs of the kernel that are the model's parameters (weights, biases) in every call:
    cold in the model, where each is read once per run (`MeasureOptions.cold_weights`)."""
    sizes: tuple[tuple[str, int], ...] = ()
    """A kernel with run-time sizes: the values of its symbols it is searched and measured at
    (the model's representative sizes); its space is that of its blocks at these sizes."""

    @classmethod
    def from_kernel(
        cls,
        kernel: ir.Operation,
        *,
        threads: int = 1,
        block: str | None = None,
        target: TargetInfo | None = None,
        weight: int = 1,
        nodes: tuple[str, ...] = (),
        pipeline: str = "",
        sizes: Mapping[str, int] | None = None,
    ) -> Task:
        """A task for one tp kernel (`func.func` with `tp.kernel`, schedules set or empty: empty
        ones get tp-default-schedule's). `block` defaults to the block with most iterations.
        A kernel with run-time sizes is seen at `sizes` (values of its symbols)."""
        text = _alone(kernel)
        module = ir.Module.parse(text, make_context())
        PassManager.parse(f"builtin.module(tp-default-schedule{{threads={threads}}})").run(module)
        op = next(o.operation for o in module.body.operations)
        symbols = kernel_sizes(op)
        at = {s: int(v) for s, v in (sizes or {}).items() if s in symbols}
        if len(at) < len(symbols):
            raise MlcError(
                f"kernel {_name(op)} has run-time sizes ({', '.join(symbols)}): give the values "
                "to measure it at"
            )
        blocks = [
            SampledView(o, at) if symbols else BlockView(o)
            for o in walk(op)
            if o.name == "tp.block"
        ]
        if not blocks:
            raise MlcError(f"kernel {_name(op)} has no tp.block to tune")
        if block is None:
            view = max(blocks, key=lambda v: math.prod(v.extents))
        else:
            matches = [v for v in blocks if v.name == block]
            if not matches:
                names = ", ".join(v.name for v in blocks)
                raise MlcError(f"kernel {_name(op)} has no block '{block}' (blocks: {names})")
            view = matches[0]
        arg_specs(op, at)  # raises when an argument has no numpy type: cannot run alone
        facts = BlockFacts.of(view, view.schedule, threads, target or host_target())
        return cls(
            workload=workload_key(op),
            kernel=_name(op),
            block=view.name,
            ir=str(module),
            threads=threads,
            space=block_space(facts),
            facts=facts,
            weight=weight,
            nodes=nodes,
            flops=sum(_flops(v) for v in blocks),
            scratch=scratch_at(op, at) if symbols else _scratch_bytes(op),
            pipeline=pipeline,
            sizes=tuple(sorted(at.items())),
        )

    @property
    def default_index(self) -> int:
        return self.space.default_index

    def schedule_text(self, index: int) -> str:
        """The MLIR text of the schedule of point `index` (what records and builds carry)."""
        with _printing_context():
            return str(self.space.schedule(index).to_attr())

    def gflops(self, ms: float) -> float:
        return self.flops / (ms * 1e6) if ms > 0 else 0.0


@lru_cache(maxsize=1)
def _printing_context() -> ir.Context:
    """One context to print schedules in (a schedule is builtin attributes only; creating a
    context per candidate cost 30-60 ms)."""
    return ir.Context()


def _is_param(value: ir.Value) -> bool:
    """Whether a kernel call's operand is a view of `mlc_main`'s params blob (the entry's
    second-to-last argument: `mlc_main(inputs..., outputs..., params, workspace)`)."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "memref.view":
        return False
    source = owner.operation.operands[0]
    if not isinstance(source.owner, ir.Block):
        return False
    entry = source.owner
    return ir.BlockArgument(source).arg_number == len(entry.arguments) - 2


def _name(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def _alone(kernel: ir.Operation) -> str:
    """A module holding a copy of the kernel only."""
    return "module {\n" + kernel.get_asm(enable_debug_info=True) + "\n}\n"


def _flops(view: BlockView) -> int:
    """Iterations x (arithmetic ops of the body + the combiner)."""
    ops = sum(
        1
        for op in view.body.operations
        if op.operation.name.split(".")[0] in ("arith", "math")
        and op.operation.name not in ("arith.constant", "arith.index_cast")
    )
    return math.prod(view.extents) * (ops + (view.combiner != "none"))


def _scratch_bytes(kernel: ir.Operation) -> int:
    """The end of the last view into the kernel's scratch argument (0 without one)."""
    args = kernel.regions[0].blocks[0].arguments
    last = args[len(args) - 1]
    end = 0
    for op in walk(kernel):
        if op.name == "memref.view" and op.operands[0] == last:
            offset = op.operands[1].owner
            start = ir.IntegerAttr(offset.attributes["value"]).value
            mtype = ir.MemRefType(op.results[0].type)
            bits = getattr(mtype.element_type, "width", 8)
            end = max(end, start + math.prod(mtype.shape) * max(bits // 8, 1))
    return end


def pipeline_hash(pipeline: MlcDefaultPipeline) -> str:
    """A hash of mlc-default's passes (kernels, schedules and their lowering)."""
    return hashlib.sha256(pipeline.expand().encode()).hexdigest()[:16]


def extract_tasks(
    module: ir.Module,
    params: Mapping[str, np.ndarray] | None = None,
    *,
    threads: int = 1,
    runner: Runner | None = None,
    target: TargetInfo | None = None,
    graph_config: GraphConfig | None = None,
    sizes: Mapping[str, int] | None = None,
) -> list[Task]:
    """One task per distinct tp kernel of a graph-dialect model, as `mlc compile` will build
    it for `threads` on `target` (the host by default). With a runner, each task's default
    latency is measured and the tasks are ordered by share of the model's latency (weight x
    default ms), largest first; without one, by weight x FLOPs. `graph_config`: the graph-level
    knobs (layout block, Winograd) to build with instead of mlc-default's. `sizes`: values of
    the model's symbolic dims its kernels with run-time sizes are tuned at (a kernel whose
    symbols are missing from it is not a task)."""
    target = target or host_target()
    knobs = graph_config
    pipeline = MlcDefaultPipeline.for_target(
        target,
        threads=threads,
        layout_block=None if knobs is None else knobs.layout_block,
        winograd=None if knobs is None else knobs.winograd,
    )
    graph, schedule, _ = pipeline.stages()
    work = ir.Module.parse(module.operation.get_asm(enable_debug_info=True), module.context)
    PassManager.parse(f"builtin.module({graph},{schedule})").run(work, params=dict(params or {}))
    calls: Counter[str] = Counter()
    nodes: dict[str, list[str]] = {}
    constants: dict[str, set[int]] = {}
    for op in walk(work.operation):
        if op.name == "func.call":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            calls[callee] += 1
            names = nodes.setdefault(callee, [])
            names += [n for n in node_names(op.location) if n not in names]
            params = {i for i, v in enumerate(op.operands) if _is_param(v)}
            constants[callee] = constants.get(callee, params) & params
    found: dict[str, Task] = {}
    digest = pipeline_hash(pipeline)
    for key, name, kernel in workloads(work.operation):
        fixed = tuple(sorted(constants.get(name, ())))
        if key in found:  # structurally identical kernels emitted twice: one task
            t = found[key]
            fixed = tuple(sorted(set(t.constants) & set(fixed)))
            found[key] = replace(
                t, weight=t.weight + calls[name], nodes=t.nodes + tuple(nodes), constants=fixed
            )
            continue
        try:
            found[key] = Task.from_kernel(
                kernel,
                threads=threads,
                target=target,
                weight=max(calls[name], 1),
                nodes=tuple(nodes.get(name, ())),
                pipeline=digest,
                sizes=sizes,
            )
            found[key] = replace(found[key], constants=fixed)
        except MlcError:
            continue  # a kernel that cannot run alone (bf16 arguments) keeps its default
    tasks = list(found.values())
    if runner is not None:
        tasks = runner.measure_defaults(tasks)
        return sorted(tasks, key=lambda t: -(t.weight * (t.default_ms or 0.0)))
    return sorted(tasks, key=lambda t: -(t.weight * t.flops))
