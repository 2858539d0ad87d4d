"""`mlc.tp`: write tensor programs by hand (the tp script DSL), schedule them, run them.

    from mlc import tp as T

    @T.script
    def add_one(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in T.grid(8):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + 1.0

    kernel = T.build(add_one)       # JIT: call it on numpy arrays, outputs written in place
    kernel(a, b)

The DSL names below (`grid`, `block`, `axis`, `init`, `exp` ...) exist so that scripts import
cleanly and editors know them; a script's body is parsed from its source, never run, so calling
them outside `@T.script` raises.
"""

from __future__ import annotations

import ctypes
import functools
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from mlc.dialects.tp import Schedule as ScheduleKnobs
from mlc.errors import MlcError, RuntimeInputError
from mlc.frontend.tp_script import (
    PrimFunc,
    PrintError,
    ScriptError,
    parse_script,
    script,
    to_script,
)
from mlc.frontend.tp_script.graph_call import CallError, call_tp
from mlc.frontend.tp_script.library_call import call_library
from mlc.frontend.tp_script.onnx_ops import (
    register_onnx_library_op,
    register_onnx_op,
    unregister_onnx_op,
)
from mlc.frontend.tp_script.schedule import Schedule, ScheduleError

__all__ = [
    "Buffer",
    "Kernel",
    "PrimFunc",
    "PrintError",
    "Schedule",
    "ScheduleError",
    "ScheduleKnobs",
    "ScriptError",
    "CallError",
    "build",
    "call_library",
    "call_tp",
    "register_onnx_library_op",
    "register_onnx_op",
    "run_ops_file",
    "unregister_onnx_op",
    "parse_script",
    "script",
    "to_script",
]

LOWER = (
    "builtin.module(tp-verify,tp-to-loops{threads=%d},func.func(canonicalize,cse),"
    "lower-to-llvm{threads=%d})"
)


class Buffer:
    """A buffer parameter's type: `A: T.Buffer((128, 128), "float32")` (or `T.Buffer[...]`)."""

    def __init__(self, shape: Any, dtype: str = "float32") -> None:
        self.shape = shape
        self.dtype = dtype

    def __class_getitem__(cls, item: Any) -> Buffer:
        return cls(*item) if isinstance(item, tuple) else cls(item)


def _dsl_only(name: str) -> Any:
    def stub(*args: Any, **kwargs: Any) -> Any:
        raise MlcError(
            f"T.{name} is tp script: it only means something inside an @T.script "
            "function, which is parsed, not run"
        )

    stub.__name__ = name
    return stub


class _Axis:
    remap = staticmethod(_dsl_only("axis.remap"))


axis = _Axis()
_DSL_NAMES = frozenset(
    "grid serial block init alloc_buffer view subview scatter schedule cast select padded dot4 "
    "op max min fastmax "
    "maxui minui abs pow exp exp2 expm1 log log2 log10 log1p sqrt rsqrt tanh erf sin cos tan "
    "atan floor ceil round roundeven trunc float16 bfloat16 float32 float64 int8 int16 int32 "
    "int64 bool index".split()
)


def __getattr__(name: str) -> Any:
    """`T.grid`, `T.max` ...: DSL names (module attributes only, so they never shadow the
    builtins `max`, `min`, `abs` ... inside this module)."""
    if name in _DSL_NAMES:
        return _dsl_only(name)
    raise AttributeError(f"module 'mlc.tp' has no attribute {name!r}")


