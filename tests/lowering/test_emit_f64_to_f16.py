"""f64 -> f16 casts (ONNX node cases test_cast_DOUBLE_to_FLOAT16, test_castlike_DOUBLE_to_FLOAT16).

LLVM lowers `fptrunc double to half` on x86 to a call of `__truncdfhf2`, which the JIT cannot
resolve: the cast used to end in an AssertionError at the first run. The lowering now rounds to
f32 "to odd" first and then to f16, which is the correctly rounded result; and a symbol the JIT
cannot resolve is a ToolError naming it, raised by `CompiledLibrary.jit()`.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from mlir import ir

import mlc
from helpers.graph_exec import PIPELINE, SCHEDULED, check, lower_to_tp, run_graph
from helpers.runtime import lower_library
from mlc.dialects.graph import builders as g
from mlc.errors import ToolError


def double_rounding_traps() -> np.ndarray:
    """Values where rounding to f32 and then to f16 (both to nearest) gives the wrong f16: less
    than an f32 ulp above a halfway point whose tie goes down to the even neighbour, or below one
    whose tie goes up."""
    down = 1.0 + 2.0**-11  # between 1 (even) and 1 + 2**-10
    up = 1.0 + 3 * 2.0**-11  # between 1 + 2**-10 and 1 + 2**-9 (even)
    tiny = 2.0**-25  # between 0 (even) and the smallest f16 subnormal 2**-24
    values = [
        down + 2.0**-40,
        -(down + 2.0**-40),
        up - 2.0**-40,
        tiny + 2.0**-60,
        3 * tiny - 2.0**-70,
    ]
    return np.array(values, np.float64)


@pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["loops", "scheduled"])
def test_f64_to_f16_is_correctly_rounded(pipeline: str) -> None:
    rng = np.random.default_rng(0)
    special = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            np.nan,
            65504.0,
            65520.0,
            65519.99,
            1e300,
            -1e300,
            1e-300,
            -1e-300,
            6.0e-8,
            2.0**-24,
            5.96e-8,
            3.0e-5,
        ],
        np.float64,
    )
    random = rng.standard_normal(4096) * np.exp2(rng.integers(-26, 17, 4096))
    x = np.concatenate([double_rounding_traps(), special, random]).astype(np.float64)
    traps = double_rounding_traps()
    via_f32 = traps.astype(np.float32).astype(np.float16)
    assert (via_f32 != traps.astype(np.float16)).all(), (
        "the traps must defeat plain double rounding"
    )
    got, ref = run_graph(lambda v: g.cast(v, to="f16"), [x], pipeline=pipeline)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    check(got[0], ref[0], want, rtol=0, atol=0, what="f64 -> f16")
    np.testing.assert_array_equal(np.signbit(got[0]), np.signbit(want))  # zeros keep their sign
    np.testing.assert_array_equal(
        got[0].view(np.uint16)[~np.isnan(want)], want.view(np.uint16)[~np.isnan(want)]
    )


def test_f64_to_f16_goes_through_f32() -> None:
    text = lower_to_tp(lambda v: g.cast(v, to="f16"), [np.zeros(4, np.float64)])
    assert "arith.truncf %" in text and ": f64 to f32" in text and ": f32 to f16" in text
    assert ": f64 to f16" not in text


MANIFEST = {
    "entry": "mlc_main",
    "inputs": [{"name": "x", "shape": [4], "dtype": "float64"}],
    "outputs": [{"name": "y", "shape": [4], "dtype": "float16"}],
    "params": [],
    "params_size": 1,
    "workspace_size": 1,
}
DIRECT_TRUNCATION = """
func.func @mlc_main(%x: memref<4xf64>, %y: memref<4xf16>, %p: memref<1xi8>, %w: memref<1xi8>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf64>
    %h = arith.truncf %v : f64 to f16
    memref.store %h, %y[%i] : memref<4xf16>
  }
  return
}
"""


def test_a_symbol_the_jit_cannot_resolve_is_a_tool_error(capfd: pytest.CaptureFixture[str]) -> None:
    """A direct f64 -> f16 truncation makes LLVM call __truncdfhf2 (when the CPU has no such
    instruction): jit() must raise a ToolError naming it, not leave an entry that asserts."""
    with mlc.Context():
        module = ir.Module.parse(DIRECT_TRUNCATION)
        module.operation.attributes["mlc.manifest"] = ir.StringAttr.get(json.dumps(MANIFEST))
        lib = lower_library(module, {})
        try:
            lib.jit()
        except ToolError as e:
            assert "JIT compilation failed" in str(e) and "__truncdfhf2" in str(e)
            assert "__truncdfhf2" in capfd.readouterr().err  # LLVM's own message is still shown
            return
    pytest.skip("this CPU truncates f64 to f16 without a library call")
