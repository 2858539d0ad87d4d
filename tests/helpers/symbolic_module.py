"""A hand-written module with a symbolic dim, following the compiled-module contract, for the
runtime tests of dynamic shapes (before the compiler emits such kernels itself):

    @mlc_main(x: f32[seq,4], k: f32[seq], y: f32[seq,4], z: f32[2*seq], params: i8[64], ws: i8[64])
      y[i, j] = x[i, j] * w[j] + k[i]        (w: a param at offset 0)
      z[2i] = k[i],  z[2i+1] = 2 * k[i]

The loops run to `memref.dim %x, 0`: the kernel reads the size from the input's descriptor.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnx

W = 4


def manifest_dict(
    *, bounds: tuple[int, int | None] | None = None, checks: tuple[str, ...] = ()
) -> dict:
    d: dict = {
        "entry": "mlc_main",
        "inputs": [
            {"name": "x", "shape": ["seq", W], "dtype": "float32"},
            {"name": "k", "shape": ["seq"], "dtype": "float32"},
        ],
        "outputs": [
            {"name": "y", "shape": ["seq", W], "dtype": "float32"},
            {"name": "z", "shape": ["2*seq"], "dtype": "float32"},
        ],
        "params": [{"name": "w", "shape": [W], "dtype": "float32", "offset": 0}],
        "params_size": 64,
        "workspace_size": 64,
    }
    if bounds is not None:
        d["symbols"] = {"seq": list(bounds)}
    if checks:
        d["shape_checks"] = list(checks)
    return d


def module_text(manifest: dict | None = None) -> str:
    attr = json.dumps(json.dumps(manifest or manifest_dict()))
    x, v = f"memref<?x{W}xf32>", "memref<?xf32>"
    return f"""
module attributes {{mlc.manifest = {attr}}} {{
  func.func @mlc_main(%x: {x}, %k: {v}, %y: {x}, %z: {v}, %params: memref<64xi8>,
                      %ws: memref<64xi8>) attributes {{llvm.emit_c_interface}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %cW = arith.constant {W} : index
    %two = arith.constant 2.0 : f32
    %w = memref.view %params[%c0][] : memref<64xi8> to memref<{W}xf32>
    %n = memref.dim %x, %c0 : {x}
    scf.for %i = %c0 to %n step %c1 {{
      %kv = memref.load %k[%i] : {v}
      scf.for %j = %c0 to %cW step %c1 {{
        %xv = memref.load %x[%i, %j] : {x}
        %wv = memref.load %w[%j] : memref<{W}xf32>
        %p = arith.mulf %xv, %wv : f32
        %q = arith.addf %p, %kv : f32
        memref.store %q, %y[%i, %j] : {x}
      }}
      %i2 = arith.muli %i, %c2 : index
      %i21 = arith.addi %i2, %c1 : index
      %k2 = arith.mulf %kv, %two : f32
      memref.store %kv, %z[%i2] : {v}
      memref.store %k2, %z[%i21] : {v}
    }}
    return
  }}
}}
"""


def make_params(seed: int = 0) -> dict[str, np.ndarray]:
    return {"w": np.random.default_rng(seed).standard_normal(W).astype(np.float32)}


def make_inputs(seq: int, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed + seq)
    return {
        "x": rng.standard_normal((seq, W)).astype(np.float32),
        "k": rng.standard_normal(seq).astype(np.float32),
    }


def reference(
    inputs: dict[str, np.ndarray], params: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    k = inputs["k"]
    return {
        "y": inputs["x"] * params["w"] + k[:, None],
        "z": np.stack([k, 2 * k], axis=1).reshape(-1),
    }


TABLE = np.arange(512, dtype=np.float32) * np.float32(0.01)


def table_reference(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return x + mask + TABLE[: x.shape[1]]


def table_model(dims: list[int | str] | None = None) -> onnx.ModelProto:
    """y = x + mask, both [batch, seq] (or `dims`), then the first 512 rows of a table added:
    Slice(table, 0, seq) broadcast against x is `min(512, seq)` unless seq <= 512 is known."""
    from onnx import TensorProto, helper  # not at the top: the runtime tests run without it

    dims = dims or ["batch", "seq"]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)
    mask = helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "seq"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    table = helper.make_tensor("table", TensorProto.FLOAT, [512], TABLE.tolist())
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], start=1, end=2),
        helper.make_node("Constant", [], ["zero"], value_ints=[0]),
        helper.make_node("Slice", ["table", "zero", "shape"], ["rows"]),
        helper.make_node("Add", ["x", "mask"], ["s"]),
        helper.make_node("Add", ["s", "rows"], ["y"]),
    ]
    g = helper.make_graph(nodes, "g", [x, mask], [y], initializer=[table])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
