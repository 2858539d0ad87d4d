"""Manifest parsing, validation and round trip (no compilation)."""

from __future__ import annotations

import copy
import json

import pytest

from helpers import contract_module as cm
from mlc.contract import Manifest, ManifestError, ParamSpec, SourceModel, TargetInfo, TensorSpec


def test_parses_the_contract_manifest() -> None:
    m = Manifest.from_json(json.dumps(cm.manifest_dict()))
    assert m.entry == "mlc_main"
    assert m.inputs == (TensorSpec("x", (4, 8), "float32"), TensorSpec("k", (4,), "float32"))
    assert m.params[1] == ParamSpec("b", (4,), "float32", 64)
    assert (m.params_size, m.workspace_size) == (128, 128)
    assert m.pipeline is None and m.target is None and m.runtime_libs == ()
    assert m.inputs[0].describe() == "float32[4,8]" and m.inputs[0].nbytes == 128
    assert m.signature() == "(x: float32[4,8], k: float32[4]) -> (y: float32[4,8], r: float32[4])"


def test_round_trip_with_build_info() -> None:
    m = Manifest.from_dict(cm.manifest_dict()).with_build_info(
        pipeline="builtin.module(lower-to-llvm{threads=2})",
        target=TargetInfo("x86_64-unknown-linux-gnu", "znver3", ("avx2", "fma")),
        mlc_version="0.1.0",
        mlir_version="22.1.8.4",
        runtime_libs=("mlir_async_runtime",),
        source=SourceModel("/models/m.onnx", "ab" * 32),
    )
    text = m.to_json()
    again = Manifest.from_json(text)
    assert again == m
    data = json.loads(text)
    assert data["schema"] == 1 and data["runtime_libs"] == ["mlir_async_runtime"]
    assert data["target"] == {
        "triple": "x86_64-unknown-linux-gnu",
        "cpu": "znver3",
        "features": ["avx2", "fma"],
    }
    assert data["source"] == {"path": "/models/m.onnx", "sha256": "ab" * 32}


def test_unknown_top_level_keys_survive_a_round_trip() -> None:
    data = cm.manifest_dict()
    data["future_field"] = {"a": 1}
    assert json.loads(Manifest.from_dict(data).to_json())["future_field"] == {"a": 1}


def _broken(edit) -> dict:
    data = copy.deepcopy(cm.manifest_dict())
    edit(data)
    return data


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("entry"), "lacks the required key 'entry'"),
        (lambda d: d.update(params_size="128"), r"params_size must be int, got str"),
        (lambda d: d.update(params_size=True), r"params_size must be int, got bool"),
        (
            lambda d: d["inputs"][0].update(dtype="float128"),
            r"inputs\[0\].dtype 'float128' is not supported",
        ),
        (
            lambda d: d["inputs"][1].update(shape=[-1]),
            r"inputs\[1\].shape must be a list of non-negative",
        ),
        (lambda d: d["outputs"][0].update(shape=["?", 8]), r"outputs\[0\].shape"),
        (
            lambda d: d["params"][1].update(offset=32),
            r"param 'b' offset 32 is not a multiple of 64",
        ),
        (lambda d: d["params"][1].update(offset=128), r"param 'b' .* ends beyond params_size 128"),
        (lambda d: d["params"][0].update(shape=[32]), r"params 'w' and 'b' overlap"),
        (lambda d: d["inputs"][1].update(name="x"), r"duplicate input names: x"),
        (lambda d: d.update(outputs=[]), r"lists no outputs"),
        (lambda d: d.update(entry="not a symbol"), r"is not a valid symbol name"),
        (lambda d: d.update(schema=99), r"schema 99 is newer"),
        (lambda d: d.update(inputs={"x": 1}), r"inputs must be list, got dict"),
        (lambda d: d.update(target={"cpu": "znver3"}), r"target lacks the required key 'triple'"),
    ],
)
def test_invalid_manifests_are_rejected_with_the_field_named(edit, message: str) -> None:
    with pytest.raises(ManifestError, match=message):
        Manifest.from_dict(_broken(edit))


def test_malformed_json_and_non_object() -> None:
    with pytest.raises(ManifestError, match="not valid JSON"):
        Manifest.from_json("{entry: ")
    with pytest.raises(ManifestError, match="must be a JSON object, got list"):
        Manifest.from_json("[1, 2]")
