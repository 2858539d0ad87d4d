"""Models with run-time sizes allocate their intermediates of run-time size per run: the
runtime keeps glibc from handing freed chunks back to the kernel (each run would fault their
pages in again), so a chunk of tens of MiB comes from the heap, not from a fresh mmap."""

from __future__ import annotations

import ctypes
import ctypes.util

import pytest

from mlc.runtime.memory import keep_freed_memory

libc = ctypes.CDLL(ctypes.util.find_library("c"))
if not hasattr(libc, "mallinfo2"):
    pytest.skip("needs glibc >= 2.33 (mallinfo2)", allow_module_level=True)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
            "fsmblks", "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


def test_freed_chunks_stay_in_the_heap() -> None:
    libc.mallinfo2.restype = _Mallinfo2
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    assert keep_freed_memory()
    before = libc.mallinfo2().hblks  # chunks served by mmap
    chunk = libc.malloc(24 << 20)
    assert chunk
    during = libc.mallinfo2().hblks
    libc.free(chunk)
    assert during == before, "a 24 MiB chunk was mmapped: freeing it unmaps its pages"
