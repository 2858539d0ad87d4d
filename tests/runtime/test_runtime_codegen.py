"""Split code generation (runtime/codegen*.py): units, parallel workers, the object cache."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import mlc
from helpers.onnx_models import mobilenet_like
from mlc.errors import ToolError
from mlc.frontend import from_onnx
from mlc.runtime import CompiledLibrary, GraphModule, codegen, load_module
from mlc.runtime.codegen_split import Unit, split_units
from mlc.runtime.module import JitEntry, SharedEntry


@pytest.fixture(scope="module")
def lib() -> CompiledLibrary:
    """A small CNN whose LLVM module has several kernels (layout, convs, pool, gemm)."""
    module, params = from_onnx(mobilenet_like())
    lib = mlc.build(module, params, threads=2)
    assert codegen.kernel_count(lib.module) >= codegen.MIN_KERNELS
    return lib


def _outputs(rt) -> list[np.ndarray]:
    gm = GraphModule(rt)
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
    gm.run(image=x)
    return [gm.get_output(i).copy() for i in range(len(rt.manifest.outputs))]


def _objects(cache: pathlib.Path) -> set[pathlib.Path]:
    return set(cache.glob("objects/*/*.o"))


def test_split_code_matches_the_whole_module_bit_for_bit(lib, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("MLC_CODEGEN_JOBS", "1")
    monkeypatch.setenv("MLC_CACHE_DIR", "off")
    whole = lib.jit()
    assert isinstance(whole.entry, JitEntry)  # one engine for the module, as before
    monkeypatch.setenv("MLC_CODEGEN_JOBS", "2")
    split = lib.jit()
    assert isinstance(split.entry, SharedEntry)  # units on two processes, linked
    assert split.kind == "jit"
    for a, b in zip(_outputs(whole), _outputs(split), strict=True):
        assert np.array_equal(a, b)


def test_cache_hit_miss_and_invalidation(lib, monkeypatch, tmp_path) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("MLC_CACHE_DIR", str(cache))
    monkeypatch.setenv("MLC_CODEGEN_JOBS", "1")
    reference = _outputs(lib.jit())
    stored = _objects(cache)
    units = split_units(lib.module, codegen.cache_key(3))
    assert {p.stem for p in stored} == {u.digest for u in units}  # a miss stores every unit

    def no_compile(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cache hit compiled a unit")

    monkeypatch.setattr(codegen, "compile_units", no_compile)
    hit = lib.jit()  # every unit from the cache
    assert _objects(cache) == stored
    for a, b in zip(reference, _outputs(hit), strict=True):
        assert np.array_equal(a, b)

    # another target / LLVM / optimization level is another key: every unit misses
    monkeypatch.undo()
    monkeypatch.setenv("MLC_CACHE_DIR", str(cache))
    monkeypatch.setattr(codegen, "cache_key", lambda level: f"another target {level}")
    lib.jit()
    assert len(_objects(cache)) == 2 * len(stored)


def test_another_pipeline_gives_other_kernels_and_objects(lib) -> None:
    module, params = from_onnx(mobilenet_like())
    other = mlc.build(module, params, threads=1)
    a = {u.digest for u in split_units(lib.module, "k")}
    b = {u.digest for u in split_units(other.module, "k")}
    assert a != b
    again = mlc.build(*from_onnx(mobilenet_like()), threads=2)
    assert [u.digest for u in split_units(again.module, "k")] == [
        u.digest for u in split_units(lib.module, "k")
    ]  # the same model and pipeline: the same units, names and digests


def test_units_rename_kernels_after_their_digest(lib) -> None:
    entry, *kernels = split_units(lib.module, "k")
    assert entry.label == "entry" and entry.externals
    defined = set()
    for unit in kernels:
        names = re.findall(r"llvm\.func hidden @(\w+)\(", unit.text)
        assert unit.lookup in names
        for name in names:
            assert re.fullmatch(r"fused_\w+_[0-9a-f]{16}", name)
            assert f"@{name}(" in entry.text and name in entry.externals
        defined |= set(names)
        label = unit.label.split(" ")[0]
        assert f"@{label}(" not in entry.text  # every call goes to the renamed kernel
    assert defined == set(entry.externals)


def test_a_failing_unit_is_named_in_the_error(lib, tmp_path) -> None:
    entry, good, *_ = split_units(lib.module, "k")
    bad = Unit("fused_broken_7", "module {\n  llvm.func @f( {\n}\n", "f", (), "0" * 64)
    units = [(good, tmp_path / "good.o"), (bad, tmp_path / "bad.o")]
    with pytest.raises(
        ToolError, match=r"code generation failed for 1 of 2 units:\n  fused_broken_7: "
    ):
        codegen.compile_units(units, [], tmp_path, 3, jobs=2)
    assert (tmp_path / "good.o").stat().st_size > 0


def test_a_worker_that_dies_leaves_its_units_to_the_others(lib, tmp_path) -> None:
    _, good, *_ = split_units(lib.module, "k")
    units = [(good, tmp_path / "a.o")]
    # the worker fails to load a library before it claims anything: this process compiles all
    codegen.compile_units(units, [tmp_path / "libnothere.so"], tmp_path, 3, jobs=2)
    assert (tmp_path / "a.o").stat().st_size > 0


def test_a_unit_claimed_by_a_process_that_never_reported_is_an_error(lib, tmp_path) -> None:
    _, good, *_ = split_units(lib.module, "k")
    (tmp_path / "b.o.claim").write_text("")  # claimed, then the claimer vanished
    dead = Unit("fused_lost_3", good.text, good.lookup, good.externals, "1" * 64)
    units = [(good, tmp_path / "a.o"), (dead, tmp_path / "b.o")]
    with pytest.raises(ToolError, match="fused_lost_3: no process compiled it"):
        codegen.compile_units(units, [], tmp_path, 3, jobs=1)


def test_exported_package_of_split_units_runs_like_the_jit(lib, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("MLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("MLC_CODEGEN_JOBS", "2")
    package = lib.export_library(tmp_path / "model.tar")
    assert _objects(tmp_path / "cache")  # the export went through the units
    for a, b in zip(_outputs(lib.jit()), _outputs(load_module(package)), strict=True):
        assert np.array_equal(a, b)


def test_codegen_jobs_must_be_a_positive_number(monkeypatch) -> None:
    monkeypatch.setenv("MLC_CODEGEN_JOBS", "two")
    with pytest.raises(ToolError, match="MLC_CODEGEN_JOBS must be a whole number, got 'two'"):
        codegen.codegen_jobs()
    monkeypatch.setenv("MLC_CODEGEN_JOBS", "0")
    with pytest.raises(ToolError, match="at least 1"):
        codegen.codegen_jobs()


def test_kernel_timers_of_a_split_module_count_every_kernel(monkeypatch) -> None:
    monkeypatch.setenv("MLC_CODEGEN_JOBS", "2")
    module, params = from_onnx(mobilenet_like())
    lib = mlc.build(module, params, threads=2, profile=True)
    rt = lib.jit()
    assert isinstance(rt.entry, SharedEntry)
    gm = GraphModule(rt)
    gm.set_input("image", np.ones((1, 3, 16, 16), np.float32))
    profile = gm.profile(number=3, warmup=1)
    assert profile.runs == 3 and len(profile.kernels) >= codegen.MIN_KERNELS
    assert all(k.ms > 0 for k in profile.kernels)


def test_the_cache_key_follows_the_target_llvm_and_opt_level(monkeypatch) -> None:
    import dataclasses

    import mlc.runtime.target as target_module

    key = codegen.cache_key(3)
    assert codegen.cache_key(2) != key
    host = target_module.host_target()
    codegen.cache_key.cache_clear()
    monkeypatch.setattr(
        target_module, "host_target", lambda: dataclasses.replace(host, cpu="another-cpu")
    )
    assert codegen.cache_key(3) != key
    codegen.cache_key.cache_clear()
    monkeypatch.undo()
    monkeypatch.setattr("mlc.version.mlir_version", lambda: "0.0.0")
    assert codegen.cache_key(3) != key
    codegen.cache_key.cache_clear()


def test_without_the_variables_a_module_compiles_whole(lib, monkeypatch) -> None:
    monkeypatch.delenv("MLC_CODEGEN_JOBS", raising=False)
    monkeypatch.delenv("MLC_CACHE_DIR", raising=False)
    assert codegen.codegen_jobs() == 1 and codegen.cache_root() is None
    assert isinstance(lib.jit().entry, JitEntry)


def test_equal_kernels_share_one_unit_and_one_declaration(monkeypatch) -> None:
    """Two kernels of different ops with equal code (Mod and fmod on unsigned integers) get
    the same digest name: one definition in the kernel units and one declaration in the entry
    (a second was a redefinition the parser refused). llvm-merge-kernels would have merged the
    twins before the split: it is off here."""
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("Mod", ["a", "d"], ["y1"], fmod=0),
        helper.make_node("Mod", ["a", "d"], ["y2"], fmod=1),
        helper.make_node("Mul", ["a", "d"], ["y3"]),
        helper.make_node("Sub", ["a", "d"], ["y4"]),
        helper.make_node("Add", ["a", "d"], ["y5"]),
    ]
    vi = [helper.make_tensor_value_info(n, TensorProto.UINT32, [64]) for n in ("a", "d")]
    outs = [helper.ValueInfoProto(name=f"y{k}") for k in range(1, 6)]
    model = helper.make_model(
        helper.make_graph(nodes, "twins", vi, outs), opset_imports=[helper.make_opsetid("", 17)]
    )
    twins = mlc.build(
        *from_onnx(model), pipeline="builtin.module(mlc-default{merge-kernels=false})"
    )
    assert codegen.kernel_count(twins.module) >= codegen.MIN_KERNELS
    entry = split_units(twins.module, "key")[0]
    assert len(entry.externals) == codegen.kernel_count(twins.module) - 1  # the twins: one name
    for name in entry.externals:
        assert entry.text.count(f'sym_name = "{name}"') == 1, name
    monkeypatch.setenv("MLC_CODEGEN_JOBS", "2")
    monkeypatch.setenv("MLC_CACHE_DIR", "off")
    gm = GraphModule(twins.jit())
    rng = np.random.default_rng(0)
    a, d = rng.integers(0, 1000, 64, dtype=np.uint32), rng.integers(1, 9, 64, dtype=np.uint32)
    gm.run(a=a, d=d)
    for k, want in enumerate((a % d, a % d, a * d, a - d, a + d)):
        np.testing.assert_array_equal(gm.get_output(k), want)
