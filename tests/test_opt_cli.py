"""mlc-opt as a library call (`_main`): exit codes and the text users see, never a traceback."""

from __future__ import annotations

import pathlib

import pytest

from mlc.opt import _main

GOOD = 'func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n'


def _write(tmp_path: pathlib.Path, text: str) -> str:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    return str(path)


def test_round_trip(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _main([_write(tmp_path, GOOD)]) == 0
    assert '"graph.relu"(%arg0)' in capsys.readouterr().out


@pytest.mark.parametrize(
    "text, expected",
    [
        ("func.func @f( {", "in.mlir:1:14: error: expected non-function type"),
        (
            'func.func @f(%a: tensor<2xf32>) {\n  %0 = "graph.exp"(%a) : (tensor<2xf32>) -> tensor<4xf32>\n  return\n}',
            "in.mlir:2:8: error: 'graph.exp' op result #0 has type tensor<4xf32>",
        ),
    ],
)
def test_bad_input_exits_1(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    assert _main([_write(tmp_path, text)]) == 1
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


@pytest.mark.parametrize(
    "pipeline, expected",
    [
        ("builtin.module(mlc-dcee)", "did you mean 'mlc-dce'"),
        ("builtin.module(mlc-dce{x})", "unknown option 'x'"),
        ("builtin.module(func.func(mlc-dce))", "cannot be nested in func.func"),
        ("builtin.module(cse", "expected ')'"),
    ],
)
def test_bad_pipeline_exits_1(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], pipeline: str, expected: str
) -> None:
    assert _main([_write(tmp_path, GOOD), f"--pass-pipeline={pipeline}"]) == 1
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["/nonexistent/x.mlir"]) == 1
    assert "cannot read input file '/nonexistent/x.mlir'" in capsys.readouterr().err


def test_unknown_flag_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        _main(["--no-such-flag"])
    assert info.value.code == 1


def test_verify_diagnostics_mismatch_fails(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = GOOD.replace("  %0", "  // expected-error @+1 {{never produced}}\n  %0")
    assert _main([_write(tmp_path, text), "--verify-diagnostics"]) == 1
    assert 'expected error "never produced" was not produced' in capsys.readouterr().err


def test_split_input_file_keeps_line_numbers(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = 'func.func @g(%a: tensor<2xf32>) {\n  %0 = "graph.exp"(%a) : (tensor<2xf32>) -> tensor<4xf32>\n  return\n}\n'
    path = _write(tmp_path, GOOD + "// -----\n" + bad)
    assert _main([path, "--split-input-file"]) == 1
    captured = capsys.readouterr()
    assert "in.mlir:7:8: error: 'graph.exp' op" in captured.err
    assert '"graph.relu"' in captured.out


def test_list_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["--list-passes"]) == 0
    out = capsys.readouterr().out
    assert "graph-verify" in out and "mlc-cse" in out and "Named pipelines:" in out


def test_internal_error_has_no_traceback(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import mlc.opt

    def broken(*args: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(mlc.opt, "_process_chunk", broken)
    assert _main([_write(tmp_path, GOOD)]) == 1
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: kaboom" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv, pipeline",
    [
        (["--cse"], "builtin.module(cse)"),
        (["--graph-verify", "--canonicalize"], "builtin.module(graph-verify,canonicalize)"),
        (
            ["--canonicalize=max-iterations=2 region-simplify=disabled"],
            "builtin.module(canonicalize{max-iterations=2 region-simplify=disabled})",
        ),
        (["-mlc-dce", "-split-input-file"], "builtin.module(mlc-dce)"),
        (["--mlc-dce", "--tp-verify"], "builtin.module(mlc-dce,tp-verify)"),
    ],
)
def test_pass_flags_make_a_pipeline(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], argv: list[str], pipeline: str
) -> None:
    """mlir-opt habits (issue 11, item 9): passes as flags, in order, options after '='."""
    from mlc.opt import build_parser, split_pass_flags

    rest, made = split_pass_flags(["in.mlir", *argv], build_parser())
    assert made == pipeline and rest[0] == "in.mlir"
    assert _main([_write(tmp_path, GOOD), *argv]) == 0
    assert "func.func @f" in capsys.readouterr().out


def test_one_dash_long_flags_and_p(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, GOOD)
    for argv in (
        ["-pass-pipeline=builtin.module(mlc-dce)"],
        ["-pass-pipeline", "builtin.module(mlc-dce)"],
        ["-p", "builtin.module(mlc-dce)"],
    ):
        assert _main([path, *argv, "-mlir-print-op-generic"]) == 0
        assert '"graph.relu"' in capsys.readouterr().out


def test_lower_to_llvm_on_graph_input_is_an_error(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main([_write(tmp_path, GOOD), "--lower-to-llvm"]) == 1
    err = capsys.readouterr().err
    assert "in.mlir:2:8: error: 'graph.relu' was not lowered to the LLVM dialect" in err


def test_outputs_checked_first_and_written_whole(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, GOOD)
    assert _main([path, "-o", str(tmp_path / "no" / "out.mlir")]) == 1
    assert "output (-o) '" in capsys.readouterr().err
    assert _main([path, "--mlc-dce", "--params-out", str(tmp_path)]) == 1
    assert f"--params-out '{tmp_path}' is a directory" in capsys.readouterr().err
    out = tmp_path / "out.mlir"
    assert _main([path, "-o", str(out)]) == 0
    assert "graph.relu" in out.read_text() and sorted(p.name for p in tmp_path.iterdir()) == [
        "in.mlir",
        "out.mlir",
    ]


def test_printing_and_timing_without_passes_warn(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main([_write(tmp_path, GOOD), "--mlir-timing"]) == 0
    assert "warning: --mlir-timing has no effect without passes" in capsys.readouterr().err
