"""Regression tests of the fuzzer's findings: each input once made mlc fail with an internal
error (exit 70) and is now a clear error naming what is wrong (exit 4, no traceback)."""

from __future__ import annotations

import io
import pathlib

import numpy as np
import pytest

from mlc.driver import _main
from mlc.npz import NpzError, read_npz

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _model(nodes, inputs, initializers=()) -> onnx.ModelProto:  # type: ignore[no-untyped-def]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        list(initializers),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _import(model: onnx.ModelProto, tmp_path: pathlib.Path, capsys) -> str:  # type: ignore[no-untyped-def]
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    assert _main(["import", str(path), "-o", str(tmp_path / "m.mlir")]) == 4
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    return err


def _weight(dims: list[int], raw: bytes) -> TensorProto:
    w = numpy_helper.from_array(np.ones((2, 2), np.float32), "w")
    del w.dims[:]
    w.dims.extend(dims)
    w.raw_data = raw
    return w


@pytest.mark.parametrize(
    "dims, raw, message",
    [
        ([2, 2], bytes(15), "initializer 'w' does not hold the data its shape [2, 2]"),
        ([2, 3], bytes(16), "initializer 'w' does not hold the data its shape [2, 3]"),
        ([2**62, 4], bytes(16), "whose element count overflows int64"),
        ([2**40, 1], bytes(16), "more than mlc handles"),
        ([-1, 4], bytes(16), "has a negative dimension"),
    ],
)
def test_an_initializer_whose_data_does_not_fit_its_dims(
    dims: list[int], raw: bytes, message: str, tmp_path: pathlib.Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    model = _model(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        [("x", [2, 2])],
        [_weight(dims, raw)],
    )
    assert message in _import(model, tmp_path, capsys)


def test_a_node_with_an_input_missing(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    model = _model([helper.make_node("MatMul", ["x"], ["y"], name="mm")], [("x", [2, 2])])
    err = _import(model, tmp_path, capsys)
    assert "node 'mm' (MatMul) does not match its ONNX operator definition: Node(mm) with " in err
    assert "schema(::MatMul:13) has input size 1 not in range [min=2, max=2]. The model" in err


def test_a_required_attribute_missing(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    model = _model([helper.make_node("Cast", ["x"], ["y"], name="c")], [("x", [2])])
    err = _import(model, tmp_path, capsys)
    assert "Cast node 'c' (opset 13): required attribute 'to' is missing" in err


def test_a_conv_weight_of_another_rank_than_its_input(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    w = numpy_helper.from_array(np.ones((4, 3, 3), np.float32), "w")
    model = _model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [("x", [1, 3, 8, 8])], [w]
    )
    err = _import(model, tmp_path, capsys)
    assert "conv" in err and "the weight has rank 3, the input rank 4" in err


def _npz_with_header(tmp_path: pathlib.Path, shape: tuple[int, ...], data: bytes) -> pathlib.Path:
    header = repr({"descr": "<f4", "fortran_order": False, "shape": shape}).encode()
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    npy = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data
    buf = io.BytesIO()
    import zipfile

    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("x.npy", npy)
    path = tmp_path / "in.npz"
    path.write_bytes(buf.getvalue())
    return path


@pytest.mark.parametrize(
    "shape", [(2**38, 2**38), (1 << 40,), (3, 5)], ids=["overflow", "huge", "short"]
)
def test_an_npz_header_declaring_more_than_it_holds(tmp_path: pathlib.Path, shape) -> None:  # type: ignore[no-untyped-def]
    path = _npz_with_header(tmp_path, shape, bytes(16))
    with pytest.raises(NpzError, match=r"entry 'x.npy' declares shape .* but holds 16"):
        read_npz(path, "--inputs")


def test_an_npz_written_by_numpy_still_reads(tmp_path: pathlib.Path) -> None:
    arrays = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array(7, np.int64)}
    np.savez(tmp_path / "ok.npz", **arrays)
    got = read_npz(tmp_path / "ok.npz")
    for name, want in arrays.items():
        np.testing.assert_array_equal(got[name], want)


def test_an_input_shape_past_int64_elements(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    model = _model([helper.make_node("Relu", ["x"], ["y"], name="r")], [("x", [2**40, 2**40])])
    err = _import(model, tmp_path, capsys)
    assert "input 'x' has shape [1099511627776, 1099511627776]" in err
    assert "more elements than int64 can count" in err


def test_a_result_shape_past_int64_elements(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Flatten of a tensor whose dims are fine one by one but not their product (fuzzer: the
    MLIR type builder raised TypeError); here Expand makes [2**32, 2**32]."""
    shape = numpy_helper.from_array(np.array([2**32, 2**32], np.int64), "s")
    model = _model(
        [helper.make_node("Expand", ["x", "s"], ["y"], name="grow")], [("x", [2**32])], [shape]
    )
    err = _import(model, tmp_path, capsys)
    assert "grow" in err and "graph.expand: the result shape [4294967296, 4294967296]" in err


def test_a_manifest_param_whose_size_overflows_int64() -> None:
    """The manifest beside a bare .so, edited: a param of 2**80 elements (fuzzer: an
    OverflowError from numpy while validating it)."""
    from helpers import contract_module as cm
    from mlc.contract import Manifest, ManifestError

    data = cm.manifest_dict()
    data["params"][0]["shape"] = [2**40, 2**40]
    with pytest.raises(
        ManifestError, match=r"float32\[1099511627776,1099511627776\].* ends beyond"
    ):
        Manifest.from_dict(data)


def test_an_npz_header_that_does_not_tokenize(tmp_path: pathlib.Path) -> None:
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (3,\n"
    npy = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header
    import zipfile

    with zipfile.ZipFile(tmp_path / "p.npz", "w") as z:
        z.writestr("x.npy", npy)
    with pytest.raises(NpzError, match="entry 'x.npy'"):
        read_npz(tmp_path / "p.npz", "parameters")


def test_a_node_whose_converter_asserts_on_an_absent_input(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """BatchNormalization with 3 of its 5 inputs; TopK without K (converters asserted)."""
    stats = [numpy_helper.from_array(np.ones(3, np.float32), n) for n in ("s", "b")]
    bn = helper.make_node("BatchNormalization", ["x", "s", "b"], ["y"], name="bn")
    err = _import(_model([bn], [("x", [1, 3, 2, 2])], stats), tmp_path, capsys)
    assert "node 'bn' (BatchNormalization) does not match its ONNX operator definition" in err
    topk = helper.make_node("TopK", ["x"], ["y", "i"], name="top")
    err = _import(_model([topk], [("x", [4])]), tmp_path, capsys)
    assert "node 'top' (TopK)" in err and "has input size 1 not in range [min=2, max=2]" in err


def test_an_attribute_whose_type_is_not_its_data(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Conv pads tagged FLOATS holding ints: mlc read the ints, ONNX's shape inference did not,
    and the cross-check called it a converter bug."""
    w = numpy_helper.from_array(np.ones((8, 3, 3, 3), np.float32), "w")
    conv = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", pads=[1, 1, 1, 1])
    conv.attribute[0].type = onnx.AttributeProto.FLOATS
    err = _import(_model([conv], [("x", [1, 3, 8, 8])], [w]), tmp_path, capsys)
    assert "node 'conv' (Conv) does not match its ONNX operator definition: type field and " in err


@pytest.mark.parametrize("flag", [0x1 << 6, 0x1 << 5], ids=["strong-encryption", "patched"])
def test_an_npz_entry_with_zip_flags_zipfile_does_not_support(
    tmp_path: pathlib.Path, flag: int
) -> None:
    """zipfile raised NotImplementedError (exit 70) on these general-purpose flag bits."""
    path = tmp_path / "in.npz"
    np.savez(path, x=np.zeros(3, np.float32))
    data = bytearray(path.read_bytes())
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):  # the local header and the central directory
        at = data.find(sig)
        pos = at + (6 if sig == b"PK\x03\x04" else 8)
        data[pos : pos + 2] = (int.from_bytes(data[pos : pos + 2], "little") | flag).to_bytes(
            2, "little"
        )
    path.write_bytes(bytes(data))
    with pytest.raises(NpzError, match="cannot read --inputs"):
        read_npz(path, "--inputs")


def test_a_value_with_two_producers(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A duplicated node rewired: ONNX's shape inference then disagreed with mlc's types and
    the cross-check called it a converter bug."""
    nodes = [
        helper.make_node("Relu", ["x"], ["y"], name="relu"),
        helper.make_node("Shape", ["x"], ["y"], name="shape"),
    ]
    err = _import(_model(nodes, [("x", [2, 3])]), tmp_path, capsys)
    assert "value 'y' is produced by both node 'relu' (Relu) and node 'shape' (Shape)" in err


def test_a_node_without_outputs(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    value = numpy_helper.from_array(np.ones(2, np.float32), "v")
    nodes = [
        helper.make_node("Constant", [], [], name="c", value=value),
        helper.make_node("Relu", ["x"], ["y"], name="relu"),
    ]
    err = _import(_model(nodes, [("x", [2])]), tmp_path, capsys)
    assert "node 'c' (Constant) does not match its ONNX operator definition" in err


def test_a_string_attribute_that_is_not_utf8(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    pads = numpy_helper.from_array(np.array([1, 1], np.int64), "p")
    pad = helper.make_node("Pad", ["x", "p"], ["y"], name="pad", mode=b"\xff\xfe")
    err = _import(_model([pad], [("x", [2])], [pads]), tmp_path, capsys)
    assert "Pad node 'pad' (opset 13): attribute 'mode' is not UTF-8 text" in err


def test_a_tensor_attribute_whose_type_is_not_its_data(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """ConstantOfShape's value tagged INT holding a tensor (converter: AttributeError)."""
    shape = numpy_helper.from_array(np.array([2], np.int64), "s")
    value = numpy_helper.from_array(np.ones(1, np.float32), "v")
    node = helper.make_node("ConstantOfShape", ["s"], ["c"], name="cos", value=value)
    node.attribute[0].type = onnx.AttributeProto.INT
    add = helper.make_node("Add", ["x", "c"], ["y"], name="add")
    err = _import(_model([node, add], [("x", [2])], [shape]), tmp_path, capsys)
    assert "node 'cos' (ConstantOfShape) does not match its ONNX operator definition" in err


def test_folded_inputs_of_one_type_variable_that_differ(tmp_path: pathlib.Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Fuzz run C, seed 3, mutant 4071: Concat(int64 constant, ConstantOfShape's float zeros)
    folded by numpy into float64, which ONNX's inference types int64: it was an internal error
    (exit 70) blaming a converter."""
    ints = numpy_helper.from_array(np.ones(4, np.int64), "ints")
    four = numpy_helper.from_array(np.array([4], np.int64), "four")
    nodes = [
        helper.make_node("ConstantOfShape", ["four"], ["zeros"], name="zeros"),
        helper.make_node("Concat", ["ints", "zeros"], ["shape"], name="cat", axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape"),
    ]
    err = _import(_model(nodes, [("x", [1])], [ints, four]), tmp_path, capsys)
    assert (
        "Concat node 'cat' (opset 13): inputs bound to one element type (T) are int64 and " in err
    )