class Kernel:
    """A JIT-compiled tp kernel: call it with one C-contiguous numpy array per buffer parameter
    (destination-passing: the outputs are arrays it writes)."""

    def __init__(self, func: PrimFunc | Schedule, threads: int = 1) -> None:
        from mlir import ir
        from mlir.execution_engine import ExecutionEngine

        from mlc.passes.pass_manager import PassManager

        prim = func.func if isinstance(func, Schedule) else func
        self.name = prim.name
        module = ir.Module.parse(str(prim.module), prim.context)
        fn = module.body.operations[0].operation
        with prim.context:
            fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            args = fn.regions[0].blocks[0].arguments
            self.params = [
                (list(ir.MemRefType(a.type).shape), ir.MemRefType(a.type).element_type)
                for a in args
            ]
        if threads < 1:
            raise MlcError(f"threads must be >= 1, got {threads}")
        PassManager.parse(LOWER % (threads, threads)).run(module)
        libs = []
        if threads > 1:  # parallel loops call OpenMP: load it where the JIT's lookups see it
            from mlc.runtime.linker import installed_runtime_lib
            from mlc.runtime.toolchain import OPENMP_LIB

            path = str(installed_runtime_lib(OPENMP_LIB))
            ctypes.CDLL(path, mode=os.RTLD_GLOBAL)
            libs.append(path)
        self._engine = ExecutionEngine(module, opt_level=3, shared_libs=libs)
        address = self._engine.raw_lookup("_mlir_ciface_" + self.name)
        self._packed = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        self._module = module

    def __call__(self, *arrays: np.ndarray) -> None:
        self.bind(*arrays)()

    def bind(self, *arrays: np.ndarray) -> Callable[[], None]:
        """A zero-argument call of the kernel on these arrays (one foreign call per run: for
        timing loops). The arrays must stay alive and in place while it is used."""
        if len(arrays) != len(self.params):
            raise RuntimeInputError(
                f"kernel '{self.name}' takes {len(self.params)} arrays, got {len(arrays)}"
            )
        for i, (a, (shape, elem)) in enumerate(zip(arrays, self.params)):
            want = np.dtype(_numpy_dtype(str(elem)))
            dynamic = [d < 0 for d in shape]
            if (
                not isinstance(a, np.ndarray)
                or a.dtype != want
                or a.ndim != len(shape)
                or any(s != d and not dyn for s, d, dyn in zip(a.shape, shape, dynamic))
                or not a.flags.c_contiguous
            ):
                got = f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else type(a)
                raise RuntimeInputError(
                    f"kernel '{self.name}' argument {i}: expected a C-contiguous "
                    f"{want}{shape} array, got {got}"
                )
        descs = [_descriptor(a) for a in arrays]
        cells = [ctypes.c_void_p(ctypes.addressof(d)) for d in descs]
        packed = (ctypes.c_void_p * len(cells))(*[ctypes.addressof(c) for c in cells])
        fn, keep = self._packed, (arrays, descs, cells, packed)

        def call() -> None:
            fn(packed)
            assert keep  # the closure keeps the arrays and descriptors alive

        return call


@functools.cache
def _descriptor_type(rank: int) -> type[ctypes.Structure]:
    class Descriptor(ctypes.Structure):
        _fields_ = [
            ("allocated", ctypes.c_void_p),
            ("aligned", ctypes.c_void_p),
            ("offset", ctypes.c_longlong),
            ("shape", ctypes.c_longlong * max(rank, 1)),
            ("strides", ctypes.c_longlong * max(rank, 1)),
        ]

    return Descriptor


def _descriptor(a: np.ndarray) -> ctypes.Structure:
    """The memref descriptor of a C-contiguous array (MLIR's C interface layout)."""
    d = _descriptor_type(a.ndim)()
    d.allocated = d.aligned = a.ctypes.data
    d.offset = 0
    for i, (n, stride) in enumerate(zip(a.shape, a.strides)):
        d.shape[i] = n
        d.strides[i] = stride // a.itemsize
    return d


def _numpy_dtype(mlir: str) -> str:
    return {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8", "i16": "int16",
            "i32": "int32", "i64": "int64"}.get(mlir, mlir)  # fmt: skip


def run_ops_file(path: str | os.PathLike[str]) -> None:
    """Run a Python file that registers kernels for ONNX ops (`mlc compile --tp-ops FILE`); its
    errors become MlcErrors naming the file and line."""
    import runpy
    import traceback

    shown = os.fspath(path)
    if not os.path.isfile(shown):
        raise MlcError(f"--tp-ops {shown}: no such file")
    try:
        runpy.run_path(shown, run_name="__mlc_tp_ops__")
    except Exception as e:  # the user's code: report where in their file it failed
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == shown]
        where = f"{shown}:{frames[-1].lineno}" if frames else shown
        what = "" if isinstance(e, MlcError) else f"{type(e).__name__}: "
        raise MlcError(f"--tp-ops {where}: {what}{e}") from None


def build(func: PrimFunc | Schedule, *, threads: int = 1) -> Kernel:
    """JIT-compile a tp script function (or a Schedule's current state) for this CPU; loops the
    schedule marks parallel run on `threads` OpenMP threads (1: sequentially)."""
    return Kernel(func, threads)
