"""The layers of mlc import only downwards: leaves <- dialects <- frontend, passes <- runtime
<- tuner <- mlc (facade and CLIs).

Two checks: every import statement of every module, at any nesting level (a function-level
import that dodges a cycle is still a dependency), resolved and compared with the allowed
direction; and each layer imported alone in a fresh interpreter, with every module of it,
loads nothing of a layer above it.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Source folder of each sub-package (pyproject's package-dir).
FOLDERS = {
    "dialects": "dialects",
    "frontend": "frontend",
    "passes": "passes",
    "runtime": "runtime",
    "tuner": "tuner",
    "mlc": "mlc",
}
LEAVES = {
    "mlc.errors",
    "mlc.version",
    "mlc.contract",
    "mlc.npz",
    "mlc.target",
    "mlc.files",
    "mlc.progress",
    "mlc.symbolic",
}
"""Leaf modules of the root package: imported by every layer, importing only each other."""
ALLOWED = {
    "leaf": set(),
    "dialects": {"leaf"},
    "frontend": {"leaf", "dialects"},
    "passes": {"leaf", "dialects"},
    "runtime": {"leaf"},
    "tuner": {"leaf", "dialects", "frontend", "passes", "runtime"},
    "mlc": {"leaf", "dialects", "frontend", "passes", "runtime", "tuner"},
}
EXCEPTIONS = {("mlc.passes.tp_apply_records", "mlc.tuner.records")}
"""Documented in docs/design.md: the pass that applies tuning records reads their format."""


def layer_of(module: str) -> str | None:
    if module in LEAVES:
        return "leaf"
    parts = module.split(".")
    if parts[0] != "mlc":
        return None
    if len(parts) > 1 and parts[1] in FOLDERS and parts[1] != "mlc":
        return parts[1]
    return "mlc"


def modules() -> list[tuple[str, pathlib.Path]]:
    out = []
    for package, folder in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            prefix = ["mlc"] if package == "mlc" else ["mlc", package]
            out.append((".".join(prefix + parts), path))
    return out


def imports_of(name: str, path: pathlib.Path) -> list[tuple[str, int]]:
    """Every mlc module `path` imports (absolute name, line), at any nesting level."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from mlc import errors` imports the module mlc.errors
            found += [
                (
                    f"{target}.{a.name}" if layer_of(f"{target}.{a.name}") == "leaf" else target,
                    node.lineno,
                )
                for a in node.names
            ]
    return [(m, line) for m, line in found if m == "mlc" or m.startswith("mlc.")]


def test_every_import_goes_down_the_layers() -> None:
    bad = []
    for name, path in modules():
        own = layer_of(name)
        assert own is not None, name
        for target, line in imports_of(name, path):
            dep = layer_of(target)
            if dep is None or dep == own or (name, target) in EXCEPTIONS:
                continue
            if target == "mlc" and own == "mlc":
                continue
            if dep not in ALLOWED[own] or (own == "leaf" and target not in LEAVES):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {own} imports {target} ({dep})")
    assert not bad, "imports against the layer direction:\n" + "\n".join(bad)


def test_the_checker_sees_function_level_and_relative_imports(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "x.py"
    src.write_text("def f():\n    from ..runtime import library\n    import mlc.tuner.tune\n")
    found = imports_of("mlc.passes.x", src)
    assert ("mlc.runtime", 2) in found and ("mlc.tuner.tune", 3) in found


@pytest.mark.parametrize("layer", ["dialects", "frontend", "passes", "runtime", "tuner"])
def test_a_layer_imported_alone_loads_nothing_above_it(layer: str) -> None:
    names = [n for n, _ in modules() if layer_of(n) == layer and not n.endswith("__main__")]
    code = (
        "import importlib, sys\n"
        f"for n in {names!r}:\n"
        "    importlib.import_module(n)\n"
        "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('mlc'))))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    loaded = {layer_of(m) for m in proc.stdout.split() if m != "mlc"}
    allowed = ALLOWED[layer] | {layer}
    if layer == "passes":
        allowed = allowed | {"tuner"}  # EXCEPTIONS: the record format only
    assert loaded <= allowed, f"{layer} loads {sorted(loaded - allowed)}"
