"""`import_model_files`: what `mlc import` does, an .onnx file to a .mlir file plus an .npz."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, Sequence

import numpy as np

from mlc.files import check_input_file, check_output_file, write_text_atomic
from mlc.npz import write_npz

from .importer import from_onnx

_log = logging.getLogger(__name__)


def import_model_files(
    model_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    params_path: str | os.PathLike[str] | None = None,
    shape_dict: Mapping[str, Sequence[int]] | None = None,
    debuginfo: bool = False,
    symbolic_dims: bool = False,
) -> None:
    """Write the module text (with `loc(...)` only when `debuginfo`) and the parameters.

    The parameters go to `params_path`, by default `<output_path>.npz` (where `mlc compile
    model.mlir` looks for them); with output `-` the module goes to stdout and the parameters
    only where `params_path` says. Both paths are checked before importing, and each file is
    written under a temporary name and renamed once complete.
    """
    output = os.fspath(output_path)
    if params_path is None and output != "-":
        params_path = output + ".npz"
    check_input_file(model_path, "model")
    if output != "-":
        check_output_file(output, "output")
    if params_path is not None:
        check_output_file(params_path, "--params")
    module, params = from_onnx(model_path, shape_dict, symbolic_dims=symbolic_dims)
    text = module.operation.get_asm(enable_debug_info=debuginfo)
    if output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_text_atomic(output, text)
    if params_path is not None:
        save_params(params_path, params)
    elif params:
        _log.warning(
            "%d parameters were not written: with output '-', pass --params FILE", len(params)
        )


def save_params(path: str | os.PathLike[str], params: Mapping[str, np.ndarray]) -> None:
    """The parameters as an uncompressed .npz that `mlc compile --params` reads back."""
    write_npz(path, params)
