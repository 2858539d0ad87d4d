"""The machine code of quantized kernels for targets this host may lack: mlc-default with the
int8 dot product of a VNNI target, then LLVM's own code generator for that CPU (mlir-translate,
llc -mcpu=...), read as assembly and never run. QLinearConv and MatMulInteger (uint8 x int8)
must multiply with vpdpbusd on AVX512-VNNI (zmm) and AVX-VNNI (ymm, VEX), and with vpmaddwd and
no vpdpbusd on AVX2 (ymm) and AVX512BW (zmm) CPUs without VNNI (the fallback; tests/lowering/
test_emit_quant.py runs it where the host has it). The same models also run on this host,
compared with ONNX's reference and onnxruntime."""

from __future__ import annotations

import pathlib
import re
import subprocess

import numpy as np
import pytest

import mlc
from helpers.onnx_testing import import_model, node_model, run_compiled, run_ort
from mlc.runtime.toolchain import llvm_bin, mlir_root
from mlc.target import host_int8_dot_bits, host_int8_madd_bits

RNG = np.random.default_rng(0)


def _weights(shape: tuple[int, ...], bits: int) -> np.ndarray:
    bound = 1 << (bits - 1)
    return RNG.integers(-bound, bound - 1, shape, endpoint=True).astype(np.int8)


def _qlinear_conv(bits: int = 8) -> object:
    f = np.float32
    consts = {
        "sx": np.array(0.02, f),
        "zx": np.array(120, np.uint8),
        "w": _weights((16, 16, 3, 3), bits),
        "sw": np.linspace(0.001, 0.004, 16).astype(f),
        "zw": np.zeros(16, np.int8),
        "sy": np.array(0.9, f),
        "zy": np.array(5, np.uint8),
    }
    x = np.zeros((1, 16, 10, 10), np.uint8)
    order = ["x", "sx", "zx", "w", "sw", "zw", "sy", "zy"]
    return node_model("QLinearConv", {"x": x}, consts=consts, opset=13, order=order,
                      pads=[1, 1, 1, 1], out_dtypes=[np.uint8])  # fmt: skip


def _matmul_integer(bits: int = 8) -> object:
    a = np.zeros((16, 64), np.uint8)
    b = _weights((64, 32), bits)
    return node_model("MatMulInteger", {"a": a}, consts={"b": b}, opset=10,
                      out_dtypes=[np.int32])  # fmt: skip


MODELS = {"qlinear_conv": _qlinear_conv, "matmul_integer": _matmul_integer}


def assembly(model: object, options: str, cpu: str, tmp: pathlib.Path) -> str:
    """The model compiled by mlc-default{options} to LLVM IR, then to `cpu`'s assembly."""
    module, params = import_model(model)
    mlc.PassManager.parse(f"builtin.module(mlc-default{{{options}}})").run(module, params=params)
    (tmp / "k.mlir").write_text(str(module))
    run = lambda *cmd: subprocess.run(cmd, check=True, capture_output=True, text=True)  # noqa: E731
    run(str(mlir_root() / "bin" / "mlir-translate"), "--mlir-to-llvmir", str(tmp / "k.mlir"),
        "-o", str(tmp / "k.ll"))  # fmt: skip
    return run(str(llvm_bin() / "llc"), "-O3", f"-mcpu={cpu}", str(tmp / "k.ll"), "-o", "-").stdout


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize(
    "options,cpu,register",
    [
        ("vnni-bits=512 vector-bits=512", "icelake-server", "zmm"),
        ("vnni-bits=256 vector-bits=256", "alderlake", "ymm"),
    ],
    ids=["avx512vnni", "avxvnni"],
)
def test_vnni_targets_multiply_with_vpdpbusd(
    model: str, options: str, cpu: str, register: str, tmp_path: pathlib.Path
) -> None:
    asm = assembly(MODELS[model](), options, cpu, tmp_path)
    dots = re.findall(r"^\s*(?:\{vex\}\s*)?vpdpbusd\s+(.*)$", asm, re.MULTILINE)
    assert dots, "no vpdpbusd in the assembly"
    assert any(f"%{register}" in d for d in dots), dots[:4]
    assert "vpmaddwd" not in asm and "vpmulld" not in asm


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize(
    "options,cpu,register",
    [
        ("vnni-bits=0 madd-bits=256 vector-bits=256", "znver3", "ymm"),
        ("vnni-bits=0 madd-bits=512 vector-bits=512", "skylake-avx512", "zmm"),
    ],
    ids=["avx2", "avx512bw"],
)
def test_without_vnni_multiplies_with_vpmaddwd(
    model: str, options: str, cpu: str, register: str, tmp_path: pathlib.Path
) -> None:
    asm = assembly(MODELS[model](), options, cpu, tmp_path)
    assert "vpdpbusd" not in asm
    assert re.search(rf"^\s*vpmaddwd\s+.*%{register}", asm, re.MULTILINE), f"no {register} vpmaddwd"
    assert "vpmulld" not in asm


@pytest.mark.skipif(
    not (host_int8_dot_bits() or host_int8_madd_bits()), reason="no x86 int8 dot product here"
)
@pytest.mark.parametrize("model", sorted(MODELS))
def test_the_same_kernels_run_exactly_on_this_host(model: str) -> None:
    """This host's lowering (vpdpbusd or the vpmaddwd fallback) on inputs of every byte value:
    equal to ONNX's reference on 8-bit weights; with 7-bit weights (where onnxruntime's AVX2
    kernels do not saturate) within one output step of onnxruntime (its requantization rounds
    an f32 product, mlc's the exact f64 one)."""
    from onnx.reference import ReferenceEvaluator

    for bits in (8, 7):
        onnx_model = MODELS[model](bits)
        name = onnx_model.graph.input[0].name  # type: ignore[attr-defined]
        shape = [d.dim_value for d in onnx_model.graph.input[0].type.tensor_type.shape.dim]  # type: ignore[attr-defined]
        x = RNG.integers(0, 255, shape, endpoint=True).astype(np.uint8)
        x.reshape(-1)[:2] = [0, 255]
        got = run_compiled(onnx_model, {name: x})[0]
        if bits == 8:
            want = ReferenceEvaluator(onnx_model).run(None, {name: x})[0]
            np.testing.assert_array_equal(got, want)
        else:
            want = run_ort(onnx_model, {name: x})[0]
            assert got.dtype == want.dtype
            assert np.abs(got.astype(np.int64) - want).max() <= (
                1 if model == "qlinear_conv" else 0
            )
