"""`mlc run` through the in-process driver: exit codes and output content."""

from __future__ import annotations

import io
import json
import pathlib

import numpy as np
import pytest

from helpers import contract_module as cm
from mlc.driver import _main
from mlc.npz import npz_bytes
from mlc.runtime.runner import FillMode, RunOptions, is_distribution, top_k


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = _main(["run", *[str(a) for a in argv]])
    out, err = capsys.readouterr()
    return code, out, err


def _npz(path: pathlib.Path, arrays: dict[str, np.ndarray]) -> pathlib.Path:
    path.write_bytes(npz_bytes(arrays))
    return path


def test_inputs_and_output_files(pkg1, tmp_path, capsys, inputs, params) -> None:
    code, out, err = _run(
        capsys,
        pkg1,
        "--inputs",
        _npz(tmp_path / "in.npz", inputs),
        "--output",
        tmp_path / "out.npz",
    )
    assert code == 0, err
    assert "Outputs:" in out and "  y: float32[4,8] min=" in out and "  r: float32[4] min=" in out
    assert f"Outputs written to {tmp_path / 'out.npz'}" in out
    with np.load(tmp_path / "out.npz", allow_pickle=False) as got:
        ref = cm.reference(inputs, params)
        assert sorted(got.files) == ["r", "y"]
        for name in ("y", "r"):
            np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-5)
    assert "filled" not in err


def test_fill_modes(pkg1, tmp_path, capsys, params) -> None:
    code, _, err = _run(capsys, pkg1, "--fill-mode", "zeros", "-o", tmp_path / "z.npz")
    assert code == 0
    assert "filled with zeros values: x, k" in err
    with np.load(tmp_path / "z.npz") as z:
        np.testing.assert_array_equal(z["y"], np.ones((4, 8), np.float32))
        np.testing.assert_allclose(z["r"], params["b"], rtol=0, atol=0)
    partial = _npz(tmp_path / "x.npz", {"x": np.ones((4, 8), np.float32)})
    code, _, err = _run(
        capsys, pkg1, "--inputs", partial, "--fill-mode", "ones", "-o", tmp_path / "o.npz"
    )
    assert code == 0 and "values: k" in err
    with np.load(tmp_path / "o.npz") as o:
        np.testing.assert_allclose(o["r"], params["w"].sum() + params["b"], rtol=1e-5)


def test_random_fill_is_seeded(pkg1, tmp_path, capsys) -> None:
    outs = []
    for seed, name in ((3, "a"), (3, "b"), (4, "c")):
        assert _run(capsys, pkg1, "--seed", seed, "-o", tmp_path / f"{name}.npz")[0] == 0
        with np.load(tmp_path / f"{name}.npz") as f:
            outs.append(f["y"])
    np.testing.assert_array_equal(outs[0], outs[1])
    assert not np.array_equal(outs[0], outs[2])


def test_print_time_table(pkg1, capsys) -> None:
    code, out, _ = _run(capsys, pkg1, "--print-time", "--repeat", 3, "--number", 2)
    assert code == 0
    lines = out.splitlines()
    i = lines.index("Execution time summary:")
    assert lines[i + 1].split()[::2] == ["mean", "median", "max", "min", "std", "p90", "p99"]
    values = [float(v) for v in lines[i + 2].split()]
    assert len(values) == 7 and all(v >= 0 for v in values)
    mean, median, mx, mn = values[:4]
    assert mn <= median <= mx and mn <= mean <= mx
    assert "3 samples of 2 runs each" in lines[i + 3]


def test_print_top_with_labels(pkg1, tmp_path, capsys, inputs, params) -> None:
    labels = tmp_path / "labels.txt"
    labels.write_text("".join(f"class-{i}\n" for i in range(8)))
    code, out, _ = _run(
        capsys,
        pkg1,
        "--inputs",
        _npz(tmp_path / "in.npz", inputs),
        "--print-top",
        5,
        "--labels",
        labels,
    )
    assert code == 0
    y0 = cm.reference(inputs, params)["y"][0].astype(np.float64)
    probs = np.exp(y0 - y0.max()) / np.exp(y0 - y0.max()).sum()
    expected = np.argsort(-probs, kind="stable")[:5]
    lines = out.splitlines()
    i = lines.index(
        "Top-5 of output 'y', batch item 0 of 4 (probabilities: softmax of the output):"
    )
    for rank, (line, idx) in enumerate(zip(lines[i + 1 : i + 6], expected), start=1):
        assert line.split()[:3] == [f"#{rank}", "class", str(idx)]
        assert line.endswith(f"class-{idx}")
        assert float(line.split("probability=")[1].split()[0]) == pytest.approx(
            probs[idx], abs=1e-6
        )


