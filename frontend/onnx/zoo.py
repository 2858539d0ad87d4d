"""The light model zoo shipped with the `onnx` wheel, with seeded random weights.

The light models (resnet50, squeezenet, densenet121, inception_v1/v2, shufflenet, vgg19,
bvlc_alexnet, zfnet512) store every weight as a ConstantOfShape of one value, which makes every
output uniform. `load_light_model` replaces those by seeded random initializers scaled so that
activations stay of order one (He-normal for conv/gemm weights, positive per-channel vectors so
that batch-norm variances are valid), which makes the models usable to compare numbers.
"""

from __future__ import annotations

import pathlib

import numpy as np


def _light_dir() -> pathlib.Path:
    import onnx

    return pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def light_model_names() -> list[str]:
    return sorted(p.stem.removeprefix("light_") for p in _light_dir().glob("light_*.onnx"))


def light_model_path(name: str) -> pathlib.Path:
    path = _light_dir() / f"light_{name}.onnx"
    if not path.is_file():
        raise ValueError(f"no light model '{name}'; available: {', '.join(light_model_names())}")
    return path


def load_light_model(name: str, seed: int = 0, *, drop_softmax: bool = False):  # type: ignore[no-untyped-def]
    """The light model `name` as a ModelProto whose weights are seeded random initializers.

    With `drop_softmax`, a final Softmax is removed so that the model outputs logits: random
    weights make logits large and the probabilities one-hot, a weak check of the numbers.
    """
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(light_model_path(name)))
    graph = model.graph
    constants = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    rng = np.random.default_rng(seed)
    kept, generated = [], []
    for node in graph.node:
        if node.op_type != "ConstantOfShape" or node.input[0] not in constants:
            kept.append(node)
            continue
        shape = tuple(int(d) for d in constants[node.input[0]])
        if len(shape) >= 2:
            value = rng.standard_normal(shape) * np.sqrt(2.0 / max(int(np.prod(shape[1:])), 1))
        else:
            value = rng.uniform(0.5, 1.5, shape)
        generated.append(numpy_helper.from_array(value.astype(np.float32), node.output[0]))
    if (
        drop_softmax
        and kept
        and kept[-1].op_type == "Softmax"
        and kept[-1].output[0] == graph.output[0].name
    ):
        logits = kept.pop().input[0]
        graph.output[0].name = logits
    used = {name for node in kept for name in node.input}
    initializers = [i for i in graph.initializer if i.name in used] + generated
    inputs = [i for i in graph.input if i.name in used or i.name not in constants]
    del graph.node[:]
    graph.node.extend(kept)
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    init_names = {i.name for i in initializers}
    del graph.input[:]
    graph.input.extend(i for i in inputs if i.name not in init_names or i.name in used)
    return model


def calibrate_classifier(model, seed: int = 0, logit_std: float = 2.0):  # type: ignore[no-untyped-def]
    """Rescale the last Gemm/MatMul weights so that logits on a random input have `logit_std`.

    Random weights without trained normalization statistics make the activations grow with
    depth, so the softmax of a deep model is one-hot; this keeps its probabilities readable.
    Needs onnxruntime (to see the classifier's input once).
    """
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper

    graph = model.graph
    fc = next((n for n in reversed(graph.node) if n.op_type in ("Gemm", "MatMul")), None)
    weights = {i.name: i for i in graph.initializer}
    if fc is None or fc.input[1] not in weights:
        return model
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    del probe.graph.output[:]
    probe.graph.output.append(
        onnx.helper.make_tensor_value_info(fc.output[0], onnx.TensorProto.FLOAT, None)
    )
    session = ort.InferenceSession(probe.SerializeToString())
    rng = np.random.default_rng(seed)
    feed = {i.name: rng.standard_normal(i.shape).astype(np.float32) for i in session.get_inputs()}
    logits = session.run(None, feed)[0]
    spread = float(np.std(logits))
    if not np.isfinite(spread) or spread == 0.0:
        return model
    w = weights[fc.input[1]]
    w.CopyFrom(
        numpy_helper.from_array(numpy_helper.to_array(w) * np.float32(logit_std / spread), w.name)
    )
    if len(fc.input) > 2 and fc.input[2] in weights:  # keep the bias small next to the logits
        b = weights[fc.input[2]]
        b.CopyFrom(
            numpy_helper.from_array(
                numpy_helper.to_array(b) * np.float32(0.1 * logit_std / spread), b.name
            )
        )
    return model


def save_light_model(
    name: str,
    path: str | pathlib.Path,
    seed: int = 0,
    *,
    drop_softmax: bool = False,
    calibrate: bool = True,
) -> pathlib.Path:
    """Write the random-weight version of a light model to `path` (for the CLI, demo and
    benchmarks); `calibrate` rescales the classifier (see `calibrate_classifier`)."""
    import onnx

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model = load_light_model(name, seed, drop_softmax=drop_softmax)
    onnx.save(calibrate_classifier(model, seed) if calibrate else model, str(path))
    return path
