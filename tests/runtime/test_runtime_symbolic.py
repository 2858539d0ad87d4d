"""Modules with symbolic dims (issue 28): one library runs at every admissible size through
`GraphModule` (JIT and package) and `mlc run`, and every inadmissible size is a clear error.

The module is hand-written (`helpers.symbolic_module`): x: f32[seq,4], k: f32[seq] ->
y: f32[seq,4], z: f32[2*seq]; seq in [1, 100], with the shape check `min(64, seq) == seq`.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from helpers import symbolic_module as sm
from helpers.runtime import build_library, run_python
from mlc.contract import Manifest, ManifestError
from mlc.driver import _main
from mlc.errors import RuntimeInputError
from mlc.npz import npz_bytes
from mlc.runtime import CompiledLibrary, GraphModule, load_module
from mlc.runtime.shapes import ShapeError

SIZES = (1, 7, 13, 64)
CHECK = "min(64, seq) == seq"


@pytest.fixture(scope="module")
def symlib() -> CompiledLibrary:
    text = sm.module_text(sm.manifest_dict(bounds=(1, 100), checks=(CHECK,)))
    return build_library(1, text=text, params=sm.make_params())


@pytest.fixture(scope="module")
def sympkg(symlib: CompiledLibrary, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return symlib.export_library(tmp_path_factory.mktemp("sym") / "sym.tar")


def _check_outputs(gm: GraphModule, inputs: dict[str, np.ndarray]) -> None:
    ref = sm.reference(inputs, sm.make_params())
    for name in ("y", "z"):
        got = gm.get_output(name)
        assert got.shape == ref[name].shape
        np.testing.assert_allclose(got, ref[name], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["jit", "package"])
def test_one_module_runs_at_every_size(symlib, sympkg, kind) -> None:
    gm = GraphModule(symlib.jit() if kind == "jit" else load_module(sympkg))
    for seq in (*SIZES, 7):  # back to a size seen before: buffers reused, descriptors rebound
        inputs = sm.make_inputs(seq)
        gm.run(**inputs)
        assert gm.symbol_values == {"seq": seq}
        _check_outputs(gm, inputs)


def test_a_package_runs_in_a_new_process_without_the_compiler(sympkg) -> None:
    code = f"""
import sys
from helpers import symbolic_module as sm
from mlc.runtime import GraphModule, load_module
gm = GraphModule(load_module({str(sympkg)!r}))
for seq in (3, 11):
    gm.run(**sm.make_inputs(seq))
    print(gm.get_output("z").shape)
