"""`mlc compile` + `mlc run --inputs --output` give what the Python API and onnxruntime give, on
models whose outputs are many, out of name order, rank 0, or also feed other outputs (issue 28,
part 6: a rank-0 output came back from `--output` as shape (1,))."""

from __future__ import annotations

import pathlib

import numpy as np
import onnx
import pytest

from helpers.attention_models import sdpa
from helpers.onnx_models import GraphBuilder
from helpers.onnx_testing import make_model
from mlc.driver import _main
from mlc.npz import npz_bytes, read_npz, write_npz

ort = pytest.importorskip("onnxruntime")


def _multi_output_model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """Outputs z (rank 0, Einsum i,i), a (a chain's middle, also feeding b), b and total
    (ReduceSum to rank 0); listed out of name order."""
    g = GraphBuilder(seed=3)
    g.op("Einsum", "x", "y", equation="i,i")
    g.nodes[-1].output[0] = "z"
    g.op("Mul", "x", g.const(np.linspace(-1, 1, 7)))
    g.nodes[-1].output[0] = "a"
    g.op("Sigmoid", "a")
    g.nodes[-1].output[0] = "b"
    g.op("ReduceSum", "b", keepdims=0)
    g.nodes[-1].output[0] = "total"
    specs = {"x": (np.float32, [7]), "y": (np.float32, [7])}
    model = make_model(g.nodes, specs, ["z", "b", "total", "a"], g.consts)
    rng = np.random.default_rng(0)
    inputs = {n: rng.standard_normal(7).astype(np.float32) for n in ("x", "y")}
    return model, inputs


def _attention_model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """SDPA with a float mask, plus a second output taken from its scores' input."""
    model = sdpa("float", batch=2, heads=2, q_len=5, kv_len=6)
    second = onnx.helper.make_node("Relu", ["q"], ["q_relu"], name="/second")
    model.graph.node.append(second)
    model.graph.output.insert(0, onnx.helper.make_tensor_value_info("q_relu", 1, None))
    rng = np.random.default_rng(1)
    inputs = {
        i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(
            np.float32
        )
        for i in model.graph.input
    }
    return model, inputs


@pytest.mark.parametrize("build", [_multi_output_model, _attention_model])
def test_cli_api_and_onnxruntime_agree(tmp_path: pathlib.Path, capsys, build) -> None:
    import mlc
    from mlc.runtime import GraphModule, load_module

    model, inputs = build()
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    names = [o.name for o in model.graph.output]
    expected = dict(zip(names, ort.InferenceSession(str(path)).run(None, inputs), strict=True))

    assert _main(["compile", str(path), "-o", str(tmp_path / "m.tar"), "-q"]) == 0
    (tmp_path / "in.npz").write_bytes(npz_bytes(inputs))
    argv = ["run", str(tmp_path / "m.tar"), "--inputs", str(tmp_path / "in.npz")]
    assert _main([*argv, "--output", str(tmp_path / "out.npz"), "-q"]) == 0
    capsys.readouterr()
    from_cli = read_npz(tmp_path / "out.npz")
    assert list(from_cli) == names  # the model's order, each under its own name

    module, params = mlc.from_onnx(str(path))
    api = GraphModule(mlc.build(module, params).jit())
    api.run(**inputs)
    package = GraphModule(load_module(tmp_path / "m.tar"))
    package.run(**inputs)
    for i, name in enumerate(names):
        want = expected[name]
        for got in (from_cli[name], api.get_output(i), api.get_output(name), package.get_output(i)):
            assert got.shape == want.shape, name
            assert got.dtype == want.dtype, name
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5, err_msg=name)


def test_npz_keeps_rank_zero(tmp_path: pathlib.Path) -> None:
    arrays = {"s": np.float32(2.5) * np.ones((), np.float32), "v": np.arange(3.0)[::2]}
    write_npz(tmp_path / "a.npz", arrays)
    back = read_npz(tmp_path / "a.npz")
    assert back["s"].shape == () and float(back["s"]) == 2.5
    np.testing.assert_array_equal(back["v"], [0.0, 2.0])  # a strided view written contiguously


