"""Measuring one candidate: build (lower + JIT the kernel alone into a shared library) and run
(time it, check its output). Both run inside worker processes (`mlc.tuner.worker`); the
options say how.

Timing follows `mlc.runtime.benchmark.time_interleaved`: `warmup` untimed calls; `number`
grown until one sample lasts `min_repeat_ms`; then `repeat` samples of `number` back-to-back
calls, each sample that duration / `number`, and each followed by a sample of the task's
default schedule (the reference; `MeasureOptions.paired`), each sample after one untimed call
(`lead_in`: a serial candidate leaves the second vCPU asleep, which the reference's sample
would otherwise pay). The kernel is therefore invoked (warmup + calibration + (number + 1) x
repeat) times. A candidate's cost is the median ratio of its samples to the reference's,
times the default's latency: on a shared machine one measurement's fastest sample varied
1.2-2.4 ms from one second to the next for the same kernel, which the ratio of side-by-side
samples cancels (see `runner.MeasureResult.cost`).
By default (`cold_weights`) a sample is one call made as the model makes it: before it the
caches are flushed and the kernel's activations and output read again, so only its weights
(`Task.constants`) start cold. With `cold_weights=False`, `flush_cache` flushes before every
sample of `number` calls (AutoTVM's `enable_cpu_cache_flush`: the kernel then starts cold;
set `number=1` for it to matter).
"""

from __future__ import annotations

import hashlib
import math
import pathlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from mlir import ir

from mlc.contract import Manifest
from mlc.dialects.context import make_context
from mlc.dialects.tp import Schedule
from mlc.errors import MlcError
from mlc.passes.pass_manager import PassManager
from mlc.runtime.graph_module import GraphModule
from mlc.runtime.library import CompiledLibrary
from mlc.runtime.package import load_module

from .harness import harness, kernel_of, lowering_pipeline, set_schedule

FLUSH_BYTES = 64 << 20
"""More than the last-level cache of these machines (32 MiB per CCX on EPYC)."""


@dataclass(frozen=True)
class MeasureOptions:
    """How candidates are built and timed (AutoTVM's measure_option: LocalBuilder + LocalRunner).

    The kernel is called (warmup + calibration + number x repeat) times per candidate; see the
    module docstring for the loop."""

    number: int = 1
    """Calls per timed sample (the starting point when min_repeat_ms grows it; 1 and not grown
    with cold_weights)."""
    repeat: int = 10
    """Timed samples; the record's cost is the fastest. Many short samples rather than a few
    long ones: on a busy machine a short one is more likely to run undisturbed."""
    min_repeat_ms: float = 2.0
    """Grow `number` until one sample lasts at least this long (0: never)."""
    warmup: int = 1
    """Untimed calls before calibration."""
    timeout: float = 10.0
    """Seconds a candidate may run (calibration and samples) before its worker is killed."""
    build_timeout: float = 120.0
    """Seconds one build may take before its worker is killed."""
    parallel: int = 2
    """Build workers (builds run in parallel; timings never overlap)."""
    flush_cache: bool = False
    """Write a buffer larger than the caches before every sample."""
    cold_weights: bool = True
    """Time each call as the model makes it: the task's constants (weights) cold, its other
    inputs and its output warm. Before every sample of one call the caches are flushed and the
    other arguments read again (`number` 1, no `min_repeat_ms`): in a model each weight is read
    once per run (ResNet-50: 102 MB of them stream from memory) while the activations were
    just written by the kernel before. ResNet-50, 20-minute tunes on Zen 4, 2 threads: tuned
    with hot caches 0.99-1.01x the untuned model, with cold weights 1.06-1.10x. False: `number`
    calls back to back per sample, caches as the previous call left them."""
    paired: bool = True
    """Time every candidate sample by sample against the task's default schedule, and cost it
    by the ratio (the module docstring says why); False: by its fastest sample alone."""
    rtol: float = 1e-3
    """A candidate's output may differ from the default schedule's by this much, relative to
    the largest magnitude of the default's output (sums in another order round differently)."""

    def __post_init__(self) -> None:
        if self.number < 1 or self.repeat < 1 or self.parallel < 1:
            raise ValueError("number, repeat and parallel must be >= 1")
        if self.min_repeat_ms < 0 or self.warmup < 0:
            raise ValueError("min_repeat_ms and warmup must be >= 0")
        if self.timeout <= 0 or self.build_timeout <= 0:
            raise ValueError("timeouts must be > 0 seconds")


# -- in a build worker -------------------------------------------------------------------------
def build_candidate(request: dict[str, Any]) -> dict[str, Any]:
    """Lower the task's kernel with one block's schedule set, export a shared library."""
    start = time.perf_counter()
    ctx = make_context()
    module = ir.Module.parse(request["kernel"], ctx)
    with ctx, ir.Location.unknown():
        schedule = Schedule.from_attr(ir.Attribute.parse(request["schedule"]))
        set_schedule(kernel_of(module), request["block"], schedule)
        harness(module, int(request["scratch"]), request.get("sizes"))
    pipeline = lowering_pipeline(int(request["threads"]))
    PassManager.parse(pipeline).run(module)
    lib = CompiledLibrary.from_module(module, {}, pipeline=pipeline)
    out = pathlib.Path(request["out"])
    lib.export_shared(out)
    return {
        "so": str(out),
        "manifest": lib.manifest.to_json(),
        "seconds": time.perf_counter() - start,
    }


