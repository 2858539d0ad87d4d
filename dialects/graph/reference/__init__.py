"""A numpy reference interpreter of the `graph` dialect (ONNX semantics), for tests and folding.

    evaluate("conv2d", [x, w], {"pads": (1, 1, 1, 1)})        # one op, defaults filled in
    run_module(module, params, [x])                            # the whole `@main`

Every op of `graph.OPS` has an implementation here (plus upstream `tensor.concat`); the test
suite checks each against onnxruntime single-node models or hand-written numpy.
"""

from __future__ import annotations

from . import (  # noqa: F401  (each registers its implementations)
    elementwise,
    indexing,
    math,
    nn,
    normalization,
    pool,
    quant,
    reduce,
    rnn,
    scan,
    tensor,
    unpool,
    vision,
    window,
    winograd,
)
from .core import IMPLS, UnsupportedDtypeError
from .dispatch import evaluate, has_reference
from .interp import run_module

__all__ = ["IMPLS", "UnsupportedDtypeError", "evaluate", "has_reference", "run_module"]
