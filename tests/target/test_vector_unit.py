"""The vector unit schedules assume, from the CPU's ISA extensions."""

from __future__ import annotations

from mlc.contract import TargetInfo
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.target import (
    AVX2,
    AVX512,
    NEON,
    SCALAR,
    has_vector_ldexp,
    host_vector_unit,
    int8_dot_bits,
    int8_madd_bits,
    vector_unit_of,
)


def test_the_widest_unit_of_the_extensions() -> None:
    assert vector_unit_of(frozenset({"avx2", "fma", "avx512f", "avx512vl"})) == AVX512
    assert vector_unit_of(frozenset({"avx2", "fma", "avx512f"})) == AVX2  # no VL: no AVX-512
    assert vector_unit_of(frozenset({"avx2", "fma"})) == AVX2
    assert vector_unit_of(frozenset({"asimd"})) == NEON
    assert vector_unit_of(frozenset({"sse2"})) == SCALAR


def test_lanes_and_registers() -> None:
    assert (AVX512.lanes(32), AVX512.registers) == (16, 32)
    assert (AVX2.lanes(32), AVX2.lanes(64), AVX2.registers) == (8, 4, 16)
    assert SCALAR.lanes(32) == 0


def test_the_host_has_a_unit() -> None:
    assert host_vector_unit() in (AVX512, AVX2, NEON, SCALAR)


def test_vector_ldexp_only_where_it_is_one_instruction() -> None:
    """exp's 2^k by llvm.ldexp is vscalefps with AVX-512 and a libm call per lane without it, so
    the pipeline for a target turns it on for AVX-512 targets only."""
    assert has_vector_ldexp(frozenset({"avx2", "fma", "avx512f", "avx512vl"}))
    assert not has_vector_ldexp(frozenset({"avx2", "fma"}))
    assert not has_vector_ldexp(frozenset({"avx2", "fma", "avx512f"}))  # no VL: not our AVX-512
    zen4 = TargetInfo("x86_64-unknown-linux-gnu", "znver4", ("avx2", "avx512f", "avx512vl", "fma"))
    zen3 = TargetInfo("x86_64-unknown-linux-gnu", "znver3", ("avx2", "fma"))
    assert (
        "lower-to-llvm{threads=1 vector-ldexp=true}" in MlcDefaultPipeline.for_target(zen4).expand()
    )
    assert "vector-ldexp" not in MlcDefaultPipeline.for_target(zen3).expand()
    no_approx = MlcDefaultPipeline(vector_ldexp=True, approx_math=False).expand()
    assert "vector-ldexp" not in no_approx and "approx-math=false" in no_approx


def test_int8_dot_products_by_target() -> None:
    """vpdpbusd where VNNI is; elsewhere on x86 two vpmaddwd per dot product (AVX2: 256 bits,
    AVX512BW: 512), and the kernels are packed for either; neither: unpacked."""
    skx = frozenset({"avx2", "fma", "avx512f", "avx512vl", "avx512bw"})
    assert (int8_dot_bits(skx), int8_madd_bits(skx)) == (0, 512)
    assert (int8_dot_bits(skx | {"avx512_vnni"}), int8_madd_bits(frozenset({"avx2"}))) == (512, 256)
    assert int8_dot_bits(frozenset({"avx2", "avx_vnni"})) == 256
    assert int8_madd_bits(frozenset({"sse2"})) == int8_madd_bits(frozenset({"asimd"})) == 0

    def expand(*features: str) -> str:
        return MlcDefaultPipeline.for_target(
            TargetInfo("x86_64-unknown-linux-gnu", "cpu", ("fma", *features))
        ).expand()

    zen3 = expand("avx2")
    assert "int8-dot=true" in zen3 and "tp-to-loops{threads=1 madd-bits=256}" in zen3
    icx = expand("avx2", "avx512f", "avx512vl", "avx512bw", "avx512_vnni")
    assert "tp-to-loops{threads=1 vnni-bits=512}" in icx
    assert "int8-dot" not in expand() and "madd-bits" not in expand()
