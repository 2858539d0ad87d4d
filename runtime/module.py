"""A loaded, callable compiled module: manifest + params + an entry point (JIT or shared library).

`CompiledLibrary.jit()` and `load_module(path)` both return a `RuntimeModule`; `GraphModule`
works on either through `EntryPoint.bind`, which turns the memref descriptors of one call's
arguments into a zero-argument callable, so the per-run cost is one foreign call.

Calling conventions of `_mlir_ciface_<entry>(desc0*, desc1*, ...)`:
  - shared library: call the symbol directly with one pointer per memref argument;
  - ExecutionEngine: `raw_lookup` returns the *packed* wrapper, `void(void** args)`, where
    `args[i]` points at the i-th argument, itself a pointer to a descriptor.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from mlc.contract import ALIGNMENT, Manifest, ManifestError

CIFACE_PREFIX = "_mlir_ciface_"


class EntryPoint(Protocol):
    """Something that can call the compiled entry with a fixed list of memref descriptors."""

    def bind(self, descriptors: Sequence[ctypes.Structure]) -> Callable[[], None]: ...


@dataclass(frozen=True)
class JitEntry:
    """The entry of a module compiled in process by an ExecutionEngine."""

    engine: Any
    """The `mlir.execution_engine.ExecutionEngine`; never destroyed (see library.py)."""
    name: str

    def bind(self, descriptors: Sequence[ctypes.Structure]) -> Callable[[], None]:
        address = self.engine.raw_lookup(CIFACE_PREFIX + self.name)
        assert address, f"ExecutionEngine has no packed wrapper for {CIFACE_PREFIX + self.name}"
        packed_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        desc_ptrs = [ctypes.c_void_p(ctypes.addressof(d)) for d in descriptors]
        packed = (ctypes.c_void_p * len(desc_ptrs))(*[ctypes.addressof(p) for p in desc_ptrs])
        keep = (descriptors, desc_ptrs, packed)

        def call() -> None:
            packed_fn(packed)
            assert keep  # the closure keeps the descriptors and pointer cells alive

        return call


@dataclass(frozen=True)
class SharedEntry:
    """The entry of a shared library loaded with ctypes."""

    library: ctypes.CDLL
    name: str

    def bind(self, descriptors: Sequence[ctypes.Structure]) -> Callable[[], None]:
        proto = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * len(descriptors)))
        fn = proto((CIFACE_PREFIX + self.name, self.library))
        addresses = [ctypes.c_void_p(ctypes.addressof(d)) for d in descriptors]
        keep = descriptors

        def call() -> None:
            fn(*addresses)
            assert keep is not None

        return call


@dataclass(frozen=True)
class RuntimeModule:
    """A compiled module ready to run: wrap it in `GraphModule` to set inputs and run."""

    manifest: Manifest
    params: Mapping[str, np.ndarray]
    entry: EntryPoint
    kind: Literal["jit", "shared"]
    keepalive: tuple[object, ...] = field(default=(), repr=False)
    """Objects the entry depends on (the IR module, the loaded runtime libraries)."""
    params_blob: np.ndarray | None = field(default=None, repr=False)
    """The params already packed (a 64-byte aligned uint8 array of `params_size` bytes, e.g.
    a package's params.bin mapped from disk); `params` are then views into it."""

    def __post_init__(self) -> None:
        check_params(self.manifest, self.params)
        blob = self.params_blob
        if blob is not None and (
            blob.dtype != np.uint8
            or blob.shape != (self.manifest.params_size,)
            or blob.ctypes.data % ALIGNMENT
        ):
            raise ManifestError(
                f"params blob must be {self.manifest.params_size} bytes (uint8) starting on a "
                f"{ALIGNMENT}-byte boundary, got {blob.dtype}[{blob.size}]"
            )


def check_params(manifest: Manifest, params: Mapping[str, np.ndarray]) -> None:
    """Every manifest param present with its exact shape and dtype, and nothing else."""
    expected = {p.name: p for p in manifest.params}
    unknown = sorted(set(params) - set(expected))
    if unknown:
        raise ManifestError(
            f"params not in the manifest: {', '.join(unknown)} "
            f"(expected: {', '.join(expected) or 'none'})"
        )
    missing = [n for n in expected if n not in params]
    if missing:
        raise ManifestError(f"params missing: {', '.join(missing)}")
    for name, spec in expected.items():
        value = params[name]
        if not isinstance(value, np.ndarray):
            raise ManifestError(f"param '{name}' must be a numpy array, got {type(value).__name__}")
        if value.dtype != np.dtype(spec.dtype) or tuple(value.shape) != spec.shape:
            got = f"{value.dtype}[{','.join(str(d) for d in value.shape)}]"
            raise ManifestError(f"param '{name}' expects {spec.describe()}, got {got}")
