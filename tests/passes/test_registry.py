"""Invariants of the pass registry (xDSL-style): names, lit files, no clash with upstream."""

from __future__ import annotations

import dataclasses
import pathlib

import pytest
from mlir import ir
from mlir.passmanager import PassManager as MlirPassManager

from mlc.passes import registry
from mlc.passes.base import ModulePass

ROOT = pathlib.Path(__file__).resolve().parents[2]

PASS_NAMES = sorted(registry.ALL_PASSES)
PIPELINE_NAMES = sorted(registry.ALL_PIPELINES)


@pytest.mark.parametrize("name", PASS_NAMES)
def test_key_matches_pass_name(name: str) -> None:
    cls = registry.get_pass(name)
    assert cls is not None and cls.name == name
    assert issubclass(cls, ModulePass)
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", PASS_NAMES + PIPELINE_NAMES)
def test_has_lit_file(name: str) -> None:
    path = ROOT / "lit_tests" / "passes" / f"{name}.mlir"
    assert path.exists(), f"every pass needs lit_tests/passes/{name}.mlir"
    assert f"{name}" in path.read_text()


@pytest.mark.parametrize("name", PASS_NAMES + PIPELINE_NAMES)
def test_summary_and_option_docs(name: str) -> None:
    cls = registry.get_pass(name) or registry.get_pipeline(name)
    assert cls is not None
    summary = cls.summary()
    assert summary and summary.endswith(".") and "\n" not in summary
    for opt in cls.options():
        assert opt.doc, f"{name}: option {opt.name} needs an attribute docstring"
        assert opt.name == opt.name.lower() and "_" not in opt.name


@pytest.mark.parametrize("name", PASS_NAMES + PIPELINE_NAMES)
def test_no_clash_with_upstream(name: str) -> None:
    assert name not in registry.upstream_pass_names()
    with ir.Context(), pytest.raises(ValueError, match="does not refer to a registered pass"):
        MlirPassManager.parse(f"builtin.module({name})")


def test_lit_files_name_registered_passes() -> None:
    """The reverse direction: no stale lit file for a pass that no longer exists."""
    known = set(PASS_NAMES) | set(PIPELINE_NAMES)
    stale = [p.stem for p in (ROOT / "lit_tests" / "passes").glob("*.mlir") if p.stem not in known]
    assert not stale


def test_upstream_list_matches_pinned_mlir() -> None:
    names = registry.upstream_pass_names()
    assert {"canonicalize", "cse", "convert-linalg-to-loops", "lower-affine"} <= names
    with ir.Context():
        for name in ("canonicalize", "cse", "buffer-deallocation-pipeline", "convert-func-to-llvm"):
            MlirPassManager.parse(f"builtin.module({name})")


def test_suggest_closest_name() -> None:
    assert "graph-verify" in registry.suggest("graph-verfy")
    assert "canonicalize" in registry.suggest("canonicalise")
    assert registry.suggest("zzzzzzzz") == ""


def test_plugin_passes_register_and_clashes_are_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Third-party passes come from the `mlc.passes` entry-point group, never shadowing names."""
    from mlc.passes.mlc_dce import MlcDcePass

    @dataclasses.dataclass(frozen=True)
    class PluginPass(MlcDcePass):
        """A plugin pass (test)."""

        name = "my-plugin-pass"  # type: ignore[misc]

    monkeypatch.setattr(registry, "_entry_points", lambda: {"my-plugin-pass": lambda: PluginPass})
    registry.all_passes.cache_clear()
    try:
        assert registry.get_pass("my-plugin-pass") is PluginPass
        monkeypatch.setattr(registry, "_entry_points", lambda: {"cse": lambda: PluginPass})
        registry.all_passes.cache_clear()
        with pytest.raises(ValueError, match="plugin pass 'cse' clashes"):
            registry.all_passes()
    finally:
        registry.all_passes.cache_clear()


def test_parsing_a_pipeline_reads_no_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """Option docstrings come from the passes' source, read only for listings and help: a
    compile parses its pipeline without it (reading it cost ~0.6 s of CPU per compile)."""
    from mlc.passes import base
    from mlc.passes.pass_manager import PassManager

    read: list[object] = []
    real = base.inspect.getsource
    monkeypatch.setattr(base.inspect, "getsource", lambda obj: read.append(obj) or real(obj))
    base._field_docs.cache_clear()
    base._options_of.cache_clear()
    pm = PassManager.parse("builtin.module(mlc-default{threads=2},graph-fuse{max-group-size=4})")
    assert "graph-fuse{max-group-size=4}" in str(pm)
    assert read == []
    fuse = registry.get_pass("graph-fuse")
    assert fuse is not None
    assert [o.doc for o in fuse.options() if o.name == "max-group-size"][0]
    assert read
