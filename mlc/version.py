"""Versions of mlc and of the pinned MLIR stack (for --version and package manifests)."""

from __future__ import annotations

from importlib import metadata

__version__ = "0.1.0"


def mlir_version() -> str:
    try:
        return metadata.version("xtc-mlir-python-bindings")
    except metadata.PackageNotFoundError:
        return "unknown"


def version_text() -> str:
    return f"mlc {__version__} (MLIR Python bindings {mlir_version()})"
