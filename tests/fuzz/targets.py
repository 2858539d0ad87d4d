"""The fuzz targets: for each, a seed corpus of valid inputs, a mutator, and the CLI
invocation a mutant is fed to. Targets mutate what mlc itself writes (models it imports, the lit
suite's `.mlir` files and pipelines, packages and libraries `mlc compile` wrote, `.npz` inputs),
member by member or byte by byte, whatever the format of those files is.
"""

from __future__ import annotations

import io
import pathlib
import random
import re
import shlex
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field

import numpy as np

from .mutate import INTERESTING_INTS, mutate_bytes, mutate_mlir, mutate_pipeline

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAX_SEED_BYTES = 12_000
"""Larger lit files make slow mutants without reaching new code."""


@dataclass
class Target:
    """One fuzz target; `mutant` writes the i-th mutant into `cwd` and returns the invocation
    (tool, argv) to run there."""

    name: str
    suffix: str
    seeds: list[bytes] = field(default_factory=list)
    extra: dict[str, object] = field(default_factory=dict)

    def prepare(self, work: pathlib.Path) -> None:
        raise NotImplementedError

    def mutant(self, rng: random.Random, cwd: pathlib.Path) -> tuple[str, list[str], bytes]:
        raise NotImplementedError


# -- ONNX import ------------------------------------------------------------------------------
class OnnxImport(Target):
    def prepare(self, work: pathlib.Path) -> None:
        import onnx

        from helpers.cli import classifier_model, conv_model
        from helpers.onnx_models import mobilenet_like
        from helpers.tuner_models import conv_net, dense_net

        conv_model(work / "conv.onnx")
        classifier_model(work / "classifier.onnx")
        for name, model in [("mobile", mobilenet_like()), ("cn", conv_net()), ("dn", dense_net())]:
            onnx.save(model, str(work / f"{name}.onnx"))
        self.seeds = [p.read_bytes() for p in sorted(work.glob("*.onnx"))]

    def mutant(self, rng: random.Random, cwd: pathlib.Path) -> tuple[str, list[str], bytes]:
        from .onnx_mutate import mutate_model

        data = mutate_model(rng, rng.choice(self.seeds))
        (cwd / "m.onnx").write_bytes(data)
        return "mlc", ["import", "m.onnx", "-o", "out.mlir"], data


# -- mlc-opt: .mlir files and pipelines from the lit suite -----------------------------------
_RUN = re.compile(r"^// RUN: mlc-opt %s (.*?)(?:\|.*)?$", re.M)


def lit_cases() -> list[tuple[str, list[str]]]:
    """(file text, mlc-opt arguments) of every `mlc-opt %s` RUN line of the lit suite that
    needs no temporary file."""
    cases = []
    for path in sorted((ROOT / "lit_tests").rglob("*.mlir")):
        text = path.read_text()
        if len(text) > MAX_SEED_BYTES:
            continue
        for args in _RUN.findall(text):
            if "%t" in args or "--verify-diagnostics" in args:
                continue
            argv = [a for a in shlex.split(args) if a not in ("2>&1",)]
            if any(a.startswith(("-o", ">")) for a in argv):
                continue
            cases.append((text, argv))
    return cases


class OptMlir(Target):
    def prepare(self, work: pathlib.Path) -> None:
        self.extra["cases"] = lit_cases()

    def mutant(self, rng: random.Random, cwd: pathlib.Path) -> tuple[str, list[str], bytes]:
        text, argv = rng.choice(self.extra["cases"])  # type: ignore[arg-type]
        data = mutate_mlir(rng, text).encode()
        (cwd / "in.mlir").write_bytes(data)
        return "mlc-opt", ["in.mlir", *argv, "-o", "out.mlir"], data


class OptPipeline(Target):
    def prepare(self, work: pathlib.Path) -> None:
        from mlc.passes.registry import ALL_PASSES

        cases = [c for c in lit_cases() if any("pass-pipeline" in a for a in c[1])]
        self.extra["cases"] = cases
        self.extra["names"] = sorted(ALL_PASSES) + [
            "canonicalize",
            "cse",
            "func.func",
            "mlc-default",
        ]

    def mutant(self, rng: random.Random, cwd: pathlib.Path) -> tuple[str, list[str], bytes]:
        text, argv = rng.choice(self.extra["cases"])  # type: ignore[arg-type]
        (cwd / "in.mlir").write_text(text)
        out = []
        for a in argv:
            if a.startswith("--pass-pipeline="):
                pipeline = a.split("=", 1)[1]
                a = "--pass-pipeline=" + mutate_pipeline(rng, pipeline, self.extra["names"])  # type: ignore[arg-type]
            out.append(a)
        data = "\n".join(out).encode()
        return "mlc-opt", ["in.mlir", *out, "-o", "out.mlir"], data


# -- compiled artifacts: packages, bare libraries, input files --------------------------------
def _compile(work: pathlib.Path, output: str) -> pathlib.Path:
    from helpers.cli import conv_model

    model = conv_model(work / "conv.onnx")
    mlc = pathlib.Path(sys.executable).parent / "mlc"
    subprocess.run([str(mlc), "-q", "compile", str(model), "-o", str(work / output)], check=True)
    return work / output


