"""The vector unit schedules assume, from the CPU's ISA extensions."""

from __future__ import annotations

from mlc.target import AVX2, AVX512, NEON, SCALAR, host_vector_unit, vector_unit_of


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
