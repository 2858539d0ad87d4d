"""Per-kernel times of a module compiled with kernel timers (`mlc-default{profile=true}`,
`mlc compile --profile`), taken inside real runs, mapped to the ONNX nodes each kernel runs.

    profile = GraphModule(load_module("model.tar")).profile(number=10)
    print(profile.table())               # kernel, ONNX nodes, op types, ms, %, GFLOP/s, % of peak

The timers are read through `<entry>_profile` (see `mlc.contract.PROFILE_KEY`); the whole run
is timed around the same calls, so `kernel_ms / run_ms` says how much of the run the kernels
account for (the rest: the entry's own code and the timers, about 40 ns per kernel).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mlc.contract import Manifest, ProfiledCall

ROW_NODES = 48
"""Characters of the node list printed per row of the table (the JSON has them all)."""


@dataclass(frozen=True)
class KernelTime:
    """One kernel call: what it runs and its mean time per run."""

    call: ProfiledCall
    ms: float

    @property
    def gflops(self) -> float:
        return self.call.flops / (self.ms * 1e6) if self.ms > 0 else 0.0


@dataclass(frozen=True)
class Profile:
    """Kernel times per run (mean over `runs`), in call order, and the run's own time."""

    kernels: tuple[KernelTime, ...]
    runs: int
    run_ms: float
    """Wall time per run, measured around the same calls."""
    threads: int
    peak_gflops: float | None
    """The host's estimated f32 peak on `threads` cores (`mlc.target.peak_gflops`)."""

    @property
    def kernel_ms(self) -> float:
        return sum(k.ms for k in self.kernels)

    def share(self, k: KernelTime) -> float:
        """Percent of the summed kernel time."""
        return 100.0 * k.ms / self.kernel_ms if self.kernel_ms > 0 else 0.0

    def of_peak(self, k: KernelTime) -> float | None:
        return 100.0 * k.gflops / self.peak_gflops if self.peak_gflops and k.call.flops else None

    def slowest(self) -> list[KernelTime]:
        return sorted(self.kernels, key=lambda k: -k.ms)

    def to_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "run_ms": self.run_ms,
            "kernel_ms": self.kernel_ms,
            "threads": self.threads,
            "peak_gflops": self.peak_gflops,
            "kernels": [
                {
                    "kernel": k.call.kernel,
                    "nodes": list(k.call.nodes),
                    "ops": list(k.call.ops),
                    "op_types": list(k.call.op_types),
                    "anchor": k.call.anchor,
                    "ms": k.ms,
                    "percent": self.share(k),
                    "flops": k.call.flops,
                    "gflops": k.gflops,
                    "percent_of_peak": self.of_peak(k),
                }
                for k in self.kernels
            ],
        }

    def table(self, top: int | None = None) -> str:
        """The kernels, slowest first (`top` of them), then the sums."""
        rows = [("kernel", "ONNX nodes", "op types", "ms", "%", "GFLOP/s", "% peak")]
        for k in self.slowest()[:top]:
            nodes = ", ".join(k.call.nodes)
            if len(nodes) > ROW_NODES:
                nodes = nodes[: ROW_NODES - 3] + "..."
            peak = self.of_peak(k)
            rows.append(
                (
                    k.call.kernel,
                    nodes,
                    "+".join(k.call.op_types or k.call.ops),
                    f"{k.ms:.4f}",
                    f"{self.share(k):.1f}",
                    f"{k.gflops:.1f}" if k.call.flops else "-",
                    f"{peak:.1f}" if peak is not None else "-",
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        right = {3, 4, 5, 6}
        lines = [
            "  ".join(
                c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))
            ).rstrip()
            for r in rows
        ]
        shown = len(rows) - 1
        more = f" ({len(self.kernels) - shown} more not shown)" if shown < len(self.kernels) else ""
        peak = f", peak estimate {self.peak_gflops:.0f} GFLOP/s" if self.peak_gflops else ""
        lines.append(
            f"{len(self.kernels)} kernel calls{more}: {self.kernel_ms:.3f} ms of a "
            f"{self.run_ms:.3f} ms run ({100 * self.kernel_ms / self.run_ms:.1f} %), mean of "
            f"{self.runs} runs on {self.threads} thread(s){peak}"
        )
        return "\n".join(lines)


def threads_of(manifest: Manifest) -> int:
    """The worker threads the module was compiled for (from its pipeline; 1 if unnamed)."""
    m = re.search(r"threads=(\d+)", manifest.pipeline or "")
    return int(m.group(1)) if m else 1
