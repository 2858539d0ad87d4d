"""Check a compiled module against its source model run by a reference engine (onnxruntime).

The package records the source model's absolute path and sha256 (`Manifest.source`); the
reference is run on exactly the inputs the compiled module got, and every output is compared:
max absolute error, max relative error (|a - b| / max(|b|, tiny)), and pass/fail with
`np.allclose` semantics (|a - b| <= atol + rtol * |b|). onnxruntime is imported here only.
"""

from __future__ import annotations

import pathlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from mlc.contract import Manifest
from mlc.errors import MissingDependencyError, MlcError, ModelLoadError
from mlc.runtime.target import file_sha256


class VerificationSetupError(MlcError):
    """The reference model cannot be used: not recorded, missing, changed, or incompatible."""


@dataclass(frozen=True)
class OutputComparison:
    name: str
    max_abs: float
    max_rel: float
    ok: bool


@dataclass(frozen=True)
class VerifyReport:
    backend: str
    model: str
    atol: float
    rtol: float
    outputs: tuple[OutputComparison, ...]

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outputs)

    def to_dict(self) -> dict[str, object]:
        return {
            "backend": self.backend,
            "model": self.model,
            "atol": self.atol,
            "rtol": self.rtol,
            "ok": self.ok,
            "outputs": {
                o.name: {"max_abs": o.max_abs, "max_rel": o.max_rel, "ok": o.ok}
                for o in self.outputs
            },
        }


def reference_model(manifest: Manifest, override: pathlib.Path | None) -> pathlib.Path:
    """The model file to run: `override` or the recorded path, checked against the sha256."""
    if override is not None:
        path = override
    elif manifest.source is not None:
        path = pathlib.Path(manifest.source.path)
    else:
        raise VerificationSetupError(
            "the package records no source model; pass --verify-model PATH"
        )
    if not path.is_file():
        hint = (
            ""
            if override is not None
            else " (recorded when the package was built); pass --verify-model PATH"
        )
        raise VerificationSetupError(f"source model {path} not found{hint}")
    if manifest.source is not None:
        digest = file_sha256(path)
        if digest != manifest.source.sha256:
            raise VerificationSetupError(
                f"source model {path} differs from the one the package was built from "
                f"(sha256 {digest[:12]}... != recorded {manifest.source.sha256[:12]}...)"
            )
    return path


def run_onnxruntime(model: pathlib.Path, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run `model` on CPU with onnxruntime; outputs by their ONNX names, in graph order."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise MissingDependencyError("onnxruntime", extra="test") from None
    try:
        session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - onnxruntime raises its own exception types
        raise ModelLoadError(f"onnxruntime cannot load {model}: {e}") from None
    names = [i.name for i in session.get_inputs()]
    missing = [n for n in names if n not in inputs]
    if missing:
        raise VerificationSetupError(
            f"the reference model takes inputs {', '.join(missing)} that "
            f"the compiled module does not ({', '.join(inputs)})"
        )
    results = session.run(None, {n: inputs[n] for n in names})
    return {o.name: np.asarray(r) for o, r in zip(session.get_outputs(), results)}


def compare(
    manifest: Manifest,
    got: Mapping[str, np.ndarray],
    ref: Mapping[str, np.ndarray],
    atol: float,
    rtol: float,
) -> tuple[OutputComparison, ...]:
    """Match outputs by name when all names agree, else by position; compare each pair."""
    names = [s.name for s in manifest.outputs]
    if set(ref) >= set(names):
        pairs = [(n, ref[n]) for n in names]
    elif len(ref) == len(names):
        pairs = list(zip(names, ref.values()))
    else:
        raise VerificationSetupError(
            f"the reference model has outputs {', '.join(ref)}; the "
            f"compiled module has {', '.join(names)}"
        )
    out = []
    for name, expected in pairs:
        actual = got[name]
        if actual.shape != expected.shape:
            raise VerificationSetupError(
                f"output '{name}': compiled shape {list(actual.shape)} "
                f"!= reference shape {list(expected.shape)}"
            )
        a, b = actual.astype(np.float64), expected.astype(np.float64)
        diff = np.abs(a - b)
        rel = diff / np.maximum(np.abs(b), np.finfo(np.float64).tiny)
        out.append(
            OutputComparison(
                name,
                float(diff.max(initial=0.0)),
                float(rel.max(initial=0.0)),
                bool(np.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True)),
            )
        )
    return tuple(out)


def verify_onnxruntime(
    manifest: Manifest,
    inputs: Mapping[str, np.ndarray],
    outputs: Mapping[str, np.ndarray],
    *,
    model: pathlib.Path | None,
    atol: float,
    rtol: float,
) -> VerifyReport:
    path = reference_model(manifest, model)
    ref = run_onnxruntime(path, inputs)
    return VerifyReport(
        "onnxruntime", str(path), atol, rtol, compare(manifest, outputs, ref, atol, rtol)
    )
