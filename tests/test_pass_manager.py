"""mlc.PassManager: the Python API gives what mlc-opt gives, and fails the same way."""

from __future__ import annotations

import subprocess
import sys

import pytest
from mlir import ir

import mlc
from mlc.errors import PassFailedError, PipelineParseError
from mlc.passes.mlc_dce import MlcDcePass

MIXED = (
    "builtin.module(graph-verify,mlc-cse,mlc-dce,"
    "func.func(canonicalize,cse,convert-linalg-to-loops),canonicalize)"
)
SOURCE = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "graph.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "graph.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "graph.exp"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "graph.add"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
func.func @g(%m: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%m : memref<8xf32>)
  return
}
"""


def test_mixed_pipeline_matches_mlc_opt(tmp_path: object, ctx: ir.Context) -> None:
    module = ir.Module.parse(SOURCE, ctx)
    pm = mlc.PassManager.parse(MIXED)
    pm.run(module)
    path = tmp_path / "in.mlir"  # type: ignore[operator]
    path.write_text(SOURCE)
    cli = subprocess.run(
        [sys.executable, "-m", "mlc.opt", str(path), f"--pass-pipeline={MIXED}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(module) == cli.stdout
    assert "scf.for" in cli.stdout and "graph.exp" not in cli.stdout


def test_add_builds_the_same_pipeline(ctx: ir.Context) -> None:
    pm = mlc.PassManager()
    pm.add("graph-verify").add(MlcDcePass()).add("func.func(cse)")
    assert str(pm) == "builtin.module(graph-verify,mlc-dce,func.func(cse))"
    assert [str(s) for s in pm.steps()] == ["graph-verify", "mlc-dce", "func.func(cse)"]


def test_nested_passes_run_as_separate_steps() -> None:
    pm = mlc.PassManager.parse("builtin.module(func.func(canonicalize,cse))")
    assert [str(s) for s in pm.steps()] == ["func.func(canonicalize)", "func.func(cse)"]


def test_failure_carries_located_diagnostics(ctx: ir.Context) -> None:
    module = ir.Module.parse(
        "func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
        '  %0 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<3xf32>\n'
        "  return %0 : tensor<3xf32>\n}",
        ctx,
    )
    pm = mlc.PassManager.parse("builtin.module(graph-verify)")
    with pytest.raises(PassFailedError) as info:
        pm.run(module, filename="model.mlir")
    assert info.value.diagnostics == [
        "model.mlir:2:8: error: 'graph.relu' op result #0 has type tensor<3xf32> but the operands "
        "and attributes give tensor<2xf32>"
    ]


def test_upstream_failure_is_reported(ctx: ir.Context) -> None:
    module = ir.Module.parse("func.func @f() { return }", ctx)
    # Nesting a module pass on functions fails when MLIR builds the pass manager.
    with pytest.raises(PipelineParseError, match="convert-func-to-llvm"):
        mlc.PassManager.parse("builtin.module(func.func(convert-func-to-llvm))")
    pm = mlc.PassManager.parse("builtin.module(convert-func-to-llvm)")
    pm.run(module)
    assert "llvm.func @f" in str(module)


def test_timing_and_printing(ctx: ir.Context, capfd: pytest.CaptureFixture[str]) -> None:
    module = ir.Module.parse(SOURCE, ctx)
    pm = mlc.PassManager.parse("builtin.module(mlc-dce,func.func(cse))")
    pm.enable_timing()
    pm.enable_ir_printing()
    pm.run(module)
    err = capfd.readouterr().err
    assert [name for name, _ in pm.timings] == ["mlc-dce", "func.func(cse)"]
    assert all(t >= 0 for _, t in pm.timings)
    assert "// -----// IR Dump After mlc-dce (mlc-dce) //----- //" in err
    assert "// -----// IR Dump After CSE (cse) //----- //" in err
    assert "Execution time report" in err


def test_pass_bug_is_an_internal_error(ctx: ir.Context, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self: object, module: object, pctx: object) -> None:
        raise KeyError("oops")

    monkeypatch.setattr(MlcDcePass, "run", boom)
    module = ir.Module.parse(SOURCE, ctx)
    pm = mlc.PassManager.parse("builtin.module(mlc-dce)")
    with pytest.raises(PassFailedError, match="mlc-dce: internal error: KeyError"):
        pm.run(module)
    assert pm.internal_error and "KeyError" in pm.internal_error


def test_verify_each_catches_a_pass_that_breaks_shapes(
    ctx: ir.Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    def corrupt(self: object, module: ir.Operation, pctx: object) -> None:
        func = module.regions[0].blocks[0].operations[0]
        relu = func.regions[0].blocks[0].operations[0]
        relu.attributes["broken"] = ir.UnitAttr.get()
        relu.results[0].set_type(ir.RankedTensorType.get([5], ir.F32Type.get()))

    monkeypatch.setattr(MlcDcePass, "run", corrupt)
    module = ir.Module.parse(SOURCE, ctx)
    with pytest.raises(PassFailedError) as info:
        mlc.PassManager.parse("builtin.module(mlc-dce)").run(module)
    assert any("produced IR that does not verify" in d for d in info.value.diagnostics)


def test_runs_of_upstream_passes_are_verified_where_they_end(tmp_path) -> None:
    pm = mlc.PassManager.parse(
        "builtin.module(graph-verify,canonicalize,cse,mlc-dce,func.func(cse),canonicalize)"
    )
    steps = list(pm.steps())
    groups = [pm._upstream_group(steps, i) for i in range(len(steps))]
    # mlc passes are verified by _run_mlc; an upstream step by the verifier only where its run ends
    assert groups[1] is None
    assert groups[2] == ["canonicalize", "cse"]
    assert groups[4] is None
    assert groups[5] == ["func.func(cse)", "canonicalize"]
    pm.save_temps(tmp_path / "temps")  # debugging: every step verified, failures placed exactly
    assert pm._upstream_group(steps, 1) == ["canonicalize"]


LOWERED = """
llvm.func @f(%a: i32) -> i32 {
  %0 = llvm.add %a, %a : i32
  llvm.return %0 : i32
}
"""


def _count_dialect_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from mlc.passes import pass_manager

    calls: list[int] = []
    real = pass_manager._check_mlc_dialects

    def counted(op: ir.Operation) -> object:
        calls.append(1)
        return real(op)

    monkeypatch.setattr(pass_manager, "_check_mlc_dialects", counted)
    return calls


def test_a_pass_on_loops_that_breaks_the_ir_is_still_reported(
    ctx: ir.Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After lowering, mlc's dialect checks are skipped, MLIR's verifier is not."""
    from mlc.passes.omp_threads import OmpThreadsPass

    def corrupt(self: object, module: ir.Operation, pctx: object) -> None:
        func = next(o for o in module.regions[0].blocks[0].operations if o.name == "llvm.func")
        ret = func.regions[0].blocks[0].operations[1]
        ret.operation.erase()  # the block loses its terminator

    calls = _count_dialect_checks(monkeypatch)
    module = ir.Module.parse(LOWERED, ctx)
    mlc.PassManager.parse("builtin.module(mlc-dce,omp-threads)").run(module)
    assert len(calls) == 1  # after mlc-dce, which found no graph or tp op; none after omp-threads
    monkeypatch.setattr(OmpThreadsPass, "run", corrupt)
    with pytest.raises(PassFailedError) as info:
        mlc.PassManager.parse("builtin.module(mlc-dce,omp-threads)").run(
            ir.Module.parse(LOWERED, ctx)
        )
    assert any("omp-threads produced IR that does not verify" in d for d in info.value.diagnostics)


