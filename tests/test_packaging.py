"""Packaging: every source package is installed, the console scripts exist, imports stay lazy."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _declared() -> tuple[set[str], dict[str, str]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = data["tool"]["setuptools"]
    return set(setuptools["packages"]), setuptools["package-dir"]


def test_every_package_directory_is_declared() -> None:
    packages, dirs = _declared()
    found = set()
    for pkg, folder in dirs.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([pkg, *rel.parts]) if rel.parts else pkg)
    assert found <= packages, f"add to [tool.setuptools] packages: {sorted(found - packages)}"


def test_python_version_is_pinned_to_the_mlir_wheels() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["requires-python"] == ">=3.11,<3.12"
    assert data["project"]["scripts"] == {"mlc-opt": "mlc.opt:main", "mlc": "mlc.driver:main"}


def test_import_mlc_is_cheap() -> None:
    """`import mlc` must not pull in the MLIR bindings, onnx or onnxruntime."""
    code = (
        "import sys, mlc; "
        "heavy = [m for m in ('mlir', 'onnx', 'onnxruntime', 'numpy') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


def test_facade_names_survive_submodule_imports() -> None:
    """`mlc.build` stays the function after its defining module was imported."""
    import mlc

    assert callable(mlc.build)
    import mlc.compiler  # noqa: F401

    assert callable(mlc.build) and callable(mlc.build)
    assert mlc.BuildOptions is mlc.compiler.BuildOptions


def test_non_editable_install_is_complete(tmp_path: pathlib.Path) -> None:
    """`pip install .` (not -e) carries every sub-package and data file: run mlc-opt from it."""
    target = tmp_path / "site"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert (target / "mlc" / "passes" / "upstream_passes.txt").is_file()
    assert (target / "mlc" / "runtime" / "mlc_model_runtime.c").is_file()  # the C API
    example = target / "mlc" / "examples" / "conv_relu.mlir"
    code = (
        "import sys, mlc; from mlc.opt import _main;"
        f"assert mlc.__file__.startswith({str(target)!r}), mlc.__file__;"
        f"sys.exit(_main([{str(example)!r}, '--pass-pipeline=builtin.module(mlc-default)', "
        "'-o', '/dev/null']))"
    )
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
