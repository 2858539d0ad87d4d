"""One package for every size (issue 28): a model with symbolic batch and sequence dims
compiled once, against packages compiled for each size and onnxruntime, in one process.

    python bench/bench_dynamic.py distilbert bert_sdpa gpt2_like --seq 7 61 128 --rounds 5

Models are `modern_models.py` exports with dynamic axes (`build --dynamic`, built on first
use) or `.onnx` files. Per size: the dynamic package's and the size-specialized one's
latencies (medians of alternating rounds, or the fastest round with `--best`; wall time, or
the process's CPU time with `--cpu-time` for single-threaded runs on an oversubscribed host),
their ratio, onnxruntime's, and the max relative error of each against onnxruntime.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import modern_models  # noqa: E402


def _load(name: str):  # type: ignore[no-untyped-def]
    import onnx

    if name.endswith(".onnx"):
        return onnx.load(name)
    modern_models.ensure_built([name], dynamic=True)
    return onnx.load(str(modern_models.model_path(name, dynamic=True)))


def _feeds(model, batch: int, seq: int, seed: int) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    sizes = {"batch": batch, "seq": seq}
    feeds = {}
    for value in model.graph.input:
        dims = value.type.tensor_type.shape.dim
        shape = [d.dim_value or sizes.get(d.dim_param, 1) for d in dims]
        if value.name == "attention_mask":
            feeds[value.name] = np.ones(shape, np.int64)
        elif value.type.tensor_type.elem_type == 1:
            feeds[value.name] = rng.standard_normal(shape).astype(np.float32)
        else:
            feeds[value.name] = rng.integers(0, 1000, shape).astype(np.int64)
    return feeds


def _time(fn, number: int, clock=time.perf_counter) -> float:  # type: ignore[no-untyped-def]
    start = clock()
    for _ in range(number):
        fn()
    return (clock() - start) / number * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--seq", type=int, nargs="+", default=[7, 61, 128])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--number", type=int, default=3)
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time the process's CPU time instead of the wall clock (single-threaded runs on a "
        "host with more runnable processes than cores: time spent preempted does not count)",
    )
    parser.add_argument(
        "--best",
        action="store_true",
        help="report each peer's fastest round instead of the median (a host shared with "
        "other work only adds time)",
    )
    args = parser.parse_args()

    import onnxruntime as ort

    import mlc
    from mlc.runtime import GraphModule

    print("| model | batch x seq | dynamic (ms) | specialized (ms) | dynamic / specialized "
          "| onnxruntime (ms) | onnxruntime / dynamic | max rel. error |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name in args.models:
        model = _load(name)
        start = time.perf_counter()
        module, params = mlc.from_onnx(model, symbolic_dims=True)
        dynamic = GraphModule(mlc.build(module, params, threads=args.threads).jit())
        print(f"<!-- {name}: dynamic package compiled in {time.perf_counter() - start:.1f} s -->")
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        session = ort.InferenceSession(model.SerializeToString(), options)
        for seq in args.seq:
            feeds = _feeds(model, args.batch, seq, seed=seq)
            shapes = {k: list(v.shape) for k, v in feeds.items()}
            module, params = mlc.from_onnx(model, shape_dict=shapes)
            static = GraphModule(mlc.build(module, params, threads=args.threads).jit())
            (expected,) = session.run(None, feeds)[:1]
            errors = []
            for gm in (dynamic, static):
                gm.run(**feeds)
                got = gm.get_output(0)
                errors.append(float(np.abs(got - expected).max() / np.abs(expected).max()))
            dynamic.set_input(**feeds)
            static.set_input(**feeds)
            times: dict[str, list[float]] = {"dyn": [], "static": [], "ort": []}
            clock = time.process_time if args.cpu_time else time.perf_counter
            for _ in range(args.rounds):
                times["dyn"].append(_time(dynamic.run, args.number, clock))
                times["static"].append(_time(static.run, args.number, clock))
                times["ort"].append(
                    _time(lambda s=session, f=feeds: s.run(None, f), args.number, clock)
                )
            pick = min if args.best else statistics.median
            d, s, o = (pick(times[k]) for k in ("dyn", "static", "ort"))
            print(f"| {name} | {args.batch}x{seq} | {d:.2f} | {s:.2f} | {d / s:.2f} | {o:.2f} "
                  f"| {o / d:.2f} | {max(errors):.1e} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
