"""A catalogue of bad invocations of `mlc` and `mlc-opt`, each run as a user runs it (a new
process): none may exit 0, 70 (internal error: reserved for bugs in mlc) or >= 128 (a crash or
a signal), none may print a traceback, and each message names the file, input or flag at
fault (issue 11: many ordinary mistakes ended in exit 70 "internal error", some in crashes).
"""

from __future__ import annotations

import json
import pathlib
import tarfile

import numpy as np
import pytest

from helpers.cli import conv_model, run_cli
from mlc.driver import _main
from mlc.npz import npz_bytes

pytest.importorskip("onnx")

# (tool, arguments, text the message must contain); paths are relative to the work folder.
CATALOGUE: list[tuple[str, list[str], str]] = [
    # mlc compile: the model
    ("mlc", ["compile", "missing.onnx"], "missing.onnx"),
    ("mlc", ["compile", "garbage.onnx"], "garbage.onnx"),
    ("mlc", ["compile", "adir"], "adir"),
    ("mlc", ["compile"], "model"),
    ("mlc", ["compile", "m.onnx", "--no-such-flag"], "--no-such-flag"),
    # mlc compile: the output
    ("mlc", ["compile", "m.onnx", "-o", "m.zip"], "m.zip"),
    ("mlc", ["compile", "m.onnx", "-o", "missing/x.tar"], "missing"),
    ("mlc", ["compile", "m.onnx", "-o", "adir.tar"], "adir.tar"),
    ("mlc", ["compile", "m.onnx", "-o", "afile/x.tar"], "afile"),
    ("mlc", ["compile", "m.onnx", "-o", "afile/x.so"], "afile"),
    ("mlc", ["compile", "m.onnx", "-o", "/proc/x.o"], "/proc"),
    # mlc compile: input shapes
    ("mlc", ["compile", "m.onnx", "--input-shapes", "nosuch:[1,3,8,8]"], "nosuch"),
    ("mlc", ["compile", "m.onnx", "--input-shapes", "x:[1,3,8]"], "'x'"),
    ("mlc", ["compile", "m.onnx", "--input-shapes", "x:[a,b]"], "--input-shapes"),
    ("mlc", ["compile", "m.onnx", "--input-shapes", "x:[-1,3,8,8]"], "--input-shapes"),
    ("mlc", ["compile", "m.onnx", "--input-shapes", "x"], "--input-shapes"),
    ("mlc", ["compile", "m.onnx", "--input-shapes", "x:[3..1,3,8,8]"], "--input-shapes"),
    ("mlc", ["compile", "good.mlir", "--input-shapes", "a:[2]"], "--input-shapes"),
    # mlc compile: options
    ("mlc", ["compile", "m.onnx", "--target", "cuda"], "cuda"),
    ("mlc", ["compile", "m.onnx", "--threads", "0"], "--threads"),
    ("mlc", ["compile", "m.onnx", "--threads", "two"], "--threads"),
    ("mlc", ["compile", "m.onnx", "--tp-ops", "missing.py"], "--tp-ops missing.py: no such file"),
    (
        "mlc",
        ["compile", "m.onnx", "--threads", "2", "--pass-pipeline", "builtin.module(mlc-default)"],
        "--threads",
    ),
    ("mlc", ["compile", "m.onnx", "--pass-pipeline", "builtin.module(nonsense)"], "nonsense"),
    ("mlc", ["compile", "m.onnx", "--pass-pipeline", "builtin.module(graph-fuse)"], "graph-to-tp"),
    ("mlc", ["compile", "m.onnx", "--tuning-records", "missing.jsonl"], "missing.jsonl"),
    (
        "mlc",
        [
            "compile",
            "m.onnx",
            "--tuning-records",
            "text.txt",
            "--pass-pipeline",
            "builtin.module(mlc-default)",
        ],
        "--tuning-records",
    ),
    ("mlc", ["compile", "m.onnx", "--params", "m.mlir.npz"], "--params"),
    ("mlc", ["compile", "m.onnx", "--entry-name", "9lives"], "--entry-name"),
    ("mlc", ["compile", "m.onnx", "--save-temps", "/proc/temps"], "--save-temps"),
    ("mlc", ["compile", "m.onnx", "--save-temps", "afile"], "afile"),
    ("mlc", ["compile", "m.onnx", "--save-temps", "used"], "used"),
    # mlc compile: .mlir inputs
    ("mlc", ["compile", "noparams.mlir"], "--params"),
    ("mlc", ["compile", "bad.mlir"], "bad.mlir:"),
    ("mlc", ["compile", "m.mlir", "--params", "garbage.npz"], "garbage.npz"),
    ("mlc", ["compile", "m.mlir", "--params", "missing.npz"], "missing.npz"),
    # mlc import
    ("mlc", ["import", "missing.onnx", "-o", "x.mlir"], "missing.onnx"),
    ("mlc", ["import", "m.onnx"], "--output"),
    ("mlc", ["import", "m.onnx", "-o", "missing/x.mlir"], "missing"),
    ("mlc", ["import", "m.onnx", "-o", "adir"], "adir"),
    ("mlc", ["import", "m.onnx", "-o", "x.mlir", "--params", "afile/p.npz"], "afile"),
    ("mlc", ["import", "dyn.onnx", "-o", "x.mlir"], "--input-shapes"),
    # mlc run: the package
    ("mlc", ["run", "missing.tar"], "missing.tar"),
    ("mlc", ["run", "m.onnx"], "m.onnx"),
    ("mlc", ["run", "adir"], "adir"),
    ("mlc", ["run", "trunc.tar"], "trunc.tar"),
    ("mlc", ["run", "edited.tar"], "manifest.json"),
    ("mlc", ["run", "flipped.so"], "flipped.so"),
    ("mlc", ["run", "lonely.so"], "lonely.params.bin"),
    ("mlc", ["run", "garbage.so"], "garbage.so"),
    # mlc run: inputs and outputs
    ("mlc", ["run", "m.tar", "--inputs", "x.npy"], "x.npy"),
    ("mlc", ["run", "m.tar", "--inputs", "text.txt"], "text.txt"),
    ("mlc", ["run", "m.tar", "--inputs", "missing.npz"], "missing.npz"),
    ("mlc", ["run", "m.tar", "--inputs", "wrongname.npz"], "nope"),
    ("mlc", ["run", "m.tar", "--inputs", "wrongshape.npz"], "'x'"),
    ("mlc", ["run", "m.tar", "-o", "missing/out.npz"], "missing"),
    ("mlc", ["run", "m.tar", "-o", "adir"], "adir"),
    # mlc run: options
    ("mlc", ["run", "m.tar", "--print-top", "-3"], "--print-top"),
    ("mlc", ["run", "m.tar", "--labels", "text.txt"], "--labels"),
    ("mlc", ["run", "m.tar", "--print-top", "3", "--labels", "missing.txt"], "missing.txt"),
    ("mlc", ["run", "m.tar", "--repeat", "2"], "--repeat"),
    ("mlc", ["run", "m.tar", "--print-time", "--repeat", "0"], "--repeat"),
    ("mlc", ["run", "m.tar", "--verify-atol", "0.1"], "--verify-atol"),
    ("mlc", ["run", "m.tar", "--fill-mode", "sevens"], "--fill-mode"),
    ("mlc", ["run", "m.tar", "--profile"], "mlc compile --profile"),
    ("mlc", ["run", "m.tar", "--profile-runs", "3"], "--profile-runs"),
    ("mlc", ["run", "m.tar", "--fill-mode", "ones", "--seed", "1"], "--seed"),
    (
        "mlc",
        ["run", "m.tar", "--verify", "onnxruntime", "--verify-model", "missing.onnx"],
        "missing.onnx",
    ),
    ("mlc", ["run", "m.tar", "--json", "--inputs", "missing.npz"], "missing.npz"),
    # mlc itself
    ("mlc", [], "COMMAND"),
    ("mlc", ["frobnicate"], "frobnicate"),
    ("mlc", ["-q", "-v", "run", "m.tar"], "-v"),
    # mlc-opt
    ("mlc-opt", ["missing.mlir"], "missing.mlir"),
    ("mlc-opt", ["adir"], "adir"),
    ("mlc-opt", ["garbage.so"], "garbage.so"),
    ("mlc-opt", ["bad.mlir"], "bad.mlir:"),
    ("mlc-opt", ["good.mlir", "--pass-pipeline", "builtin.module(nonsense)"], "nonsense"),
    ("mlc-opt", ["good.mlir", "--pass-pipeline", "cse"], "builtin.module(cse)"),
    ("mlc-opt", ["good.mlir", "--pass-pipeline", "builtin.module(func.func(mlc-dce))"], "mlc-dce"),
    (
        "mlc-opt",
        ["good.mlir", "--pass-pipeline", "builtin.module(tp-to-loops{threads=x})"],
        "threads",
    ),
    ("mlc-opt", ["good.mlir", "--nonsense-pass"], "--nonsense-pass"),
    (
        "mlc-opt",
        ["good.mlir", "--cse", "--pass-pipeline", "builtin.module(cse)"],
        "--pass-pipeline",
    ),
    ("mlc-opt", ["good.mlir", "--canonicalize=bogus=1"], "bogus"),
    ("mlc-opt", ["good.mlir", "--lower-to-llvm"], "graph.exp"),
    ("mlc-opt", ["good.mlir", "--verify-each", "maybe"], "--verify-each"),
    ("mlc-opt", ["good.mlir", "-o", "missing/out.mlir"], "missing"),
    ("mlc-opt", ["good.mlir", "--params", "garbage.npz"], "garbage.npz"),
    ("mlc-opt", ["good.mlir", "--mlc-dce", "--params-out", "adir"], "adir"),
    ("mlc-opt", ["good.mlir", "--print-tp-script"], "no tp kernels"),
]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A folder of good and bad files a user may hand to the CLIs."""
    d = tmp_path_factory.mktemp("catalogue")
    conv_model(d / "m.onnx")
    _dynamic_model(d / "dyn.onnx")
    assert _main(["-q", "compile", str(d / "m.onnx"), "-o", str(d / "m.tar")]) == 0
    assert _main(["-q", "compile", str(d / "m.onnx"), "-o", str(d / "lonely.so")]) == 0
    (d / "lonely.params.bin").unlink()
    assert _main(["-q", "import", str(d / "m.onnx"), "-o", str(d / "m.mlir")]) == 0
    (d / "noparams.mlir").write_text((d / "m.mlir").read_text())
    so = bytearray((d / "lonely.so").read_bytes())
    so[len(so) // 2] ^= 0xFF
    (d / "flipped.so").write_bytes(so)
    (d / "garbage.onnx").write_bytes(b"\x00\xffnot a model")
    (d / "garbage.npz").write_bytes(b"PK\x03\x04 not really a zip")
    (d / "garbage.so").write_bytes(b"\x7fELF\x02\x01 and then nothing")
    (d / "text.txt").write_text("1 2 3\n")
    (d / "afile").write_text("a file, not a folder\n")
    (d / "adir").mkdir()
    (d / "adir.tar").mkdir()
    (d / "used").mkdir()
    (d / "used" / "mine.txt").write_text("someone else's file\n")
    np.save(d / "x.npy", np.zeros((1, 3, 8, 8), np.float32))
    (d / "wrongname.npz").write_bytes(npz_bytes({"nope": np.zeros(3, np.float32)}))
    (d / "wrongshape.npz").write_bytes(npz_bytes({"x": np.zeros((2, 3), np.float32)}))
    (d / "trunc.tar").write_bytes((d / "m.tar").read_bytes()[:4000])
    _edited_package(d / "m.tar", d / "edited.tar")
    (d / "bad.mlir").write_text(
        "func.func @main(%a: tensor<2xf32>) -> tensor<4xf32> {\n"
        '  %0 = "graph.exp"(%a) : (tensor<2xf32>) -> tensor<4xf32>\n'
        "  return %0 : tensor<4xf32>\n}\n"
    )
    (d / "good.mlir").write_text(
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        '  %0 = "graph.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n'
        "  return %0 : tensor<2xf32>\n}\n"
    )
    return d


def _dynamic_model(path: pathlib.Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))


def _edited_package(src: pathlib.Path, dest: pathlib.Path) -> None:
    import io

    with tarfile.open(src) as tar, tarfile.open(dest, "w") as out:
        for m in tar.getmembers():
            data = tar.extractfile(m).read()  # type: ignore[union-attr]
            if m.name == "manifest.json":
                doc = json.loads(data)
                doc["inputs"][0]["shape"][0] = 4
                data = json.dumps(doc).encode()
            info = tarfile.TarInfo(m.name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))


def test_the_catalogue_is_large_enough() -> None:
    assert len(CATALOGUE) >= 40
    assert sum(tool == "mlc-opt" for tool, _, _ in CATALOGUE) >= 10


@pytest.mark.parametrize(
    "tool, argv, names", CATALOGUE, ids=[" ".join([t, *a])[:70] for t, a, _ in CATALOGUE]
)
def test_a_bad_invocation_is_a_clear_error(
    work: pathlib.Path, tool: str, argv: list[str], names: str
) -> None:
    proc = run_cli(tool, *argv, cwd=work)
    shown = f"exit {proc.returncode}\nstdout: {proc.stdout[-1500:]}\nstderr: {proc.stderr[-1500:]}"
    assert proc.returncode not in (0, 70) and 0 < proc.returncode < 128, shown
    assert "Traceback" not in proc.stderr + proc.stdout, shown
    assert "internal error" not in proc.stderr, shown
    assert names in proc.stderr, shown
    assert proc.stderr.strip(), shown
