"""mlc: a machine-learning compiler on the upstream MLIR Python bindings.

The facade: `mlc.Context()` (an MLIR context with the graph and tp dialects), `mlc.PassManager`,
and (lazily, to keep start-up cheap) the frontend and runtime entry points.
"""

from __future__ import annotations

from typing import Any

from mlc.version import __version__


def Context(*, allow_unregistered: bool = False) -> Any:  # noqa: N802 - mirrors ir.Context
    """A new `mlir.ir.Context` with mlc's `graph` and `tp` dialects loaded."""
    from mlc.dialects.context import make_context

    return make_context(allow_unregistered=allow_unregistered)


def __getattr__(name: str) -> Any:
    if name == "PassManager":
        from mlc.pass_manager import PassManager

        return PassManager
    raise AttributeError(f"module 'mlc' has no attribute {name!r}")


__all__ = ["Context", "PassManager", "__version__"]
