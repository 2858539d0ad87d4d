"""`GraphModule`: set inputs, run, read outputs, benchmark (the API of TVM's graph executor).

    gm = GraphModule(lib.jit())          # or GraphModule(load_module("model.tar"))
    gm.set_input("data", x)              # by name or index; exact dtype, admissible shape
    gm.run()                             # or gm.run(data=x)
    y = gm.get_output(0)                 # a copy; later runs do not change it
    print(gm.benchmark(number=10, repeat=20))
    print(gm.profile(number=10).table())  # compiled with kernel timers (profile=True)

Buffers are allocated once per GraphModule: the params blob (packed from the params table at
the manifest's offsets, or the module's own packed blob, shared and never copied), the
workspace blob, one buffer per input and per output, all 64-byte aligned. Their memref
descriptors are built once and bound to the entry, so `run()` is a single foreign call; the
GraphModule owns (or shares) every array a descriptor points to.

A module with symbolic dims (`seq`, `batch*seq` in its manifest) takes inputs of any admissible
shape: the symbols are bound from the inputs' shapes (`runtime.shapes`), an input buffer is
reallocated when its shape changes, and before a run the output shapes are evaluated, their
buffers reallocated if needed and the descriptors rebound; a run at the same sizes as the last
one is still a single foreign call.
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from mlc.contract import (
    ALIGNMENT,
    Manifest,
    TensorSpec,
    flops_at,
    profile_symbol,
    profiled_calls,
)
from mlc.errors import MlcError, RuntimeInputError
from mlc.runtime.benchmark import BenchmarkResult, time_function, time_interleaved
from mlc.runtime.memory import MemoryLimitError, available_bytes, check_fits, keep_freed_memory
from mlc.runtime.module import RuntimeModule
from mlc.runtime.shapes import SymbolicShapes

if TYPE_CHECKING:
    from mlc.runtime.profile import Profile


class TensorInfo(NamedTuple):
    """Shape and dtype of one input or output (unpacks as `shape, dtype = info`); a symbolic
    dim is its expression (`"seq"`)."""

    shape: tuple[int | str, ...]
    dtype: str


def aligned_empty(
    shape: tuple[int, ...], dtype: str | np.dtype, align: int = ALIGNMENT
) -> np.ndarray:
    """A zero-filled C-contiguous array whose data starts on an `align`-byte boundary."""
    dt = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    raw = np.zeros(nbytes + align, dtype=np.uint8)
    start = (-raw.ctypes.data) % align
    return np.ndarray(shape, dt, buffer=raw, offset=start)  # aligned even when empty


@cache
def _descriptor_type(rank: int) -> type[ctypes.Structure]:
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p)]
    fields.append(("offset", ctypes.c_longlong))
    if rank:
        fields += [("shape", ctypes.c_longlong * rank), ("strides", ctypes.c_longlong * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def memref_descriptor(array: np.ndarray) -> ctypes.Structure:
    """The memref descriptor compiled code reads for `array`: allocated and aligned pointers,
    offset, sizes[rank], strides[rank] in elements (the layout `mlir.runtime` builds; made
    here because importing that module imports ml_dtypes, seconds on a loaded host). It does
    not keep `array` alive."""
    d = _descriptor_type(array.ndim)()
    fill_descriptor(d, array)
    return d


def fill_descriptor(d: ctypes.Structure, array: np.ndarray) -> None:
    """Point descriptor `d` (of `array`'s rank) at `array`."""
    d.allocated = d.aligned = array.ctypes.data
    d.offset = 0
    if array.ndim:
        d.shape[:] = array.shape
        d.strides[:] = [s // array.itemsize for s in array.strides]


def pack_params(manifest: Manifest, params: Mapping[str, np.ndarray]) -> np.ndarray:
    """The params blob: each parameter's bytes at its manifest offset, in an aligned buffer."""
    blob = aligned_empty((manifest.params_size,), np.uint8)
    for spec in manifest.params:
        value = np.ascontiguousarray(params[spec.name])
        blob[spec.offset : spec.offset + spec.nbytes] = value.reshape(-1).view(np.uint8)
    return blob


def _describe(value: np.ndarray) -> str:
    return f"{value.dtype}[{','.join(str(d) for d in value.shape)}]"


class _Storage:
    """The memory under the symbolic buffers: one aligned block per buffer, grown
    geometrically, so that a size that grows call by call (a decoder's cache) does not
    allocate at every call; a buffer is a view of its block's first bytes."""

    def __init__(self) -> None:
        self._blocks: dict[str, np.ndarray] = {}

    def resized(self, key: str, shape: tuple[int, ...], dtype: object) -> np.ndarray:
        """The buffer `key` ("input 'x'") at `shape`, in its block (grown if needed)."""
        dt = np.dtype(dtype)  # type: ignore[call-overload]
        nbytes = math.prod(shape) * dt.itemsize
        block = self._blocks.get(key)
        if block is None or block.nbytes < nbytes:
            avail = available_bytes()
            if avail is not None and nbytes > avail:
                raise MemoryLimitError(
                    f"{key} at shape [{','.join(map(str, shape))}] needs "
                    f"{nbytes} bytes, more than the {avail} available here; run it at "
                    "smaller sizes"
                )
            grown = nbytes if block is None else max(nbytes, 2 * block.nbytes)
            if avail is not None:
                grown = max(nbytes, min(grown, avail // 2))
            block = self._blocks[key] = aligned_empty((grown,), np.uint8)
        return block[:nbytes].view(dt).reshape(shape)


def _static_empty(spec: TensorSpec) -> np.ndarray | None:
    return aligned_empty(spec.shape, spec.dtype) if spec.is_static else None  # type: ignore[arg-type]


class GraphModule:
    """A compiled module with its own buffers: `set_input` / `run` / `get_output` / `benchmark`."""

    def __init__(self, module: RuntimeModule) -> None:
        m = module.manifest
        check_fits(m, f"the module '{m.entry}'")  # before any buffer is allocated
        self.module = module
        self.manifest = m
        blob = module.params_blob
        self._params = blob if blob is not None else pack_params(m, module.params)
        self._workspace = aligned_empty((m.workspace_size,), np.uint8)
        self._staged: list[np.ndarray | None] = [None] * len(m.inputs)
        self._shapes = None if m.is_static else SymbolicShapes(m)
        if not m.is_static:  # intermediates of run-time size are allocated per run
            keep_freed_memory()
        self._bound_shapes: tuple[tuple[int, ...], ...] | None = None
        """The input shapes the descriptors were last bound for (symbolic modules)."""
        self._env: dict[str, int] = {}
        self._given: tuple[tuple[tuple[int, ...], ...], dict[str, int]] | None = None
        """The shapes of every input and the symbols they bind, when set in one call."""
        self._storage = _Storage()
        # a symbolic buffer is allocated once its shape is known (set_input, run)
        self._inputs = [_static_empty(s) for s in m.inputs]
        self._outputs = [_static_empty(s) for s in m.outputs]
        arrays = self._inputs + self._outputs + [self._params, self._workspace]
        # a symbolic buffer's descriptor is filled in place once its buffer exists (_prepare)
        ranks = [len(s.shape) for s in (*m.inputs, *m.outputs)] + [1, 1]
        self._descriptors = [
            _descriptor_type(rank)() if a is None else memref_descriptor(a)
            for rank, a in zip(ranks, arrays)
        ]
        self._call = module.entry.bind(self._descriptors)

    # -- signature -----------------------------------------------------------------------
    def get_num_inputs(self) -> int:
        return len(self.manifest.inputs)

    def get_num_outputs(self) -> int:
        return len(self.manifest.outputs)

    def get_input_info(self) -> dict[str, TensorInfo]:
        return {s.name: TensorInfo(s.shape, s.dtype) for s in self.manifest.inputs}

    def get_output_info(self) -> dict[str, TensorInfo]:
        return {s.name: TensorInfo(s.shape, s.dtype) for s in self.manifest.outputs}

    # -- inputs --------------------------------------------------------------------------
    def set_input(
        self, key: int | str | None = None, value: np.ndarray | None = None, **inputs: np.ndarray
    ) -> None:
        """Copy an input in: `set_input("data", x)`, `set_input(0, x)` or `set_input(data=x)`."""
        if key is not None:
            if value is None:
                raise RuntimeInputError(f"set_input({key!r}) needs a value")
            name = self._input_spec(key).name
            if name in inputs:
                raise RuntimeInputError(f"input '{name}' given twice")
            inputs = {name: value, **inputs}
        elif value is not None:
            raise RuntimeInputError("set_input(value=...) needs a key (input name or index)")
        checked = [
            (self._input_index(name), self._check(self._input_spec(name), v))
            for name, v in inputs.items()
        ]
        if self._shapes is not None and not self._same_shapes(checked):
            shapes = {index: v.shape for index, v in checked}
            env = self._shapes.bind(shapes)  # inputs given together agree
            if len(shapes) == len(self._inputs):  # all of them: run() needs not bind again
                self._given = (tuple(shapes[i] for i in range(len(shapes))), env)
        for index, v in checked:  # all checked before any is written
            buf = self._inputs[index]
            if buf is None or buf.shape != v.shape:
                buf = self._inputs[index] = self._storage.resized(
                    f"input '{self.manifest.inputs[index].name}'", v.shape, v.dtype
                )
                self._bound_shapes = None  # the descriptors point at the old buffer
            np.copyto(buf, v)
            self._staged[index] = v

    def _same_shapes(self, values: list[tuple[int, np.ndarray]]) -> bool:
        """Every value has the shape its buffer had at the last run (checked then)."""
        if self._bound_shapes is None:
            return False
        return all(self._bound_shapes[i] == v.shape for i, v in values)

    def get_input(self, key: int | str) -> np.ndarray:
        """A copy of the current content of an input buffer."""
        buf = self._inputs[self._input_index(key)]
        if buf is None:
            spec = self._input_spec(key)
            raise RuntimeInputError(
                f"input '{spec.name}' ({spec.describe()}) is not set: its shape is symbolic"
            )
        return buf.copy()

    def _input_index(self, key: int | str) -> int:
        spec = self._input_spec(key)
        return self.manifest.inputs.index(spec)

    def _input_spec(self, key: int | str) -> TensorSpec:
        specs = self.manifest.inputs
        if isinstance(key, str):
            for spec in specs:
                if spec.name == key:
                    return spec
            raise RuntimeInputError(
                f"no input named '{key}'; the module is {self.manifest.signature()}"
            )
        if (
            isinstance(key, (int, np.integer))
            and not isinstance(key, bool)
            and 0 <= key < len(specs)
        ):
            return specs[int(key)]
        raise RuntimeInputError(
            f"input index {key!r} out of range: the module has {len(specs)} "
            f"inputs {self.manifest.signature()}"
        )

    def _check(self, spec: TensorSpec, value: object) -> np.ndarray:
        if not isinstance(value, np.ndarray):
            raise RuntimeInputError(
                f"input '{spec.name}' expects {spec.describe()}, got "
                f"{type(value).__name__} (pass a numpy array)"
            )
        if value.dtype != np.dtype(spec.dtype) or (
            spec.is_static and tuple(value.shape) != spec.shape
        ):
            raise RuntimeInputError(
                f"input '{spec.name}' expects {spec.describe()}, got {_describe(value)}"
            )
        return value

    # -- running -------------------------------------------------------------------------
    def run(self, **inputs: np.ndarray) -> None:
        """Set the given inputs (if any), then execute once. Every input must have been set."""
        if inputs:
            self.set_input(**inputs)
        self._require_inputs()
        self._call()

    def _require_inputs(self) -> None:
        unset = [s.name for s, v in zip(self.manifest.inputs, self._staged) if v is None]
        if unset:
            raise RuntimeInputError(
                f"inputs not set: {', '.join(unset)}; the module is {self.manifest.signature()}"
            )
        if self._shapes is not None:
            self._prepare(self._shapes)

    def _prepare(self, shapes: SymbolicShapes) -> None:
        """Bind the symbols from every input (inputs set in separate calls must agree now),
        check the shape checks, size the outputs and rebind the descriptors if a shape moved."""
        if self._bound_shapes is not None:  # no input buffer moved since the last run
            return
        current = tuple(b.shape for b in self._inputs)  # type: ignore[union-attr]
        given, self._given = self._given, None
        env = given[1] if given and given[0] == current else shapes.bind(dict(enumerate(current)))
        shapes.check(env)
        for i, (shape, spec) in enumerate(zip(shapes.output_shapes(env), self.manifest.outputs)):
            buf = self._outputs[i]
            if buf is None or buf.shape != shape:
                self._outputs[i] = self._storage.resized(f"output '{spec.name}'", shape, spec.dtype)
        for d, a in zip(self._descriptors, self._inputs + self._outputs):
            fill_descriptor(d, a)  # type: ignore[arg-type]
        self._env, self._bound_shapes = env, current

    @property
    def symbol_values(self) -> dict[str, int]:
        """The symbols' values of the last run (empty for a static module)."""
        return dict(self._env)

    def get_output(self, index: int | str, out: np.ndarray | None = None) -> np.ndarray:
        """Output `index` (position or name) as a new array, or copied into `out`."""
        names = [s.name for s in self.manifest.outputs]
        if isinstance(index, str):
            if index not in names:
                raise RuntimeInputError(f"no output named '{index}'; outputs: {', '.join(names)}")
            index = names.index(index)
        if not (isinstance(index, (int, np.integer)) and 0 <= index < len(names)):
            raise RuntimeInputError(
                f"output index {index!r} out of range: the module has {len(names)} outputs"
            )
        buf = self._outputs[int(index)]
        if buf is None:
            spec = self.manifest.outputs[int(index)]
            raise RuntimeInputError(
                f"output '{spec.name}' ({spec.describe()}) has no value yet: its shape is "
                "symbolic, known after run()"
            )
        if out is None:
            return buf.copy()
        if out.dtype != buf.dtype or out.shape != buf.shape:
            raise RuntimeInputError(
                f"out for output '{names[index]}' must be {_describe(buf)}, got {_describe(out)}"
            )
        np.copyto(out, buf)
        return out

    def benchmark(
        self,
        *,
        number: int = 5,
        repeat: int = 5,
        min_repeat_ms: float = 0.0,
        end_to_end: bool = False,
        warmup: int = 1,
        before_each: Callable[[], object] | None = None,
    ) -> BenchmarkResult:
        """Time `run()` with `mlc.runtime.benchmark.time_function` (its docstring has the loop):
        `warmup` untimed calls, then `repeat` samples of `number` calls each, `number` grown
        until one sample lasts `min_repeat_ms`. `end_to_end=True` also times copying every input
        in from the arrays last given to `set_input` and copying every output out.
        `before_each` runs untimed before every sample (a cache flush)."""
        self._require_inputs()
        fn = self._run_end_to_end if end_to_end else self._call
        return time_function(
            fn,
            number=number,
            repeat=repeat,
            min_repeat_ms=min_repeat_ms,
            warmup=warmup,
            before_each=before_each,
        )

    def benchmark_interleaved(
        self,
        others: Sequence[GraphModule],
        *,
        number: int = 5,
        repeat: int = 5,
        min_repeat_ms: float = 0.0,
        warmup: int = 1,
        before_each: Callable[[], object] | None = None,
        lead_in: int = 0,
    ) -> list[BenchmarkResult]:
        """Time `run()` of this module and of `others` sample by sample (a, b, a, b, ...;
        `mlc.runtime.benchmark.time_interleaved`, which says what `lead_in` is), `number`
        calibrated on this one. Results in the order self, *others."""
        modules = [self, *others]
        for gm in modules:
            gm._require_inputs()
        return time_interleaved(
            [gm._call for gm in modules],
            number=number,
            repeat=repeat,
            min_repeat_ms=min_repeat_ms,
            warmup=warmup,
            before_each=before_each,
            lead_in=lead_in,
        )

    def _run_end_to_end(self) -> list[np.ndarray]:
        for buf, src in zip(self._inputs, self._staged):
            assert src is not None and buf is not None, "benchmark() checked the inputs"
            np.copyto(buf, src)
        self._call()
        return [buf.copy() for buf in self._outputs]  # type: ignore[union-attr]

    def profile(self, *, number: int = 10, warmup: int = 1) -> Profile:
        """Run `number` times after `warmup` untimed runs, reading the kernel timers compiled
        into the module (`mlc.build(..., profile=True)`, `mlc compile --profile`): the mean
        time of every kernel call, with the ONNX nodes it runs, and of the whole run."""
        from mlc.runtime.profile import KernelTime, Profile, threads_of
        from mlc.target import peak_gflops

        calls = profiled_calls(self.manifest)
        if calls is None:
            raise MlcError(
                "the module was compiled without kernel timers: compile it with "
                "`mlc compile --profile` (or mlc.build(..., profile=True)) to profile it"
            )
        if number < 1 or warmup < 0:
            raise MlcError(f"profile needs number >= 1 and warmup >= 0, got {number}, {warmup}")
        self._require_inputs()
        counters = aligned_empty((len(calls) + 1,), np.int64)
        reader = dataclasses.replace(  # type: ignore[type-var]
            self.module.entry, name=profile_symbol(self.manifest.entry)
        )
        read = reader.bind([memref_descriptor(counters)])
        for _ in range(warmup):
            self._call()
        read()  # zeroes the counters
        start = time.perf_counter()
        for _ in range(number):
            self._call()
        seconds = time.perf_counter() - start
        read()
        runs = int(counters[-1])
        if runs != number:
            raise MlcError(f"the kernel timers counted {runs} runs, not {number}: a bug in mlc")
        threads = threads_of(self.manifest)
        sized = [dataclasses.replace(c, flops=flops_at(c, self._env)) for c in calls]
        return Profile(
            kernels=tuple(
                KernelTime(c, float(ns) / runs / 1e6) for c, ns in zip(sized, counters[:-1])
            ),
            runs=runs,
            run_ms=seconds / runs * 1e3,
            threads=threads,
            peak_gflops=peak_gflops(threads),
        )
