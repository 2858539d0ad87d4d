"""Pictures (PNG, matplotlib from the `plot` extra, imported when drawing): a model's kernel
profile and a tuning run's curves.

    plot_profile(gm.profile(), "profile.png")      # time per kernel call, by ONNX nodes
    plot_tuning(records_path, "tuning.png")        # best-so-far GFLOP/s per task

The title is also written into the PNG's metadata ("Title"), so that a test or a script can
tell what a file shows without looking at it.
"""

from __future__ import annotations

import pathlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mlc.errors import MissingDependencyError

if TYPE_CHECKING:
    from mlc.runtime.profile import Profile
    from mlc.tuner.records import Record
    from mlc.tuner.task import Task

MAX_BARS = 40
"""Kernel calls drawn in a profile (the slowest; the title sums the rest)."""
LABEL_CHARS = 44
MAX_LEGEND = 10
"""Tasks named in a tuning plot's legend (the rest are drawn, unnamed)."""


def require_matplotlib() -> Any:
    """`matplotlib.pyplot` on the file-only Agg backend; MissingDependencyError without it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError("matplotlib", extra="plot") from None
    return plt


def _label(nodes: tuple[str, ...], kernel: str) -> str:
    text = ", ".join(nodes) or kernel
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 3] + "..."


def _save(plt: Any, fig: Any, path: str | pathlib.Path, title: str) -> pathlib.Path:
    from mlc.files import atomic_output

    path = pathlib.Path(path)
    with atomic_output(path) as tmp:
        fig.savefig(tmp, format="png", dpi=100, metadata={"Title": title, "Software": "mlc"})
    plt.close(fig)
    return path


def plot_profile(
    profile: Profile, path: str | pathlib.Path, title: str = "mlc profile"
) -> pathlib.Path:
    """Horizontal bars: ms per kernel call (slowest at the top), labelled by the ONNX nodes it
    runs, coloured by the op it is about (conv2d, matmul, ...)."""
    plt = require_matplotlib()
    kernels = profile.slowest()
    shown, rest = kernels[:MAX_BARS], kernels[MAX_BARS:]
    labels = [_label(k.call.nodes, k.call.kernel) for k in shown]
    values = [k.ms for k in shown]
    kinds = [k.call.anchor for k in shown]
    palette = plt.get_cmap("tab10")
    order = list(dict.fromkeys(kinds))
    colours = {kind: palette(i % 10) for i, kind in enumerate(order)}
    fig, ax = plt.subplots(figsize=(11, 1.5 + 0.28 * len(values)))
    y = list(range(len(values)))[::-1]
    ax.barh(y, values, color=[colours[k] for k in kinds])
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("ms per run")
    for yi, v in zip(y, values):
        ax.text(v, yi, f" {100 * v / profile.kernel_ms:.1f} %", va="center", fontsize=7)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[k]) for k in order]
    ax.legend(handles, order, title="op", fontsize=8, loc="lower right")
    subtitle = (
        f"{len(kernels)} kernel calls, {profile.kernel_ms:.3g} ms of a {profile.run_ms:.3g} ms "
        f"run, {profile.threads} thread(s)"
    )
    if rest:  # a bar of their sum would dwarf the others
        subtitle += f"; {len(rest)} faster calls not drawn: {sum(k.ms for k in rest):.3g} ms"
    ax.set_title(f"{title}\n{subtitle}", fontsize=10)
    fig.tight_layout()
    return _save(plt, fig, path, title)


@dataclass(frozen=True)
class TuningCurve:
    """One task's tuning: best-so-far GFLOP/s after each trial, and when (seconds)."""

    label: str
    default_gflops: float | None
    trials: tuple[int, ...]
    seconds: tuple[float, ...]
    best_gflops: tuple[float, ...]


def _gflops(flops: int, ms: float | None) -> float:
    return flops / (ms * 1e6) if ms else 0.0


def tuning_curves(records: Sequence[Record], tasks: Sequence[Task]) -> list[TuningCurve]:
    """The curves of the tasks that had trials, from their records (those of the task's
    workload, block and thread count, in file order, so a resumed run continues its curve);
    time from the first record."""
    mine = [
        [r for r in records if (r.workload, r.block, r.threads) == (t.workload, t.block, t.threads)]
        for t in tasks
    ]
    stamps = [r.timestamp for rs in mine for r in rs if r.timestamp > 0]
    start = min(stamps, default=0.0)
    curves = []
    for task, rs in zip(tasks, mine):
        defaults = [r.cost_ms for r in rs if r.default and r.ok]
        best, trials, seconds, values = 0.0, [], [], []
        for r in rs:
            if r.default or r.remeasured:  # re-timings of the best few are not trials
                continue
            if r.ok:
                best = max(best, _gflops(task.flops, r.cost_ms))
            trials.append(len(trials) + 1)
            seconds.append(max(r.timestamp - start, 0.0))
            values.append(best)
        if not trials:
            continue  # nothing to tune (a copy) or not reached
        curves.append(
            TuningCurve(
                f"{task.kernel} (x{task.weight})",
                _gflops(task.flops, defaults[-1]) if defaults else None,
                tuple(trials),
                tuple(seconds),
                tuple(values),
            )
        )
    return curves


def plot_tuning(
    curves: Sequence[TuningCurve], path: str | pathlib.Path, title: str = "mlc tune"
) -> pathlib.Path:
    """Best-so-far GFLOP/s per task against trials (left) and wall time (right); each task's
    default schedule a dashed line of its colour. The legend names the first MAX_LEGEND tasks
    (give them by share of the model's latency)."""
    plt = require_matplotlib()
    fig, (by_trial, by_time) = plt.subplots(1, 2, figsize=(13, 5.5), sharey=True)
    palette = plt.get_cmap("tab10")
    for i, c in enumerate(curves):
        colour = palette(i % 10)
        label = c.label if i < MAX_LEGEND else None
        by_trial.step(c.trials, c.best_gflops, where="post", color=colour, label=label)
        by_time.step([s / 60 for s in c.seconds], c.best_gflops, where="post", color=colour)
        if c.default_gflops is not None:
            for ax in (by_trial, by_time):
                ax.axhline(c.default_gflops, color=colour, linestyle="--", linewidth=1, alpha=0.7)
    by_trial.set_xlabel("trials")
    by_time.set_xlabel("wall time (minutes)")
    by_trial.set_ylabel("best GFLOP/s so far (dashed: default schedule)")
    for ax in (by_trial, by_time):
        ax.grid(alpha=0.3)
        ax.set_ylim(bottom=0)
    if curves:
        by_trial.legend(fontsize=7, loc="lower right")
    more = (
        f" ({len(curves) - MAX_LEGEND} more not in the legend)" if len(curves) > MAX_LEGEND else ""
    )
    fig.suptitle(f"{title}\n{len(curves)} tasks{more}", fontsize=10)
    fig.tight_layout()
    return _save(plt, fig, path, title)
