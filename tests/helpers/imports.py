"""Make an optional package look uninstalled for one test (its import raises ImportError)."""

from __future__ import annotations

import builtins

import pytest


def block_import(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """Every `import package[.sub]` raises ImportError until the test ends."""
    real_import = builtins.__import__

    def blocked(name: str, *args: object, **kwargs: object) -> object:
        if name.split(".")[0] == package:
            raise ImportError(f"No module named '{name}'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", blocked)
