"""Invariants of the converter table: real versions, no gaps, opsets 9-21, graph ops covered."""

from __future__ import annotations

import collections
import pathlib

import onnx
import pytest

from mlc.dialects.graph.spec import OPS
from mlc.errors import UnsupportedOpsetError
from mlc.frontend.onnx.converters.registry import (
    NotImplementedVersion,
    load_converters,
    lookup,
    registered_ops,
    supported_ops_markdown,
)

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _onnx_versions() -> dict[tuple[str, str], list[int]]:
    out: dict[tuple[str, str], list[int]] = collections.defaultdict(list)
    for schema in onnx.defs.get_all_schemas_with_history():
        out[schema.domain, schema.name].append(schema.since_version)
    return {k: sorted(v) for k, v in out.items()}


def test_every_registered_version_is_a_real_onnx_version_without_gaps() -> None:
    history = _onnx_versions()
    for domain, op_type, versions in registered_ops():
        if domain == "com.microsoft":  # onnxruntime's contrib ops, not in onnx's schemas
            assert versions == (1,), (op_type, versions)
            continue
        real = history[domain, op_type]
        assert set(versions) <= set(real), f"{op_type}: {versions} are not all ONNX versions {real}"
        between = [v for v in real if versions[0] <= v <= versions[-1]]
        assert list(versions) == between, f"{op_type}: registered {versions}, ONNX has {between}"


@pytest.mark.parametrize("opset", range(9, 22))
def test_opsets_9_to_21_dispatch_every_op_that_exists_there(opset: int) -> None:
    for domain, op_type, versions in registered_ops():
        if domain != "":  # other domains number their opsets separately
            continue
        if versions[0] > opset:
            with pytest.raises(UnsupportedOpsetError):
                lookup("", op_type, opset)
            continue
        entry = lookup("", op_type, opset)
        assert entry is not None and entry.since == max(v for v in versions if v <= opset)


def test_below_minimum_is_an_unsupported_opset_error() -> None:
    with pytest.raises(
        UnsupportedOpsetError,
        match="Softmax: opset 0 is not supported; the earliest implemented version is 1",
    ) as info:
        lookup("", "Softmax", 0)
    assert info.value.min_supported == 1
    assert lookup("", "NoSuchOp", 13) is None


def test_an_unreviewed_newer_version_is_not_dispatched_to_an_older_converter() -> None:
    """Gelu has one version (20); if the model's opset selects a newer ONNX Gelu, it is refused."""
    newest = onnx.defs.onnx_opset_version()
    if onnx.defs.get_schema("Gelu", newest).since_version == 20:
        entry = lookup("", "Gelu", newest)
        assert entry is not None and entry.since == 20
    else:
        with pytest.raises(NotImplementedVersion):
            lookup("", "Gelu", newest)


def test_every_graph_op_with_an_onnx_counterpart_has_a_converter() -> None:
    table = load_converters()
    # Folded at import, never converted: Constant and initializers become graph.constant.
    not_converted = {"Constant / initializer"}
    missing = [
        spec.onnx
        for spec in OPS.values()
        if spec.onnx and spec.onnx not in not_converted and ("", spec.onnx) not in table
    ]
    assert missing == []


def test_supported_ops_table_is_current() -> None:
    """frontend/onnx/supported_ops.md is generated from the registry (see its header)."""
    assert (ROOT / "frontend" / "onnx" / "supported_ops.md").read_text() == supported_ops_markdown()
