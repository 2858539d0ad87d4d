"""Static memory planning: intermediate buffers as offsets into one workspace.

Buffers live from the call that defines them to their last use; freed ranges are reused
first-fit and coalesced, so the workspace is the peak of live bytes plus fragmentation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlc.contract import aligned


@dataclass
class Arena:
    free: list[tuple[int, int]] = field(default_factory=list)  # (offset, size), sorted by offset
    top: int = 0

    def alloc(self, nbytes: int) -> int:
        size = aligned(nbytes)
        for i, (off, avail) in enumerate(self.free):
            if avail >= size:
                if avail == size:
                    del self.free[i]
                else:
                    self.free[i] = (off + size, avail - size)
                return off
        off = self.top
        self.top += size
        return off

    def release(self, offset: int, nbytes: int) -> None:
        size = aligned(nbytes)
        self.free.append((offset, size))
        self.free.sort()
        merged: list[tuple[int, int]] = []
        for off, sz in self.free:
            if merged and merged[-1][0] + merged[-1][1] == off:
                merged[-1] = (merged[-1][0], merged[-1][1] + sz)
            else:
                merged.append((off, sz))
        # Free space at the top shrinks the arena instead of staying fragmented.
        if merged and merged[-1][0] + merged[-1][1] == self.top:
            self.top = merged.pop()[0]
        self.free = merged


@dataclass
class Lifetime:
    key: object
    nbytes: int
    start: int  # index of the defining step
    end: int  # index of the last step that reads it


def plan(lifetimes: list[Lifetime]) -> tuple[dict[object, int], int]:
    """Offsets for every buffer such that buffers alive at the same step never overlap.

    A buffer read by step i is still alive while step i writes its own outputs, so a step's
    inputs and outputs never alias.
    """
    arena = Arena()
    offsets: dict[object, int] = {}
    peak = 0
    live: list[Lifetime] = []
    for step in sorted({lt.start for lt in lifetimes}):
        for lt in [lt for lt in live if lt.end < step]:
            arena.release(offsets[lt.key], lt.nbytes)
            live.remove(lt)
        for lt in [lt for lt in lifetimes if lt.start == step]:
            offsets[lt.key] = arena.alloc(lt.nbytes)
            live.append(lt)
        peak = max(peak, arena.top)
    return offsets, peak
