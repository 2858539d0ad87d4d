"""Where a package compiled once for every size loses to one compiled for a size: the kernel
timers of both (`mlc.build(..., profile=True)`), summed per graph op of each kernel's anchor and
listed kernel by kernel, matched on the ONNX nodes they run. Both are profiled in alternating
rounds; each kernel's time is its lowest mean over the rounds (a shared host's noise only adds).

    python bench/profile_dynamic.py distilbert --seq 61 [--batch 1] [--top 20] [--rounds 5]

Models are `modern_models.py` exports with dynamic axes or `.onnx` files (as bench_dynamic.py).
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import bench_dynamic  # noqa: E402


def _module(module, params, feeds, threads: int):  # type: ignore[no-untyped-def]
    import mlc
    from mlc.runtime import GraphModule

    gm = GraphModule(mlc.build(module, params, threads=threads, profile=True).jit())
    gm.set_input(**feeds)
    return gm


def _lowest(profiles):  # type: ignore[no-untyped-def]
    """One profile whose kernel times and run time are the lowest of `profiles`'."""
    import dataclasses

    kernels = tuple(
        dataclasses.replace(ks[0], ms=min(k.ms for k in ks))
        for ks in zip(*(p.kernels for p in profiles))
    )
    run_ms = min(p.run_ms for p in profiles)
    return dataclasses.replace(profiles[0], kernels=kernels, run_ms=run_ms)


def _by_nodes(profile) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """ms per kernel, keyed by its first ONNX node and anchor (same in both builds when the
    fusion agrees)."""
    out: dict[str, float] = collections.defaultdict(float)
    for k in profile.kernels:
        out[f"{k.call.anchor}:{k.call.nodes[0] if k.call.nodes else k.call.kernel}"] += k.ms
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--seq", type=int, default=61)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--number", type=int, default=5)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    import mlc

    model = bench_dynamic._load(args.model)
    feeds = bench_dynamic._feeds(model, args.batch, args.seq, seed=args.seq)
    shapes = {k: list(v.shape) for k, v in feeds.items()}
    modules = (
        _module(*mlc.from_onnx(model, symbolic_dims=True), feeds, args.threads),
        _module(*mlc.from_onnx(model, shape_dict=shapes), feeds, args.threads),
    )
    rounds: tuple[list, list] = ([], [])  # type: ignore[type-arg]
    for _ in range(args.rounds):
        for gm, out in zip(modules, rounds):
            out.append(gm.profile(number=args.number, warmup=1))
    dyn, static = _lowest(rounds[0]), _lowest(rounds[1])
    print(f"run: dynamic {dyn.run_ms:.3f} ms, static {static.run_ms:.3f} ms; kernels "
          f"{dyn.kernel_ms:.3f} / {static.kernel_ms:.3f} ms, calls "
          f"{len(dyn.kernels)} / {len(static.kernels)}")  # fmt: skip
    per_op: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0, 0])
    for i, prof in enumerate((dyn, static)):
        for k in prof.kernels:
            per_op[k.call.anchor][i] += k.ms
            per_op[k.call.anchor][2 + i] += 1
    print("\n| anchor | dynamic ms (calls) | static ms (calls) | difference ms |")
    print("|---|---|---|---|")
    for op, (d, s, nd, ns) in sorted(per_op.items(), key=lambda kv: kv[1][1] - kv[1][0]):
        print(f"| {op} | {d:.3f} ({nd}) | {s:.3f} ({ns}) | {d - s:+.3f} |")
    dk, sk = _by_nodes(dyn), _by_nodes(static)
    keys = sorted(set(dk) | set(sk), key=lambda k: sk.get(k, 0.0) - dk.get(k, 0.0))
    print(f"\n| kernel (anchor:first node), {args.top} largest gaps | dynamic ms | static ms |")
    print("|---|---|---|")
    for key in keys[: args.top]:
        print(f"| {key} | {dk.get(key, 0.0):.4f} | {sk.get(key, 0.0):.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