def mutate_tar(rng: random.Random, data: bytes) -> bytes:
    """Half the time bytes; else member by member: a member's content mutated, a member
    dropped, repeated, renamed, or turned into a link, directory, FIFO or device entry."""
    if rng.random() < 0.3:
        return mutate_bytes(rng, data)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else b"") for m in tar]  # type: ignore[union-attr]
    i = rng.randrange(len(members))
    info, content = members[i]
    info = tarfile.TarInfo(info.name)
    info.size, info.mode = len(content), 0o644
    move = rng.randrange(7)
    if move <= 2:
        content = mutate_member(rng, members[i][0].name, content)
        info.size = len(content)
    elif move == 3:
        del members[i]
        info = None
    elif move == 4:
        members.append((members[i][0], members[i][1]))
    elif move == 5:
        info.name = rng.choice(
            ("../escape.so", "/tmp/abs.so", "sub/model.so", "", "./" + info.name, info.name + "x")
        )
    else:
        info.type = rng.choice(
            (tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.DIRTYPE, tarfile.FIFOTYPE, tarfile.CHRTYPE)
        )
        info.linkname, info.size, content = "/etc/passwd", 0, b""
    if info is not None:
        members[min(i, len(members) - 1)] = (info, content)
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for m, c in members:
            tar.addfile(m, io.BytesIO(c) if m.isfile() else None)
    return out.getvalue()


def mutate_member(rng: random.Random, name: str, content: bytes) -> bytes:
    if name.endswith(".json"):
        return mutate_mlir(rng, content.decode("utf-8", "replace")).encode()
    if name.endswith(".npz"):
        return mutate_npz(rng, content)
    return mutate_bytes(rng, content)


class PackageLoad(Target):
    def prepare(self, work: pathlib.Path) -> None:
        self.seeds = [_compile(work, "m.tar").read_bytes()]

    def mutant(self, rng: random.Random, cwd: pathlib.Path) -> tuple[str, list[str], bytes]:
        data = mutate_tar(rng, self.seeds[0])
        (cwd / "m.tar").write_bytes(data)
        return "mlc", ["run", "m.tar", "--fill-mode", "zeros", "-o", "out.npz"], data


class LibraryLoad(Target):
    """A bare `.so` with its manifest and params beside it: one of the three mutated."""

    def prepare(self, work: pathlib.Path) -> None:
        so = _compile(work, "m.so")
        files = [so, so.with_name("m.manifest.json"), so.with_name("m.params.bin")]
        self.extra["files"] = {p.name: p.read_bytes() for p in files}

    def mutant(self, rng: random.Random, cwd: pathlib.Path) -> tuple[str, list[str], bytes]:
        files = dict(self.extra["files"])  # type: ignore[call-overload]
        name = rng.choice(sorted(files))
        files[name] = mutate_member(rng, name, files[name])
        for n, content in files.items():
            (cwd / n).write_bytes(content)
        return "mlc", ["run", "m.so", "--fill-mode", "zeros", "-o", "out.npz"], files[name]


def mutate_npz(rng: random.Random, data: bytes) -> bytes:
    """Bytes (a third of the time), or arrays rewritten: another dtype, shape or name, an
    extra or a missing array, or an edited .npy header (shape, dtype text, byte order)."""
    if rng.random() < 0.3:
        return mutate_bytes(rng, data)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            entries = {n: z.read(n) for n in z.namelist()}
    except (zipfile.BadZipFile, OSError, EOFError):
        return mutate_bytes(rng, data)
    if not entries:
        entries = {"x.npy": _npy(np.zeros(3, np.float32))}
    name = rng.choice(sorted(entries))
    move = rng.randrange(5)
    if move == 0:
        head_end = entries[name].find(b"\n") + 1
        header = entries[name][:head_end].decode("latin1")
        header = mutate_mlir(rng, header)
        entries[name] = header.encode("latin1", "replace") + entries[name][head_end:]
    elif move == 1:
        arr = np.load(io.BytesIO(entries[name]), allow_pickle=False)
        dtype = rng.choice(("f2", "f8", "i1", "i8", "u8", "?", "c8", "U3", ">f4", "V4", "M8[s]"))
        entries[name] = _npy(np.zeros(arr.shape, dtype))
    elif move == 2:
        shape = tuple(rng.choice((0, 1, 2, 3, 8, 9)) for _ in range(rng.randint(0, 5)))
        entries[name] = _npy(np.ones(shape, np.float32))
    elif move == 3:
        entries[rng.choice(("y.npy", "../x.npy", "extra.npy", name + ".npy"))] = entries.pop(name)
    else:
        big = rng.choice(INTERESTING_INTS[10:])
        entries[name] = _npy_header({"descr": "<f4", "fortran_order": False, "shape": (big, big)})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n, content in entries.items():
            z.writestr(n, content)
    return out.getvalue()


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _npy_header(header: dict[str, object]) -> bytes:
    text = repr(header).encode() + b" " * 10 + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text


class NpzRun(Target):
    def prepare(self, work: pathlib.Path) -> None:
        self.extra["package"] = str(_compile(work, "m.tar"))
        self.seeds = [_npy_zip({"x": np.zeros((1, 3, 8, 8), np.float32)})]

    def mutant(self, rng: random.Random, cwd: pathlib.Path) -> tuple[str, list[str], bytes]:
        data = mutate_npz(rng, self.seeds[0])
        (cwd / "in.npz").write_bytes(data)
        return "mlc", ["run", str(self.extra["package"]), "-i", "in.npz", "-o", "out.npz"], data


def _npy_zip(arrays: dict[str, np.ndarray]) -> bytes:
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


TARGETS: dict[str, type[Target]] = {
    "onnx-import": OnnxImport,
    "opt-mlir": OptMlir,
    "opt-pipeline": OptPipeline,
    "package-load": PackageLoad,
    "library-load": LibraryLoad,
    "npz-run": NpzRun,
}
SUFFIX = {
    "onnx-import": ".onnx",
    "opt-mlir": ".mlir",
    "opt-pipeline": ".txt",
    "package-load": ".tar",
    "library-load": ".bin",
    "npz-run": ".npz",
}