# -- in the run worker -------------------------------------------------------------------------
class RunState:
    """What the run worker keeps between candidates: inputs per task, the flush buffer."""

    def __init__(self) -> None:
        self.inputs: dict[str, list[np.ndarray]] = {}
        self.references: dict[str, GraphModule] = {}
        self.flush: np.ndarray | None = None

    def reference_for(self, key: str, so: str, manifest: Manifest) -> GraphModule:
        """The task's default schedule, loaded once per worker (again after a restart)."""
        if key not in self.references:
            gm = GraphModule(load_module(so, params={}))
            for i, value in enumerate(self.inputs_for(key, manifest)):
                gm.set_input(i, value)
            self.references[key] = gm
        return self.references[key]

    def inputs_for(self, key: str, manifest: Manifest) -> list[np.ndarray]:
        if key not in self.inputs:
            seed = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)
            rng = np.random.default_rng(seed)
            self.inputs[key] = [_random(rng, s.shape, s.dtype) for s in manifest.inputs]
        return self.inputs[key]

    def flush_caches(self) -> None:
        if self.flush is None:
            self.flush = np.zeros(FLUSH_BYTES // 8, dtype=np.float64)
        self.flush += 1.0


def _random(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Inputs a kernel can take: normal floats; zero integers and bools (they may be indices)."""
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return np.zeros(shape, dtype=dtype)


def run_candidate(request: dict[str, Any], state: RunState) -> dict[str, Any]:
    """Load a built candidate, run it once and compare its output with the reference (or store
    the reference), then time it."""
    start = time.perf_counter()
    manifest = Manifest.from_json(request["manifest"])
    gm = GraphModule(load_module(request["so"], params={}))
    for i, value in enumerate(state.inputs_for(request["task"], manifest)):
        gm.set_input(i, value)
    gm.run()
    out = gm.get_output(0)
    reference = pathlib.Path(request["reference"])
    if request["mode"] == "reference":
        np.save(reference, out)
    else:
        error = compare(out, np.load(reference), float(request["rtol"]))
        if error:
            return {"error": f"wrong output: {error}", "seconds": time.perf_counter() - start}
    if request.get("constants") is not None:
        request = {**request, "warm": warm_inputs(len(manifest.inputs), request["constants"])}
    so = request.get("reference_so")
    paired = request["mode"] == "check" and so and pathlib.Path(so).exists()
    others = [state.reference_for(request["task"], so, manifest)] if paired else []
    result, *reference = gm.benchmark_interleaved(
        others,
        number=int(request["number"]),
        repeat=int(request["repeat"]),
        min_repeat_ms=float(request["min_repeat_ms"]),
        warmup=int(request["warmup"]),
        before_each=before_sample(state, [gm, *others], request),
        lead_in=1 if others else 0,
    )
    return {
        "costs": list(result.samples),
        "reference_costs": list(reference[0].samples) if reference else [],
        "number": result.number,
        "seconds": time.perf_counter() - start,
    }


def before_sample(
    state: RunState, modules: list[GraphModule], request: dict[str, Any]
) -> Callable[[], None] | None:
    """What precedes every timed sample: nothing, a cache flush, or (`warm`: the inputs to keep
    in cache) a flush and then a read of those inputs and of the output."""
    warm = request.get("warm")
    if warm is None:
        return state.flush_caches if request["flush"] else None

    def cold_weights() -> None:
        state.flush_caches()
        for gm in modules:
            for i in warm:
                gm.get_input(i)  # a copy: reads the input into the caches
            gm.get_output(0)

    return cold_weights


def warm_inputs(count: int, constants: Sequence[int]) -> list[int]:
    """The inputs a cold-weights sample reads again after the flush: all but the constants."""
    fixed = set(constants)
    return [i for i in range(count) if i not in fixed]


def compare(got: np.ndarray, want: np.ndarray, rtol: float) -> str:
    """'' when `got` matches `want` (NaNs where `want` has them), else what differs."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{list(got.shape)} instead of {want.dtype}{list(want.shape)}"
    if want.dtype.kind != "f":
        bad = int(np.count_nonzero(got != want))
        return f"{bad} of {want.size} elements differ" if bad else ""
    g, w = got.astype(np.float64), want.astype(np.float64)
    finite = np.isfinite(w) & np.isfinite(g)
    if not np.array_equal(g[~finite], w[~finite], equal_nan=True):
        return "NaN or infinity where the default schedule's output has none (or another)"
    scale = float(np.max(np.abs(w[finite]), initial=0.0))
    diff = float(np.max(np.abs(g[finite] - w[finite]), initial=0.0))
    if not math.isfinite(diff) or diff > rtol * max(scale, 1e-30):
        return f"max |difference| {diff:.3g} against max |default| {scale:.3g} (rtol {rtol:g})"
    return ""


def error_text(e: BaseException) -> str:
    """One line for a record: an MlcError's message, or the exception type for a bug."""
    if isinstance(e, MlcError):
        return " ".join(str(e).split())
    return f"{type(e).__name__}: {' '.join(str(e).split())}"


__all__ = ["MeasureOptions", "RunState", "build_candidate", "compare", "run_candidate"]