def test_json_output(pkg1, tmp_path, capsys, inputs) -> None:
    code, out, _ = _run(
        capsys,
        pkg1,
        "--inputs",
        _npz(tmp_path / "in.npz", {"x": inputs["x"]}),
        "--print-time",
        "--repeat",
        2,
        "--min-repeat-ms",
        1,
        "--end-to-end",
        "--print-top",
        3,
        "--json",
    )
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {"inputs", "outputs", "output_file", "time", "top", "verify"}
    assert doc["inputs"]["x"] == {"shape": [4, 8], "dtype": "float32", "source": "file"}
    assert doc["inputs"]["k"]["source"] == "random"
    assert doc["outputs"]["r"]["shape"] == [4] and {"min", "max", "mean"} <= set(
        doc["outputs"]["y"]
    )
    assert len(doc["time"]["samples"]) == 2 and doc["time"]["unit"] == "ms"
    assert {"mean", "median", "max", "min", "std", "p90", "p99", "number"} <= set(doc["time"])
    assert doc["time"]["number"] > 1  # grown to fill 1 ms per sample (one run takes microseconds)
    assert [c["rank"] for c in doc["top"]["classes"]] == [1, 2, 3]
    assert doc["top"]["softmax_applied"] is True and doc["verify"] is None


def test_wrong_inputs_file(pkg1, tmp_path, capsys, inputs) -> None:
    wrong = _npz(tmp_path / "w.npz", {**inputs, "x": inputs["x"].astype(np.float64)})
    code, _, err = _run(capsys, pkg1, "--inputs", wrong)
    assert code == 4
    assert "input 'x' expects float32[4,8], got float64[4,8]" in err
    extra = _npz(tmp_path / "e.npz", {**inputs, "data": inputs["k"]})
    code, _, err = _run(capsys, pkg1, "--inputs", extra)
    assert code == 4 and "has arrays data that are not inputs of the module (x: float32[4,8]" in err


def test_usage_errors(pkg1, tmp_path, capsys) -> None:
    code, _, err = _run(capsys, pkg1, "--labels", tmp_path / "l.txt")
    assert code == 1 and "--labels only apply with --print-top N" in err
    with pytest.raises(SystemExit) as exc:
        _main(["run", str(pkg1), "--repeat", "0"])
    assert (
        exc.value.code == 1 and "argument --repeat: must be >= 1, got 0" in capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as exc:
        _main(["run", str(pkg1), "--fill-mode", "sevens"])
    assert exc.value.code == 1
    code, _, err = _run(capsys, tmp_path / "missing.tar")
    assert code == 4 and "does not exist" in err
    short = tmp_path / "short.txt"
    short.write_text("a\nb\n")
    code, _, err = _run(capsys, pkg1, "--print-top", 2, "--labels", short)
    assert code == 4 and "the labels file has 2 lines; output 'y' has 8 classes" in err


def test_top_k_keeps_probabilities_and_options_parse() -> None:
    probs = np.array([[0.1, 0.6, 0.3]], np.float32)
    assert is_distribution(probs.reshape(-1))
    top = top_k("p", probs, 2, ["a", "b", "c"])
    assert not top.softmax_applied
    assert [(e.index, e.label) for e in top.entries] == [(1, "b"), (2, "c")]
    assert top.entries[0].probability == pytest.approx(0.6)
    assert top_k("l", np.array([2.0, 1.0, 0.5]), 1, None).softmax_applied
    assert RunOptions(pathlib.Path("m.tar"), fill_mode="ZEROS").fill_mode is FillMode.ZEROS
    with pytest.raises(ValueError, match="choose one of zeros, ones, random"):
        RunOptions(pathlib.Path("m.tar"), fill_mode="sevens")
    with pytest.raises(ValueError, match="verify_model needs verify"):
        RunOptions(pathlib.Path("m.tar"), verify_model=pathlib.Path("m.onnx"))


def test_output_files_are_readable_without_pickle(pkg1, tmp_path, capsys) -> None:
    assert _run(capsys, pkg1, "-o", tmp_path / "o.npz")[0] == 0
    with np.load(io.BytesIO((tmp_path / "o.npz").read_bytes()), allow_pickle=False) as f:
        assert f["y"].dtype == np.float32
