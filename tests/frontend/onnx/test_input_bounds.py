"""Bounds of symbolic dims given as ranges (issue 28): `--input-shapes "x:[1..8,1..512]"` and
`shape_dict={"x": ["1..8", "1..512"]}` keep the dims symbolic, record the bounds on @main as
`mlc.symbol_bounds`, and are assumed while importing; malformed ranges are clear errors."""

from __future__ import annotations

import argparse
import pathlib

import onnx
import pytest
from mlir import ir

import mlc
from helpers.symbolic_module import table_model
from mlc.commands.common import parse_input_shapes
from mlc.driver import _main
from mlc.errors import InputShapeError


def _main_attrs(module: ir.Module) -> dict[str, str]:
    fn = module.body.operations[0].operation
    return {name: str(fn.attributes[name]) for name in fn.attributes}


def test_ranges_keep_dims_symbolic_with_their_bounds() -> None:
    bounded = {"x": ["1..8", "1..512"], "mask": ["1..8", "1..512"]}
    module, _ = mlc.from_onnx(table_model(), shape_dict=bounded)
    attrs = _main_attrs(module)
    assert attrs["mlc.symbol_bounds"] == "{batch = array<i64: 1, 8>, seq = array<i64: 1, 512>}"
    # with seq <= 512 assumed, min(512, seq) is seq: no run-time check is needed
    assert "mlc.shape_checks" not in attrs
    assert 'tensor<?x?xf32, ["batch", "seq"]>' in str(module)


def test_without_an_upper_bound_the_check_stays() -> None:
    module, _ = mlc.from_onnx(table_model(), shape_dict={"x": [2, "1.."]}, symbolic_dims=True)
    attrs = _main_attrs(module)
    assert attrs["mlc.symbol_bounds"] == "{seq = array<i64: 1>}"
    assert "min(512, seq) == seq" in attrs["mlc.shape_checks"]


@pytest.mark.parametrize(
    ("shape_dict", "message"),
    [
        ({"x": ["1..8", "9..3"]}, "input 'x' dim 1: the range 9..3 is empty (9 > 3)"),
        ({"x": ["1..8", "a..b"]}, "input 'x' dim 1: 'a..b' is neither a size nor a range"),
        ({"x": ["1..8", 2.5]}, "input 'x' dim 1: 2.5 is neither a size nor a range"),
        (
            {"x": ["1..4", "1..5"], "mask": ["1..4", "1..6"]},
            "the dim 'seq' is given two ranges, 1..5 and 1..6 (input 'mask' dim 1)",
        ),
        ({"x": ["1..8"]}, "input 'x' is given rank 1 ['1..8'], but the model declares rank 2"),
    ],
)
def test_bad_ranges_name_the_input_and_dim(shape_dict, message) -> None:
    with pytest.raises(InputShapeError) as e:
        mlc.from_onnx(table_model(), shape_dict=shape_dict, symbolic_dims=True)
    assert message in str(e.value)


def test_a_range_on_a_static_dim_is_refused() -> None:
    with pytest.raises(InputShapeError, match=r"input 'x' dim 0 is 2 in the model: a range"):
        mlc.from_onnx(
            table_model([2, "seq"]), shape_dict={"x": ["1..8", "1..9"]}, symbolic_dims=True
        )


def test_the_flag_parses_ranges() -> None:
    assert parse_input_shapes("ids:[1..8, 1 .. 512] m:[2,3..]") == {
        "ids": ["1..8", "1..512"],
        "m": [2, "3.."],
    }
    for text, message in [
        ("x:[8..1]", "the range 8..1 is empty (8 > 1)"),
        ("x:[1..a]", "dims of 'x' must be integers or ranges lo..hi"),
        ("x:[..4]", "dims of 'x' must be integers or ranges lo..hi"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError) as e:
            parse_input_shapes(text)
        assert message in str(e.value)


def test_cli_errors_exit_without_traceback(tmp_path: pathlib.Path, capsys) -> None:
    onnx.save(table_model(), tmp_path / "m.onnx")
    out = tmp_path / "m.mlir"
    with pytest.raises(SystemExit) as e:
        _main(["import", str(tmp_path / "m.onnx"), "-o", str(out), "--input-shapes", "x:[3..1,2]"])
    assert e.value.code == 1 and "the range 3..1 is empty" in capsys.readouterr().err
    flags = ["--input-shapes", "x:[1..4,1..5] mask:[1..4,1..6]"]
    assert _main(["import", str(tmp_path / "m.onnx"), "-o", str(out), *flags]) == 4
    err = capsys.readouterr().err
    assert "--input-shapes: the dim 'seq' is given two ranges" in err and "Traceback" not in err
    flags = ["--input-shapes", "x:[1..4,1..512] mask:[1..4,1..512]"]
    assert _main(["import", str(tmp_path / "m.onnx"), "-o", str(out), *flags]) == 0
    assert "mlc.symbol_bounds = {batch = array<i64: 1, 4>" in out.read_text()
    assert _main(["run", str(out), "--input-shapes", "x:[1..2]"]) == 1
    assert "mlc run --input-shapes takes sizes here, not ranges" in capsys.readouterr().err
