"""What the `mlc` CLI tells its user (issue 11, items 4, 8, 9, 10): paths checked before any
work, messages that name the file or flag, `--save-temps` folders that never mix two runs,
`--json` errors, `--version`, `-v`/`-vv`/`-q`, and progress lines on a terminal."""

from __future__ import annotations

import json
import os
import pathlib
import pty
import subprocess

import pytest

from helpers.cli import BIN, assert_clean_failure, conv_model, run_cli
from mlc.driver import _main
from mlc.version import version_text

onnx = pytest.importorskip("onnx")


def _main_out(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = _main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return conv_model(tmp_path_factory.mktemp("model") / "m.onnx")


@pytest.fixture(scope="module")
def package(model: pathlib.Path) -> pathlib.Path:
    assert _main(["compile", str(model), "-o", str(model.with_suffix(".tar"))]) == 0
    return model.with_suffix(".tar")


@pytest.mark.parametrize("command", ["compile", "import"])
def test_output_paths_are_checked_before_the_model_is_read(
    command: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11, item 4. The model is not even ONNX: the error names the output, so the output
    was checked first (a typo in -o no longer costs a whole compilation)."""
    garbage = tmp_path / "g.onnx"
    garbage.write_bytes(b"\x00not a model")
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir.tar").mkdir()
    suffix = ".tar" if command == "compile" else ".mlir"
    cases = {
        tmp_path
        / "missing"
        / f"x{suffix}": "the folder '{p.parent}' does not exist; create it first",
        tmp_path / "afile" / f"x{suffix}": "'{tmp}/afile' is a file, not a folder",
    }
    if command == "compile":
        cases[tmp_path / "adir.tar"] = "output '{p}' is a directory"
    for path, message in cases.items():
        code, _, err = _main_out(capsys, command, garbage, "-o", path)
        assert code == 4, err
        assert message.format(p=path, tmp=tmp_path) in err
        assert not (tmp_path / "missing").exists()


def test_save_temps_into_an_impossible_place(
    model: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "afile").write_text("x")
    for where, message in (
        ("/proc/mlc-temps", "--save-temps '/proc/mlc-temps': cannot create files in the folder"),
        (str(tmp_path / "afile"), "is a file, not a folder"),
        (str(tmp_path / "no" / "temps"), "the folder"),
    ):
        code, _, err = _main_out(
            capsys, "compile", model, "-o", tmp_path / "m.tar", "--save-temps", where
        )
        assert code == 4 and message in err, err
        assert not (tmp_path / "m.tar").exists()


def test_save_temps_never_mixes_two_runs(
    model: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    temps = tmp_path / "temps"
    out = ["-o", str(tmp_path / "m.tar"), "--save-temps", str(temps)]
    assert _main(["compile", str(model), *out]) == 0
    first = {p.name for p in temps.iterdir()}
    assert len(first) > 20 and ".mlc-save-temps" in first
    short = "builtin.module(graph-fuse,graph-to-tp,graph-to-tp)"
    assert _main(["compile", str(model), *out, "--pass-pipeline", short]) == 4
    second = sorted(p.name for p in temps.iterdir())
    assert second == [
        ".mlc-save-temps",
        "00-input.mlir",
        "01-graph-fuse.mlir",
        "02-graph-to-tp.mlir",
        "pipeline.txt",
        "reproducer.mlir",
        "reproducer.npz",
    ]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    code, _, err = _main_out(
        capsys, "compile", model, "-o", tmp_path / "m.tar", "--save-temps", mine
    )
    assert code == 4 and "is not empty and holds no earlier --save-temps run" in err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_diagnostics_of_a_mlir_input_name_its_file(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11, item 8: `mlc compile bad.mlir` reported `-:2:8` where mlc-opt says bad.mlir:2:8."""
    bad = tmp_path / "bad.mlir"
    bad.write_text(
        "func.func @main(%a: tensor<2xf32>) -> tensor<4xf32> {\n"
        '  %0 = "graph.exp"(%a) : (tensor<2xf32>) -> tensor<4xf32>\n'
        "  return %0 : tensor<4xf32>\n}\n"
    )
    code, _, err = _main_out(capsys, "compile", bad, "-o", tmp_path / "m.tar")
    assert code == 4 and f"{bad}:2:8: error: 'graph.exp' op result #0" in err and "-:2" not in err


@pytest.mark.parametrize(
    "argv, expected, unwanted",
    [
        (["run", "{model}"], "is not an mlc package (an uncompressed .tar", "method gz"),
        (["run", "{package}", "--inputs", "{text}"], "not an .npz archive", "allow_pickle"),
        (
            ["run", "{package}", "--print-top", "-3"],
            "argument --print-top: must be >= 0",
            "min_repeat_ms",
        ),
        (["run", "{so}"], "m.params.bin (written beside it by mlc compile)", "manifest="),
    ],
)
def test_messages_name_the_file_or_flag_and_nothing_internal(
    model: pathlib.Path,
    package: pathlib.Path,
    tmp_path: pathlib.Path,
    argv: list[str],
    expected: str,
    unwanted: str,
) -> None:
    text = tmp_path / "inputs.txt"
    text.write_text("1 2 3\n")
    so = tmp_path / "m.so"
    if "{so}" in argv:
        assert _main(["compile", str(model), "-o", str(so)]) == 0
        (tmp_path / "m.params.bin").unlink()
    args = [a.format(model=model, package=package, text=text, so=so) for a in argv]
    proc = run_cli("mlc", *args)
    err = assert_clean_failure(proc, 1 if "--print-top" in argv else 4)
    assert expected in err and unwanted not in err + proc.stdout


def test_json_errors_are_json_on_stdout(
    package: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _main_out(capsys, "run", package, "--json", "--inputs", tmp_path / "none.npz")
    assert code == 4 and "none.npz" in err
    doc = json.loads(out)
    assert doc["error"]["exit_code"] == 4 and "none.npz" in doc["error"]["message"]
    code, out, _ = _main_out(capsys, "run", package, "--json", "--repeat", "2")
    assert code == 1 and json.loads(out)["error"]["exit_code"] == 1


def test_version_and_verbosity_flags_of_tvmc_habits(
    model: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """Issue 11, item 9: `mlc --version` failed and `mlc compile -v` was rejected."""
    proc = run_cli("mlc", "--version")
    assert proc.returncode == 0 and proc.stdout.strip() == version_text()
    proc = run_cli("mlc", "compile", "-v", model, "-o", tmp_path / "m.tar")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    for stage in (
        f"importing {model} ...",
        "  [1/",
        "graph-verify",
        "generating code done in",
        "linking done in",
        f"writing {tmp_path / 'm.tar'} done in",
    ):
        assert any(stage in line for line in lines), (stage, proc.stderr)
    assert all(line.startswith(("mlc compile: ", "INFO ")) for line in lines), proc.stderr
    assert f"INFO mlc.commands.compile_cmd: wrote {tmp_path / 'm.tar'}" in proc.stderr
    # not a terminal and no -v: no progress; -q: nothing at all
    proc = run_cli("mlc", "compile", model, "-o", tmp_path / "m.tar")
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout.startswith("compiled ")
    proc = run_cli("mlc", "-q", "compile", model, "-o", tmp_path / "m.tar")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    proc = run_cli("mlc", "run", tmp_path / "m.tar", "-q")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_progress_on_a_terminal(model: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """Issue 11, item 10: a long compile printed nothing until the end. On a terminal each
    stage is a line, its passes updating it in place."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.run(
            [str(BIN / "mlc"), "compile", str(model), "-o", str(tmp_path / "m.tar")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
            timeout=300,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    assert proc.returncode == 0
    shown = b"".join(chunks).decode()
    # what each terminal line ends up showing: the text after its last carriage return
    final = [line.rstrip("\r").split("\r")[-1].replace("\x1b[K", "") for line in shown.split("\n")]
    assert final[0] == f"mlc compile: importing {model} done in " + final[0].split(" in ")[-1]
    assert any(
        line.startswith("mlc compile: running ") and " passes done in " in line for line in final
    )
    assert "[3/" in shown and "graph-" in shown  # steps shown in place
    assert any(line.startswith("mlc compile: linking done in") for line in final)


def test_debug_verbosity_shows_the_traceback_of_an_internal_error(
    model: pathlib.Path,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import mlc.compiler

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(mlc.compiler, "compile_model", broken)
    code, _, err = _main_out(capsys, "compile", model, "-o", tmp_path / "m.tar")
    assert code == 70 and "internal error: RuntimeError: kaboom" in err and "Traceback" not in err
    code, _, err = _main_out(capsys, "-vv", "compile", model, "-o", tmp_path / "m.tar")
    assert code == 70 and "Traceback" in err and "rerun with -vv" in err
