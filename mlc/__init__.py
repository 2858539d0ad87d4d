"""mlc: a machine-learning compiler on the upstream MLIR Python bindings.

The facade: `mlc.Context()` (an MLIR context with the graph and tp dialects), `mlc.PassManager`,
`mlc.from_onnx`, `mlc.build` / `mlc.compile_model`, and `mlc.runtime` (GraphModule, packages).
"""

from __future__ import annotations

from typing import Any

from mlc.version import __version__


def Context(*, allow_unregistered: bool = False) -> Any:  # noqa: N802 - mirrors ir.Context
    """A new `mlir.ir.Context` with mlc's `graph` and `tp` dialects loaded."""
    from mlc.dialects.context import make_context

    return make_context(allow_unregistered=allow_unregistered)


_LAZY = {
    "PassManager": ("mlc.passes.pass_manager", "PassManager"),
    "build": ("mlc.compiler", "build"),
    "BuildOptions": ("mlc.compiler", "BuildOptions"),
    "compile_model": ("mlc.compiler", "compile_model"),
    "from_onnx": ("mlc.frontend", "from_onnx"),
    "runtime": ("mlc.runtime", None),
}


def __getattr__(name: str) -> Any:
    """The facade is lazy: `import mlc` does not load the MLIR bindings, onnx or the runtime."""
    if name not in _LAZY:
        raise AttributeError(f"module 'mlc' has no attribute {name!r}")
    from importlib import import_module

    module_name, attr = _LAZY[name]
    module = import_module(module_name)
    return module if attr is None else getattr(module, attr)


__all__ = [
    "BuildOptions",
    "Context",
    "PassManager",
    "__version__",
    "build",
    "compile_model",
    "from_onnx",
    "runtime",
]
