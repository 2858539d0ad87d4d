"""Memory a compiled module needs, checked against what this machine can give before any
buffer is allocated: a model whose parameters or intermediates do not fit fails with one
message saying how much it needs and how much there is, not with a MemoryError (or the
kernel's OOM killer) half-way through setting up."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import resource

from mlc.contract import Manifest
from mlc.errors import MlcError
from mlc.symbolic import free_symbols


class MemoryLimitError(MlcError):
    """A module whose buffers need more memory than this machine or process can have."""


def available_bytes() -> int | None:
    """Memory this process can still allocate: the kernel's MemAvailable plus free swap,
    capped by the address-space limit (RLIMIT_AS) left; None if unknown."""
    avail: int | None = None
    try:
        with open("/proc/meminfo") as f:
            info = {k: int(v.split()[0]) * 1024 for k, v in (ln.split(":", 1) for ln in f)}
        avail = info["MemAvailable"] + info.get("SwapFree", 0)
    except (OSError, KeyError, ValueError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        avail = soft if avail is None else min(avail, soft)
    return avail


def needed_bytes(manifest: Manifest) -> dict[str, int]:
    """Bytes of each buffer kind a GraphModule allocates for `manifest`."""
    return {
        "parameters": manifest.params_size,
        "intermediates": manifest.workspace_size,
        "inputs and outputs": sum(
            s.nbytes if s.is_static else s.nbytes_at(_lower_bounds(manifest))
            for s in (*manifest.inputs, *manifest.outputs)
        ),
    }


def _lower_bounds(manifest: Manifest) -> dict[str, int]:
    """Each symbol at its lower bound: the least a symbolic buffer takes (its size at the
    sizes of a run is only known then)."""
    return {
        name: manifest.bounds(name)[0]
        for spec in manifest.inputs
        for d in spec.dims()
        for name in free_symbols(d)
    }


def check_fits(manifest: Manifest, shown: str = "the module") -> None:
    """MemoryLimitError if the buffers of `manifest` cannot fit in the memory available."""
    need = needed_bytes(manifest)
    total, avail = sum(need.values()), available_bytes()
    if avail is None or total <= avail:
        return
    parts = ", ".join(f"{k} {_size(v)}" for k, v in need.items() if v)
    raise MemoryLimitError(
        f"{shown} needs {_size(total)} of memory ({parts}), more than the {_size(avail)} "
        "available here; run it on a machine with more memory, or compile it for smaller "
        "input shapes (--input-shapes)"
    )


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


@functools.cache
def keep_freed_memory() -> bool:
    """Keep memory freed by a module's per-run buffers in the heap (glibc's malloc; elsewhere
    nothing). A module with run-time sizes allocates its intermediates of run-time size on
    every run and frees them after; glibc hands large ones back to the kernel (mmap, heap
    trimming) and faults their pages in again on the next run: BERT at 512 tokens ran 130
    instead of 80 ms. Chunks up to 32 MiB (glibc's largest mmap threshold) then stay in the
    heap, and up to 1 GiB of free heap stays mapped. Process-wide, once; True when applied."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = getattr(libc, "mallopt", None)
    except OSError:
        return False
    if mallopt is None or not hasattr(libc, "gnu_get_libc_version"):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, 32 << 20)) and bool(mallopt(M_TRIM_THRESHOLD, 1 << 30))