def _named_dims(model: onnx.ModelProto, dims: dict[str, dict[int, str]]) -> onnx.ModelProto:
    for value in model.graph.input:
        for axis, name in dims.get(value.name, {}).items():
            dim = value.type.tensor_type.shape.dim[axis]
            dim.ClearField("dim_value")
            dim.dim_param = name
    for value in model.graph.output:
        value.type.tensor_type.ClearField("shape")
    return model


def _dynamic_multi_output() -> tuple[onnx.ModelProto, list[dict[str, np.ndarray]]]:
    """z = x . y and total = sum(sigmoid(2x)) (rank 0), b and a over a symbolic length n."""
    g = GraphBuilder()
    g.op("Einsum", "x", "y", equation="i,i")
    g.nodes[-1].output[0] = "z"
    g.op("Mul", "x", g.const(2.0))
    g.nodes[-1].output[0] = "a"
    g.op("Sigmoid", "a")
    g.nodes[-1].output[0] = "b"
    g.op("ReduceSum", "b", keepdims=0)
    g.nodes[-1].output[0] = "total"
    specs = {"x": (np.float32, [7]), "y": (np.float32, [7])}
    model = make_model(g.nodes, specs, ["z", "b", "total", "a"], g.consts)
    model = _named_dims(model, {"x": {0: "n"}, "y": {0: "n"}})
    rng = np.random.default_rng(2)
    sizes = [{k: rng.standard_normal(n).astype(np.float32) for k in "xy"} for n in (1, 7, 13)]
    return model, sizes


def _dynamic_attention() -> tuple[onnx.ModelProto, list[dict[str, np.ndarray]]]:
    """The SDPA model with a second output, over a symbolic batch, query and key length."""
    model, _ = _attention_model()
    per_input = {"q": {2: "lq"}, "k": {2: "lk"}, "v": {2: "lk"}, "mask": {2: "lq", 3: "lk"}}
    dims = {name: {0: "batch", **axes} for name, axes in per_input.items()}
    model = _named_dims(model, dims)
    rng = np.random.default_rng(3)
    feeds = []
    for batch, lq, lk in ((1, 1, 1), (3, 7, 11)):
        shapes = {
            "q": (batch, 2, lq, 8),
            "k": (batch, 2, lk, 8),
            "v": (batch, 2, lk, 8),
            "mask": (batch, 1, lq, lk),
        }
        feeds.append({k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()})
    return model, feeds


@pytest.mark.parametrize("build", [_dynamic_multi_output, _dynamic_attention])
def test_one_dynamic_package_agrees_through_cli_and_api_at_every_size(
    tmp_path: pathlib.Path, capsys, build
) -> None:
    """Compiled once without --input-shapes: at each size, `mlc run --output` gives every output
    under its name, in the model's order, rank 0 kept, equal to GraphModule and onnxruntime."""
    from mlc.runtime import GraphModule, load_module

    model, sizes = build()
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    names = [o.name for o in model.graph.output]
    session = ort.InferenceSession(str(path))
    assert _main(["compile", str(path), "-o", str(tmp_path / "m.tar"), "-q"]) == 0
    package = GraphModule(load_module(tmp_path / "m.tar"))
    for k, inputs in enumerate(sizes):
        expected = dict(zip(names, session.run(None, inputs), strict=True))
        (tmp_path / f"in{k}.npz").write_bytes(npz_bytes(inputs))
        argv = ["run", str(tmp_path / "m.tar"), "--inputs", str(tmp_path / f"in{k}.npz")]
        assert _main([*argv, "--output", str(tmp_path / f"out{k}.npz"), "-q"]) == 0
        capsys.readouterr()
        from_cli = read_npz(tmp_path / f"out{k}.npz")
        assert list(from_cli) == names
        package.run(**inputs)
        for i, name in enumerate(names):
            want = expected[name]
            for got in (from_cli[name], package.get_output(i), package.get_output(name)):
                assert got.shape == want.shape, (name, k)
                np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5, err_msg=f"{name} {k}")