def test_a_pass_on_loops_is_checked_while_tp_ops_remain(
    ctx: ir.Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_dialect_checks(monkeypatch)
    module = ir.Module.parse(SOURCE, ctx)  # graph ops: the checks run after every pass
    mlc.PassManager.parse("builtin.module(mlc-dce,omp-threads,omp-threads)").run(module)
    assert len(calls) == 3


def test_checks_only_passes_are_not_verified_again(
    ctx: ir.Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_dialect_checks(monkeypatch)
    module = ir.Module.parse(SOURCE, ctx)
    # the input of the first graph-verify was never verified by this run: verified after it
    mlc.PassManager.parse("builtin.module(graph-verify,mlc-dce,graph-verify,tp-verify)").run(module)
    assert len(calls) == 2  # after the first graph-verify and after mlc-dce
    calls.clear()
    pm = mlc.PassManager.parse("builtin.module(mlc-dce,graph-verify)")
    pm.enable_ir_printing(after_all=False, before_all=True)  # debugging: verify every step
    pm.run(module)
    assert len(calls) == 2


def test_a_checks_only_pass_after_a_broken_step_still_fails(
    ctx: ir.Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass that breaks the IR is reported by its own verification, before a checks_only
    pass runs; with verification off it is the checking pass that reports it."""

    def corrupt(self: object, module: ir.Operation, pctx: object) -> None:
        func = module.regions[0].blocks[0].operations[0]
        relu = func.regions[0].blocks[0].operations[0]
        relu.results[0].set_type(ir.RankedTensorType.get([5], ir.F32Type.get()))

    monkeypatch.setattr(MlcDcePass, "run", corrupt)
    module = ir.Module.parse(SOURCE, ctx)
    with pytest.raises(PassFailedError) as info:
        mlc.PassManager.parse("builtin.module(graph-verify,mlc-dce,graph-verify)").run(module)
    assert any("mlc-dce produced IR that does not verify" in d for d in info.value.diagnostics)
