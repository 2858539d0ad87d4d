"""mlc's frontends: ONNX models into the graph dialect.

`onnx` is imported only when a function here is called; without it they raise
`MissingDependencyError` with the pip command.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mlc.errors import MissingDependencyError

if TYPE_CHECKING:
    import numpy as np
    from mlir import ir


def _require_onnx() -> None:
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise MissingDependencyError("onnx", extra="onnx") from None


def from_onnx(
    model: str | os.PathLike[str] | Any,
    shape_dict: Mapping[str, Sequence[int | str]] | None = None,
    dtype: str = "float32",
    *,
    context: ir.Context | None = None,
    symbolic_dims: bool = False,
) -> tuple[ir.Module, dict[str, np.ndarray]]:
    """Import an ONNX model (path or `onnx.ModelProto`) into the graph dialect.

    Returns the module and its parameters (name -> array); see
    `mlc.frontend.onnx.importer.from_onnx` for the arguments and errors.
    """
    _require_onnx()
    from mlc.frontend.onnx.importer import from_onnx as _from_onnx

    return _from_onnx(model, shape_dict, dtype, context=context, symbolic_dims=symbolic_dims)


def import_model_files(
    model_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    params_path: str | os.PathLike[str] | None = None,
    shape_dict: Mapping[str, Sequence[int]] | None = None,
    debuginfo: bool = False,
    symbolic_dims: bool = False,
) -> None:
    """Import `model_path` and write the module to `output_path` (`-`: stdout) and the
    parameters to `params_path` (default `<output_path>.npz`; none for stdout); with
    `symbolic_dims`, dynamic input dims stay symbolic (see `from_onnx`)."""
    _require_onnx()
    from mlc.frontend.onnx.files import import_model_files as _import_model_files

    _import_model_files(model_path, output_path, params_path, shape_dict, debuginfo, symbolic_dims)


def node_op_types(model: str | os.PathLike[str]) -> dict[str, str]:
    """Op type of each node of the model's main graph, by the node name the imported ops'
    locations carry (the model's, or the `<OpType>_<index>` made for an unnamed node)."""
    _require_onnx()
    from mlc.frontend.onnx.loader import load_model
    from mlc.frontend.onnx.plan import node_op_types as _node_op_types

    return _node_op_types(load_model(model).graph)


__all__ = ["from_onnx", "import_model_files", "node_op_types"]
