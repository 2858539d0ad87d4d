"""What `mlc compile` writes and how `mlc run` reads it back (issue 11, items 1, 3, 5, 6, 7):
outputs that share a folder, per-model entry symbols, `.o` with its manifest and params, the
`.mlir` round trip, batched classifiers, input names with ':', and flags that used to be
silently ignored."""

from __future__ import annotations

import ctypes
import json
import pathlib
import subprocess
import tarfile

import numpy as np
import pytest

from helpers.cli import (
    assert_clean_failure,
    classifier_model,
    classifier_reference,
    conv_model,
    run_cli,
)
from mlc.commands.common import parse_input_shapes
from mlc.driver import _main
from mlc.npz import npz_bytes, read_npz

onnx = pytest.importorskip("onnx")


def _main_out(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = _main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def conv_pkg(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("conv")
    assert _main(["compile", str(conv_model(d / "m.onnx")), "-o", str(d / "m.tar")]) == 0
    return d / "m.tar"


@pytest.fixture(scope="module")
def classifier(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return classifier_model(tmp_path_factory.mktemp("cls") / "cls.onnx")


def test_two_libraries_in_one_folder_each_run_with_their_own_files(
    classifier: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """Issue 11, item 1: b2.so then b1.so in one folder shared manifest.json/params.npz and
    running b2.so aborted (munmap_chunk, exit 134). Each now has its own files and checks them."""
    for batch in (2, 1):
        shape = f"x:[{batch},3,4,4]"
        proc = run_cli(
            "mlc", "compile", classifier, "--input-shapes", shape, "-o", tmp_path / f"b{batch}.so"
        )
        assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "b1.h",
        "b1.manifest.json",
        "b1.params.bin",
        "b1.so",
        "b2.h",
        "b2.manifest.json",
        "b2.params.bin",
        "b2.so",
    ]
    x = np.random.default_rng(5).random((2, 3, 4, 4), dtype=np.float32)
    for batch in (2, 1):
        (tmp_path / "in.npz").write_bytes(npz_bytes({"x": x[:batch]}))
        out = tmp_path / f"out{batch}.npz"
        proc = run_cli(
            "mlc", "run", tmp_path / f"b{batch}.so", "--inputs", tmp_path / "in.npz", "-o", out
        )
        assert proc.returncode == 0, proc.stderr
        got = read_npz(out)["y"]
        np.testing.assert_allclose(
            got, classifier_reference(classifier, x[:batch]), rtol=1e-5, atol=1e-6
        )
    # a manifest of the other build beside a library is a clear error, not a crash
    (tmp_path / "b2.manifest.json").write_bytes((tmp_path / "b1.manifest.json").read_bytes())
    err = assert_clean_failure(run_cli("mlc", "run", tmp_path / "b2.so"))
    assert "b2.manifest.json does not match the manifest embedded in the library" in err


def test_print_top_ranks_the_class_axis_of_every_batch_layout(
    classifier: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11, item 3: with batch 2 and a [N, C, 1, 1] output, --print-top said 'class 0'."""
    pkg = tmp_path / "b2.tar"
    assert _main(["compile", str(classifier), "--input-shapes", "x:[2,3,4,4]", "-o", str(pkg)]) == 0
    x = np.random.default_rng(6).random((2, 3, 4, 4), dtype=np.float32)
    (tmp_path / "in.npz").write_bytes(npz_bytes({"x": x}))
    capsys.readouterr()
    code, out, err = _main_out(
        capsys, "run", pkg, "--inputs", tmp_path / "in.npz", "--print-top", 3, "--json"
    )
    assert code == 0, err
    top = json.loads(out)["top"]
    scores = classifier_reference(classifier, x)[0, :, 0, 0].astype(np.float64)
    probs = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    assert [c["index"] for c in top["classes"]] == list(np.argsort(-probs, kind="stable")[:3])
    assert top["batch"] == 2 and top["batch_item"] == 0
    for c in top["classes"]:
        assert c["probability"] == pytest.approx(probs[c["index"]], abs=1e-6)
    code, out, _ = _main_out(capsys, "run", pkg, "--inputs", tmp_path / "in.npz", "--print-top", 3)
    assert "Top-3 of output 'y', batch item 0 of 2" in out


def test_print_top_refuses_outputs_without_one_class_axis() -> None:
    from mlc.errors import RuntimeInputError
    from mlc.runtime.runner import top_k

    y = np.arange(2 * 5, dtype=np.float32).reshape(2, 5, 1, 1)
    assert [e.index for e in top_k("y", y, 2, None).entries] == [4, 3]
    with pytest.raises(RuntimeInputError, match=r"shape \[1,5,2,2\]: --print-top ranks one class"):
        top_k("y", np.zeros((1, 5, 2, 2), np.float32), 2, None)


def test_input_names_with_colons(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11, item 5: TF-style names (`input:0`) could not be given to --input-shapes."""
    assert parse_input_shapes("input:0:[1,3,8,8] mask:[2]") == {
        "input:0": [1, 3, 8, 8],
        "mask": [2],
    }
    assert parse_input_shapes("a:b:c:[1],x y:[3]") == {"a:b:c": [1], "x y": [3]}
    model = conv_model(tmp_path / "tf.onnx", input_name="input:0")
    code, _, err = _main_out(
        capsys, "compile", model, "--input-shapes", "input:0:[2,3,8,8]", "-o", tmp_path / "tf.tar"
    )
    assert code == 0, err
    with tarfile.open(tmp_path / "tf.tar") as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
    assert manifest["inputs"] == [{"name": "input:0", "shape": [2, 3, 8, 8], "dtype": "float32"}]


def test_the_dynamic_dim_error_suggests_a_syntax_that_parses(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["input:0"], ["y"])],
        "g",
        [helper.make_tensor_value_info("input:0", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])],
    )
    model = tmp_path / "dyn.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(model))
    # (mlc compile keeps such dims symbolic; mlc import asks for sizes or --symbolic-dims)
    code, _, err = _main_out(capsys, "import", model, "-o", tmp_path / "dyn.mlir")
    assert code == 4 and "input 'input:0' [n, 4] has dynamic dim 0" in err
    suggested = err.split('--input-shapes "')[1].split('"')[0]
    assert parse_input_shapes(suggested.replace("...", "1,4")) == {"input:0": [1, 4]}


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--threads", "2", "--pass-pipeline", "builtin.module(mlc-default)"],
            "--threads 2 configures the default pipeline, which --pass-pipeline replaces",
        ),
        (["--params", "{model}"], "--params applies to a .mlir model"),
    ],
)
def test_flags_that_would_be_ignored_by_compile_are_refused(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    """Issue 11, item 6."""
    model = conv_model(tmp_path / "m.onnx")
    argv = [a.format(model=model) for a in argv]
    code, _, err = _main_out(capsys, "compile", model, "-o", tmp_path / "m.tar", *argv)
    assert code == 4 and message in err
    assert not (tmp_path / "m.tar").exists()


def test_input_shapes_with_a_mlir_model_are_refused(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = conv_model(tmp_path / "m.onnx")
    assert _main(["import", str(model), "-o", str(tmp_path / "m.mlir")]) == 0
    code, _, err = _main_out(
        capsys,
        "compile",
        tmp_path / "m.mlir",
        "--input-shapes",
        "x:[2,3,8,8]",
        "-o",
        tmp_path / "m.tar",
    )
    assert code == 4 and "--input-shapes applies to ONNX models" in err


def test_threads_in_a_custom_pipeline_make_a_package_that_works(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--threads with --pass-pipeline used to make a package without libiomp5; the threads
    now go into the pipeline, and the package bundles what its code calls."""
    model = conv_model(tmp_path / "m.onnx")
    pipeline = "builtin.module(mlc-default{threads=2})"
    shapes = "x:[1,3,64,64]"  # big enough for parallel loops
    argv = ["compile", str(model), "--pass-pipeline", pipeline, "--input-shapes", shapes]
    assert _main([*argv, "-o", str(tmp_path / "m.tar")]) == 0
    with tarfile.open(tmp_path / "m.tar") as tar:
        assert "libiomp5.so" in tar.getnames()
    proc = run_cli(
        "mlc", "run", tmp_path / "m.tar", "--fill-mode", "ones", "-o", tmp_path / "o.npz"
    )
    assert proc.returncode == 0, proc.stderr
    w = onnx.numpy_helper.to_array(onnx.load(str(model)).graph.initializer[0])
    inner = np.maximum(w.sum(axis=(1, 2, 3)), 0)  # interior pixels see the whole kernel
    y = read_npz(tmp_path / "o.npz")["y"]
    np.testing.assert_allclose(
        y[0, :, 1:-1, 1:-1], np.broadcast_to(inner[:, None, None], (8, 62, 62)), rtol=1e-5
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--repeat", "3"], "--repeat only apply with --print-time"),
        (["--number", "2", "--end-to-end"], "--number, --end-to-end only apply with --print-time"),
        (["--min-repeat-ms", "5"], "--min-repeat-ms only apply with --print-time"),
        (["--verify-atol", "0.1"], "--verify-atol only apply with --verify onnxruntime"),
        (["--verify-rtol", "0.1"], "--verify-rtol only apply with --verify onnxruntime"),
        (["--fill-mode", "zeros", "--seed", "3"], "--seed only applies to --fill-mode random"),
    ],
)
def test_flags_that_would_be_ignored_by_run_are_refused(
    conv_pkg: pathlib.Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = _main_out(capsys, "run", conv_pkg, *argv)
    assert code == 1 and message in err and out == ""


def test_build_options_have_no_unread_extra() -> None:
    import mlc

    assert "extra" not in mlc.BuildOptions.__dataclass_fields__
    with pytest.raises(TypeError, match="unknown option"):
        mlc.build(None, extra={"x": 1})  # type: ignore[arg-type]


def _two_objects(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], *entry: str
) -> list[pathlib.Path]:
    objs = []
    for i, name in enumerate(("alpha", "beta")):
        model = conv_model(tmp_path / f"{name}.onnx", seed=i)
        flags = ["--entry-name", entry[i]] if entry else []
        code, _, err = _main_out(capsys, "compile", model, "-o", tmp_path / f"{name}.o", *flags)
        assert code == 0, err
        objs.append(tmp_path / f"{name}.o")
    return objs


def test_objects_of_two_models_link_into_one_program(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11, item 7: every .o defined `mlc_main`; now the entry is per model (default
    `mlc_<model name>`, or --entry-name), and its manifest and params are written beside it."""
    from mlc.contract import Manifest
    from mlc.runtime import GraphModule, RuntimeModule
    from mlc.runtime.embedded import LibraryIntegrityError, read_sealed
    from mlc.runtime.module import SharedEntry
    from mlc.runtime.params_blob import map_params, params_views

    objs = _two_objects(tmp_path, capsys)
    both = tmp_path / "both.so"
    subprocess.run(["cc", "-shared", "-o", str(both), *map(str, objs), "-lm"], check=True)
    lib = ctypes.CDLL(str(both))
    x = np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype(np.float32)
    for obj, entry in zip(objs, ("mlc_alpha", "mlc_beta")):
        manifest = Manifest.from_json(obj.with_suffix(".manifest.json").read_text())
        assert manifest.entry == entry and read_sealed(obj) == manifest
        blob = map_params(obj.with_suffix(".params.bin"), manifest, "params")
        params = params_views(manifest, blob)
        gm = GraphModule(RuntimeModule(manifest, params, SharedEntry(lib, entry), "shared"))
        gm.run(x=x)
        from mlc.dialects.graph.reference import run_module
        from mlc.frontend import from_onnx

        (want,) = run_module(*from_onnx(obj.with_suffix(".onnx")), [x])
        np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(LibraryIntegrityError, match="holds several mlc models"):
        read_sealed(both)


def test_one_entry_name_for_two_objects_cannot_link(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    objs = _two_objects(tmp_path, capsys, "same", "same")
    proc = subprocess.run(
        ["cc", "-shared", "-o", str(tmp_path / "x.so"), *map(str, objs)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0 and "multiple definition of `same'" in proc.stderr


def test_compile_finds_the_params_mlc_import_wrote(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11, item 7: `mlc import -o model.mlir` wrote model.mlir.npz, which `mlc compile
    model.mlir` did not look for (52 missing-param errors, no hint)."""
    model = conv_model(tmp_path / "m.onnx")
    assert _main(["import", str(model), "-o", str(tmp_path / "model.mlir")]) == 0
    code, _, err = _main_out(capsys, "compile", tmp_path / "model.mlir", "-o", tmp_path / "m.tar")
    assert code == 0, err
    x = np.random.default_rng(9).standard_normal((1, 3, 8, 8)).astype(np.float32)
    (tmp_path / "x.npz").write_bytes(npz_bytes({"x": x}))
    assert (
        _main(
            [
                "run",
                str(tmp_path / "m.tar"),
                "-i",
                str(tmp_path / "x.npz"),
                "-o",
                str(tmp_path / "y.npz"),
            ]
        )
        == 0
    )
    from mlc.dialects.graph.reference import run_module
    from mlc.frontend import from_onnx

    (want,) = run_module(*from_onnx(model), [x])
    np.testing.assert_allclose(read_npz(tmp_path / "y.npz")["y"], want, rtol=1e-5, atol=1e-5)
    (tmp_path / "model.mlir.npz").rename(tmp_path / "elsewhere.npz")
    code, _, err = _main_out(capsys, "compile", tmp_path / "model.mlir", "-o", tmp_path / "m.tar")
    assert code == 4
    assert "model.mlir uses 1 parameters (w) but no parameters were given" in err
    assert "--params FILE.npz" in err and err.count("\n") == 1
