"""Every GraphModule method, on the JIT and on a loaded package, and its input checking."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from helpers import contract_module as cm
from helpers.runtime import assert_matches_reference
from mlc.contract import Manifest
from mlc.errors import RuntimeInputError
from mlc.runtime import CompiledLibrary, GraphModule, load_module
from mlc.runtime.graph_module import TensorInfo, aligned_empty, pack_params


@pytest.fixture(params=["jit", "package"])
def gm(request: pytest.FixtureRequest, lib1: CompiledLibrary, pkg1: pathlib.Path) -> GraphModule:
    return GraphModule(lib1.jit() if request.param == "jit" else load_module(pkg1))


def test_signature(gm: GraphModule) -> None:
    assert gm.get_num_inputs() == 2 and gm.get_num_outputs() == 2
    assert gm.get_input_info() == {
        "x": TensorInfo((4, 8), "float32"),
        "k": TensorInfo((4,), "float32"),
    }
    shape, dtype = gm.get_output_info()["r"]
    assert (shape, dtype) == ((4,), "float32")
    assert list(gm.get_output_info()) == ["y", "r"]


def test_set_input_by_name_index_and_keyword(gm: GraphModule, inputs, params) -> None:
    gm.set_input("x", inputs["x"])
    gm.set_input(1, inputs["k"])
    gm.run()
    first = {"y": gm.get_output(0), "r": gm.get_output(1)}
    assert_matches_reference(first, inputs, params)
    other = cm.make_inputs(seed=7)
    gm.set_input(x=other["x"], k=other["k"])
    np.testing.assert_array_equal(gm.get_input("x"), other["x"])
    np.testing.assert_array_equal(gm.get_input(1), other["k"])
    gm.run()
    assert_matches_reference({"y": gm.get_output("y"), "r": gm.get_output("r")}, other, params)
    # outputs returned earlier are copies: the second run did not change them
    assert_matches_reference(first, inputs, params)


def test_run_with_inputs_and_output_into_out(gm: GraphModule, inputs, params) -> None:
    gm.run(**inputs)
    out = np.full((4,), np.nan, np.float32)
    assert gm.get_output(1, out=out) is out
    np.testing.assert_allclose(out, cm.reference(inputs, params)["r"], rtol=1e-5, atol=1e-5)
    with pytest.raises(
        RuntimeInputError, match=r"out for output 'r' must be float32\[4\], got float64\[4\]"
    ):
        gm.get_output(1, out=np.zeros(4))


def test_input_buffer_is_a_copy(gm: GraphModule, inputs, params) -> None:
    x = inputs["x"].copy()
    gm.set_input("x", x)
    x[:] = 1000.0  # mutating the caller's array after set_input does not change the run
    gm.run(k=inputs["k"])
    assert_matches_reference({"y": gm.get_output(0), "r": gm.get_output(1)}, inputs, params)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "x",
            np.zeros((4, 8), np.float64),
            r"input 'x' expects float32\[4,8\], got float64\[4,8\]",
        ),
        (
            "x",
            np.zeros((8, 4), np.float32),
            r"input 'x' expects float32\[4,8\], got float32\[8,4\]",
        ),
        (
            "k",
            [1.0, 2.0, 3.0, 4.0],
            r"input 'k' expects float32\[4\], got list \(pass a numpy array\)",
        ),
        (
            "data",
            np.zeros((4,), np.float32),
            r"no input named 'data'; the module is \(x: float32\[4,8\], k: float32\[4\]\) -> ",
        ),
        (2, np.zeros((4,), np.float32), r"input index 2 out of range: the module has 2 inputs"),
        (True, np.zeros((4,), np.float32), r"input index True out of range"),
    ],
)
def test_wrong_inputs_name_the_expected_signature(
    gm: GraphModule, key, value, message: str
) -> None:
    with pytest.raises(RuntimeInputError, match=message):
        gm.set_input(key, value)


def test_set_input_is_all_or_nothing(gm: GraphModule, inputs) -> None:
    gm.set_input(x=inputs["x"], k=inputs["k"])
    with pytest.raises(RuntimeInputError, match="input 'k'"):
        gm.set_input(x=np.zeros((4, 8), np.float32), k=np.zeros(4, np.int32))
    np.testing.assert_array_equal(gm.get_input("x"), inputs["x"])  # x was not written either


def test_misuse_errors(gm: GraphModule, inputs) -> None:
    with pytest.raises(RuntimeInputError, match=r"inputs not set: x, k"):
        gm.run()
    with pytest.raises(RuntimeInputError, match="inputs not set: k"):
        gm.run(x=inputs["x"])
    with pytest.raises(RuntimeInputError, match="input 'x' given twice"):
        gm.set_input("x", inputs["x"], x=inputs["x"])
    with pytest.raises(RuntimeInputError, match=r"set_input\('x'\) needs a value"):
        gm.set_input("x")
    with pytest.raises(RuntimeInputError, match="no output named 'z'; outputs: y, r"):
        gm.get_output("z")
    with pytest.raises(RuntimeInputError, match="output index 5 out of range"):
        gm.get_output(5)
    with pytest.raises(RuntimeInputError, match="inputs not set"):
        gm.benchmark()


def test_benchmark(gm: GraphModule, inputs, params) -> None:
    gm.set_input(**inputs)
    result = gm.benchmark(number=3, repeat=4, warmup=2)
    assert result.number == 3 and result.repeat == 4 and result.warmup == 2
    assert all(s > 0 for s in result.samples)
    assert result.min <= result.median <= result.max
    assert "Execution time summary:" in str(result)
    assert_matches_reference({"y": gm.get_output(0), "r": gm.get_output(1)}, inputs, params)


def test_benchmark_end_to_end_uses_the_arrays_given_to_set_input(gm: GraphModule, params) -> None:
    x = cm.make_inputs()
    gm.set_input(**x)
    x["x"][:] = 2.0  # end-to-end copies the caller's arrays in on every timed run
    gm.benchmark(number=1, repeat=2, end_to_end=True)
    assert_matches_reference({"y": gm.get_output(0), "r": gm.get_output(1)}, x, params)


def test_benchmark_min_repeat_ms_grows_number(gm: GraphModule, inputs) -> None:
    gm.set_input(**inputs)
    # one call takes microseconds, so a 2 ms sample needs far more than one call
    result = gm.benchmark(number=1, repeat=2, min_repeat_ms=2)
    assert result.number > 1


def test_params_blob_packing_and_alignment() -> None:
    manifest = Manifest.from_dict(cm.manifest_dict())
    params = cm.make_params()
    blob = pack_params(manifest, params)
    assert blob.ctypes.data % 64 == 0 and blob.shape == (128,)
    np.testing.assert_array_equal(blob[0:32].view(np.float32), params["w"])
    np.testing.assert_array_equal(blob[64:80].view(np.float32), params["b"])
    assert not blob[32:64].any() and not blob[80:].any()
    for shape, dtype in [((3, 5), "float64"), ((0,), "int8"), ((), "int32")]:
        a = aligned_empty(shape, dtype)
        assert a.ctypes.data % 64 == 0 and a.shape == shape and a.flags.c_contiguous


@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4), (0, 3), (1, 1, 1, 1, 1, 1)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_memref_descriptors_are_those_mlir_runtime_builds(shape, dtype) -> None:
    """GraphModule builds descriptors itself (importing mlir.runtime costs seconds): the same
    bytes as mlir.runtime.get_ranked_memref_descriptor, for every rank."""
    import ctypes

    from mlir.runtime import get_ranked_memref_descriptor

    from mlc.runtime.graph_module import aligned_empty, memref_descriptor

    a = aligned_empty(shape, dtype)
    ours, theirs = memref_descriptor(a), get_ranked_memref_descriptor(a)
    assert ctypes.sizeof(ours) == ctypes.sizeof(theirs)
    assert ctypes.string_at(ctypes.addressof(ours), ctypes.sizeof(ours)) == ctypes.string_at(
        ctypes.addressof(theirs), ctypes.sizeof(theirs)
    )
