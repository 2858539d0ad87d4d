"""JIT kernels applying one math op to f32 arrays (vector<8xf32> loop and scalar loop) for the
accuracy tests of mlc-math-approx, and the float64 references they are compared with."""

from __future__ import annotations

import math

import numpy as np

from mlc.testing import call, jit_kernels

_UNARY = """
func.func @vec(%a: memref<?xf32>, %b: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %c8 = arith.constant {lanes} : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c8 {{
    %x = vector.load %a[%i] : memref<?xf32>, vector<{lanes}xf32>
    %y = math.{op} %x {attrs}: vector<{lanes}xf32>
    vector.store %y, %b[%i] : memref<?xf32>, vector<{lanes}xf32>
  }}
  return
}}
func.func @scalar(%a: memref<?xf32>, %b: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {{
    %x = memref.load %a[%i] : memref<?xf32>
    %y = math.{op} %x {attrs}: f32
    memref.store %y, %b[%i] : memref<?xf32>
  }}
  return
}}
"""

_BINARY = """
func.func @vec(%a: memref<?xf32>, %c: memref<?xf32>, %b: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c8 {{
    %x = vector.load %a[%i] : memref<?xf32>, vector<8xf32>
    %z = vector.load %c[%i] : memref<?xf32>, vector<8xf32>
    %y = math.{op} %x, %z : vector<8xf32>
    vector.store %y, %b[%i] : memref<?xf32>, vector<8xf32>
  }}
  return
}}
func.func @scalar(%a: memref<?xf32>, %c: memref<?xf32>, %b: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {{
    %x = memref.load %a[%i] : memref<?xf32>
    %z = memref.load %c[%i] : memref<?xf32>
    %y = math.{op} %x, %z : f32
    memref.store %y, %b[%i] : memref<?xf32>
  }}
  return
}}
"""

_ENGINES: dict[tuple[str, str, int, str], object] = {}


def kernel(op: str, pipeline: str, lanes: int = 8, attrs: str = "") -> object:
    """The ExecutionEngine of `@vec` (vector<lanes x f32>; 8 for powf) and `@scalar` for
    `math.<op>` with the unary op's attribute dict `attrs` (cached: engines live forever)."""
    key = (op, pipeline, lanes, attrs)
    if key not in _ENGINES:
        if op == "powf":
            source = _BINARY.format(op=op)
        else:
            source = _UNARY.format(op=op, lanes=lanes, attrs=f"{attrs} " if attrs else "")
        _ENGINES[key] = jit_kernels(source, pipeline)[0]
    return _ENGINES[key]


def run(
    op: str,
    pipeline: str,
    *xs: np.ndarray,
    scalar: bool = False,
    lanes: int = 8,
    attrs: str = "",
) -> np.ndarray:
    """math.<op> on f32 arrays (length a multiple of `lanes`) through the JIT kernel."""
    ins = [np.ascontiguousarray(x, np.float32) for x in xs]
    assert scalar or len(ins[0]) % lanes == 0, "the vector loop has no remainder: pad the input"
    out = np.empty_like(ins[0])
    engine = kernel(op, pipeline, lanes, attrs)
    call(engine, "scalar" if scalar else "vec", *ins, out)  # type: ignore[arg-type]
    return out


_erf = np.frompyfunc(math.erf, 1, 1)

REFERENCE = {
    "exp": np.exp,
    "expm1": np.expm1,
    "log": np.log,
    "log1p": np.log1p,
    "tanh": np.tanh,
    "sin": np.sin,
    "cos": np.cos,
    "powf": np.power,
    "erf": lambda x: _erf(x).astype(np.float64),
}


def reference(op: str, *xs: np.ndarray) -> np.ndarray:
    """The exact result (float64 on the float32 inputs)."""
    with np.errstate(all="ignore"):
        return REFERENCE[op](*(x.astype(np.float64) for x in xs))


def ulp_error(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|got - exact| in units of the float32 spacing at exact (inf where one is non-finite and
    they differ, 0 where both are the same special value)."""
    with np.errstate(all="ignore"):
        rounded = exact.astype(np.float32)
        ulp = np.spacing(np.abs(rounded)).astype(np.float64)
        err = np.abs(got.astype(np.float64) - exact) / ulp
    same = (got == rounded) | (np.isnan(got) & np.isnan(exact))
    return np.where(same, 0.0, np.where(np.isfinite(err), err, np.inf))