print([m for m in ("mlir", "mlc.runtime.library", "ml_dtypes") if m in sys.modules])
"""
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:3] == ["(6,)", "(22,)", "[]"]


def test_inputs_set_one_at_a_time_may_change_size(symlib) -> None:
    gm = GraphModule(symlib.jit())
    gm.run(**sm.make_inputs(5))
    nine = sm.make_inputs(9)
    gm.set_input("x", nine["x"])  # k is still 5 long: only run() needs them to agree
    gm.set_input("k", nine["k"])
    gm.run()
    _check_outputs(gm, nine)
    np.testing.assert_array_equal(gm.get_input("k"), nine["k"])


def test_info_shows_symbolic_dims(symlib) -> None:
    gm = GraphModule(symlib.jit())
    assert gm.get_input_info()["x"] == (("seq", 4), "float32")
    assert gm.get_output_info()["z"].shape == ("2*seq",)


def test_benchmark_and_end_to_end(symlib) -> None:
    gm = GraphModule(symlib.jit())
    inputs = sm.make_inputs(13)
    gm.set_input(**inputs)
    assert gm.benchmark(number=2, repeat=2).mean > 0
    assert gm.benchmark(number=1, repeat=2, end_to_end=True).mean > 0
    _check_outputs(gm, inputs)


def _arrays(x_rows: int, k_len: int, width: int = sm.W) -> dict[str, np.ndarray]:
    return {
        "x": np.zeros((x_rows, width), np.float32),
        "k": np.zeros(k_len, np.float32),
    }


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        (
            _arrays(3, 5),
            "inputs disagree on the dim 'seq': input 'x' axis 0 has 3, input 'k' axis 0 has 5",
        ),
        (_arrays(101, 101), "input 'x' axis 0 (the dim 'seq') is 101, outside the bounds [1, 100]"),
        (_arrays(0, 0), "input 'x' axis 0 (the dim 'seq') is 0, outside the bounds [1, 100]"),
        (_arrays(3, 3, 5), "input 'x' expects float32[seq,4]: axis 1 must be 4, got 5"),
        (
            {"k": np.zeros((3, 1), np.float32)},
            "input 'k' expects float32[seq] (rank 1), got shape [3,1] (rank 2)",
        ),
        ({"k": np.zeros(3, np.float64)}, "input 'k' expects float32[seq], got float64[3]"),
    ],
)
def test_inadmissible_inputs_are_refused_at_set_input(symlib, arrays, message) -> None:
    gm = GraphModule(symlib.jit())
    with pytest.raises(RuntimeInputError) as e:  # ShapeError is one
        gm.set_input(**arrays)
    assert message in str(e.value)


def test_a_failed_shape_check_names_it_and_the_symbol(symlib) -> None:
    gm = GraphModule(symlib.jit())
    gm.set_input(**_arrays(80, 80))
    with pytest.raises(
        ShapeError,
        match=r"shape check 'min\(64, seq\) == seq' \(64 != 80 with "
        r"seq = 80\)",
    ):
        gm.run()


def test_inputs_set_apart_that_disagree_fail_at_run(symlib) -> None:
    gm = GraphModule(symlib.jit())
    gm.run(**sm.make_inputs(4))
    gm.set_input("x", np.zeros((6, sm.W), np.float32))
    with pytest.raises(ShapeError, match="input 'x' axis 0 has 6, input 'k' axis 0 has 4"):
        gm.run()
    gm.set_input("k", np.zeros(6, np.float32))
    gm.run()
    assert gm.get_output("z").shape == (12,)


def test_symbolic_buffers_have_no_value_before_they_are_sized(symlib) -> None:
    gm = GraphModule(symlib.jit())
    with pytest.raises(RuntimeInputError, match="input 'x' .* is not set: its shape is"):
        gm.get_input("x")
    with pytest.raises(RuntimeInputError, match="output 'y' .* known after run"):
        gm.get_output("y")


def test_a_size_beyond_this_machines_memory_is_refused() -> None:
    from mlc.runtime.graph_module import _Storage
    from mlc.runtime.memory import MemoryLimitError

    with pytest.raises(MemoryLimitError, match=r"output 'z' at shape \[1125899906842624\] needs"):
        _Storage().resized("output 'z'", (2**50,), "float32")  # 4 PiB, never allocated


# -- the manifest ----------------------------------------------------------------------------


def test_symbolic_manifest_round_trips_and_static_ones_are_unchanged() -> None:
    d = sm.manifest_dict(bounds=(1, 100), checks=(CHECK,))
    m = Manifest.from_dict(d)
    assert m.symbols == {"seq": (1, 100)} and m.shape_checks == (CHECK,)
    assert m.inputs[0].shape == ("seq", 4) and not m.is_static
    assert Manifest.from_json(m.to_json()) == m
    assert m.inputs[1].shape_at({"seq": 3}) == (3,) and m.outputs[1].nbytes_at({"seq": 3}) == 24
    with pytest.raises(ManifestError, match="'x' .* has symbolic dims"):
        _ = m.inputs[0].nbytes
    static = Manifest.from_dict({**d, **{k: v for k, v in _static_parts().items()}})
    assert "symbols" not in static.to_dict() and "shape_checks" not in static.to_dict()


def _static_parts() -> dict:
    return {
        "inputs": [{"name": "x", "shape": [2, 4], "dtype": "float32"}],
        "outputs": [{"name": "y", "shape": [2, 4], "dtype": "float32"}],
        "symbols": {},
        "shape_checks": [],
    }


def _with(**changes: object) -> dict:
    return {**sm.manifest_dict(), **changes}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"outputs": [{"name": "y", "shape": ["n", 4], "dtype": "float32"}]},
            "symbol 'n' (in output 'y' axis 0) is not bound: no input has a dim that is exactly",
        ),
        (
            {"inputs": [{"name": "x", "shape": ["2*seq", 4], "dtype": "float32"}]},
            "symbol 'seq' (in input 'x' axis 0) is not bound",
        ),
        ({"shape_checks": ["min(8, past) == seq"]}, "symbol 'past' (in shape check"),
        ({"shape_checks": ["seq"]}, "shape check 'seq' is not of the form 'A == B'"),
        ({"shape_checks": [3]}, "shape_checks[0] must be a string"),
        (
            {"outputs": [{"name": "y", "shape": ["seq +", 4], "dtype": "float32"}]},
            "outputs[0].shape: 'seq +' is not a dim expression",
        ),
        ({"symbols": {"seq": [1]}}, "symbols.seq must be [lo, hi]"),
        ({"symbols": {"seq": [5, 2]}}, "symbol 'seq' has empty bounds [5, 2]"),
        ({"symbols": {"seq": [1, None], "2x": [1, 2]}}, "symbol '2x' is not an identifier"),
        ({"symbols": {"seq": [1, None], "past": [1, 2]}}, "symbols past name no input dim"),
        (
            {"params": [{"name": "w", "shape": ["seq"], "dtype": "float32", "offset": 0}]},
            "params[0].shape must be static",
        ),
    ],
)
def test_manifest_validation_names_the_fault(changes, message) -> None:
    with pytest.raises(ManifestError) as e:
        Manifest.from_dict(_with(**changes))
    assert message in str(e.value)


# -- mlc run ---------------------------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = _main(["run", *[str(a) for a in argv]])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("seq", [1, 13])
def test_mlc_run_takes_inputs_of_any_size(sympkg, tmp_path, capsys, seq) -> None:
    inputs = sm.make_inputs(seq)
    (tmp_path / "in.npz").write_bytes(npz_bytes(inputs))
    code, out, err = _run(capsys, sympkg, "--inputs", tmp_path / "in.npz", "-o", tmp_path / "o.npz")
    assert code == 0, err
    assert f"  z: float32[{2 * seq}] min=" in out
    ref = sm.reference(inputs, sm.make_params())
    with np.load(tmp_path / "o.npz") as got:
        for name in ("y", "z"):
            np.testing.assert_allclose(got[name], ref[name], rtol=1e-6, atol=1e-6)


def test_mlc_run_fills_inputs_at_the_sizes_given(sympkg, tmp_path, capsys) -> None:
    code, out, err = _run(capsys, sympkg, "--input-shapes", "x:[7,4]", "--json", "--print-time")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["inputs"]["k"]["shape"] == [7]  # seq bound from x
    assert doc["outputs"]["z"]["shape"] == [14] and doc["time"] is not None
    # a size from the file binds the symbol for the filled input
    (tmp_path / "k.npz").write_bytes(npz_bytes({"k": np.ones(5, np.float32)}))
    code, out, err = _run(capsys, sympkg, "--inputs", tmp_path / "k.npz", "--json")
    assert code == 0, err
    assert json.loads(out)["outputs"]["y"]["shape"] == [5, 4]


@pytest.mark.parametrize(
    ("flags", "code", "message"),
    [
        (
            (),
            4,
            "input 'x' (float32[seq,4]) has the symbolic dim 'seq' that no given input "
            'fixes: give its size with --input-shapes "x:[N,4]"',
        ),
        (("--input-shapes", "x:[7,4] k:[8]"), 4, "inputs disagree on the dim 'seq'"),
        (("--input-shapes", "x:[700,4]"), 4, "outside the bounds [1, 100]"),
        (("--input-shapes", "q:[7]"), 4, "--input-shapes names 'q', not an input"),
        (("--input-shapes", "x:[7,a]"), 1, "dims of 'x' must be integers"),
    ],
)
def test_mlc_run_errors_name_the_symbol(sympkg, capsys, flags, code, message) -> None:
    try:
        got, _, err = _run(capsys, sympkg, *flags)
    except SystemExit as e:  # the parser's own usage errors
        got, err = e.code, capsys.readouterr().err
    assert got == code and message in err and "Traceback" not in err
