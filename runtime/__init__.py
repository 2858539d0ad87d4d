"""mlc.runtime: run compiled modules (JIT, object files, shared libraries, packages).

    from mlc.runtime import CompiledLibrary, GraphModule, load_module
    lib = mlc.build(module, params, threads=2)               # a CompiledLibrary
    gm = GraphModule(lib.jit())                               # run in process
    lib.export_library("model.tar")                           # deployable package
    gm2 = GraphModule(load_module("model.tar"))               # same API, no compilation

Names are imported lazily: loading a package needs neither the MLIR IR bindings nor the JIT.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Manifest": "mlc.contract",
    "TensorSpec": "mlc.contract",
    "ParamSpec": "mlc.contract",
    "TargetInfo": "mlc.contract",
    "SourceModel": "mlc.contract",
    "ManifestError": "mlc.contract",
    "CompiledLibrary": "library",
    "RuntimeModule": "module",
    "GraphModule": "graph_module",
    "TensorInfo": "graph_module",
    "BenchmarkResult": "benchmark",
    "time_function": "benchmark",
    "time_interleaved": "benchmark",
    "load_module": "package",
    "verify_package": "package",
    "PackageError": "package",
    "UnsafePackageError": "package",
    "host_target": "target",
    "source_model": "target",
    "TargetMismatchError": "target",
    "RunOptions": "runner",
    "RunResult": "runner",
    "FillMode": "runner",
    "run_module": "runner",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'mlc.runtime' has no attribute {name!r}")
    module = _EXPORTS[name]
    return getattr(import_module(module if "." in module else f"mlc.runtime.{module}"), name)


__all__ = sorted(_EXPORTS)
