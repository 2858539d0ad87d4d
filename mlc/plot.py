"""Pictures (PNG, matplotlib from the `plot` extra, imported when drawing): a model's kernel
profile and a tuning run's curves.

    plot_profile(gm.profile(), "profile.png")      # time per kernel call, by ONNX nodes
    plot_tuning(records_path, "tuning.png")        # best-so-far GFLOP/s per task

The title is also written into the PNG's metadata ("Title"), so that a test or a script can
tell what a file shows without looking at it.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING, Any

from mlc.errors import MissingDependencyError

if TYPE_CHECKING:
    from mlc.runtime.profile import Profile

MAX_BARS = 40
"""Kernel calls drawn in a profile (the slowest; the title sums the rest)."""
LABEL_CHARS = 44


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
