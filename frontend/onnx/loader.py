"""Reading an ONNX model: a path or a `ModelProto`, checked enough to give clear errors.

Every problem a user can cause here (missing file, not an ONNX file, missing external data,
an opset newer than the installed onnx) is a `ModelLoadError` naming the file and the fix.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from mlc.errors import ModelLoadError

if TYPE_CHECKING:
    import onnx

DEFAULT_DOMAINS = ("", "ai.onnx")


def load_model(model: str | os.PathLike[str] | onnx.ModelProto) -> onnx.ModelProto:
    """The model as a `ModelProto` with its external data loaded and local functions inlined."""
    import onnx

    if isinstance(model, onnx.ModelProto):
        proto, where = model, "the model"
        _check_external_data_loaded(proto)
    else:
        where = f"'{os.fspath(model)}'"
        proto = _read(os.fspath(model), where)
    _check_structure(proto, where)
    if proto.functions:
        import onnx.inliner

        proto = onnx.inliner.inline_local_functions(proto)
    return proto


def _read(path: str, where: str) -> onnx.ModelProto:
    import onnx
    from google.protobuf.message import DecodeError

    if not os.path.isfile(path):
        raise ModelLoadError(f"cannot read {where}: no such file")
    try:
        return onnx.load(path, load_external_data=True)
    except DecodeError as e:
        raise ModelLoadError(
            f"{where} is not an ONNX model (the protobuf does not parse: {e})"
        ) from None
    except (onnx.checker.ValidationError, OSError) as e:
        raise ModelLoadError(
            f"cannot load the external data of {where}: {e}. Keep the data files "
            "at the locations the model names, relative to the model file"
        ) from None


def _check_external_data_loaded(proto: onnx.ModelProto) -> None:
    import onnx

    for init in proto.graph.initializer:
        if init.data_location == onnx.TensorProto.EXTERNAL:
            location = next((e.value for e in init.external_data if e.key == "location"), "?")
            raise ModelLoadError(
                f"initializer '{init.name}' keeps its data in the external file '{location}', "
                "which is not loaded; pass the model's path instead, or load it with "
                "onnx.load(path)"
            )


def _check_structure(proto: onnx.ModelProto, where: str) -> None:
    import onnx

    if proto.ir_version <= 0 or not proto.HasField("graph") or not proto.graph.output:
        raise ModelLoadError(f"{where} is not an ONNX model (no IR version or no graph outputs)")
    versions = opset_versions(proto)
    if "" not in versions:
        # A model of ai.onnx.ml nodes alone may leave the default operator set out.
        if any(node.domain in DEFAULT_DOMAINS for node in proto.graph.node):
            raise ModelLoadError(
                f"{where} does not import the default ONNX operator set "
                "(opset_import has no entry for domain ''); re-export the model"
            )
        return
    newest = onnx.defs.onnx_opset_version()
    if versions[""] > newest:
        raise ModelLoadError(
            f"{where} uses opset {versions['']}, newer than the installed onnx "
            f"{onnx.__version__} knows (up to {newest}); upgrade onnx"
        )


def opset_versions(proto: onnx.ModelProto) -> dict[str, int]:
    """Domain -> opset version, with `ai.onnx` folded into the default domain ``""``."""
    out: dict[str, int] = {}
    for entry in proto.opset_import:
        domain = "" if entry.domain in DEFAULT_DOMAINS else entry.domain
        out[domain] = int(entry.version)
    return out
