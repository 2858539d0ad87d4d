"""How long `load_module` takes on a large package (warm page cache), against the load path of
packages with params.npz that it replaced.

    python bench/bench_load.py                      # a ~350 MB model, 5 loads of each
    python bench/bench_load.py --size-mb 100 --repeat 3

The model is synthetic: a chain of MatMul + Relu layers with 1024x1024 float32 weights (4 MiB
each) as initializers, compiled by `mlc compile` into a package. Each figure is the median of
`--repeat` loads in this process after one untimed load (the package is then in the page
cache). "npz path" replays what load_module did before params.bin: extract every member to a
temporary folder, read params.npz, hash the params, pack them into a blob (`GraphModule`).
"new" is `GraphModule(load_module(pkg))`; "new, verified" adds `verify_params=True` (one
sha256 pass over the blob), what `mlc run --verify-only` costs.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mlc.contract import params_digest
from mlc.npz import npz_bytes, read_npz
from mlc.runtime import GraphModule, load_module
from mlc.runtime.graph_module import pack_params
from mlc.runtime.package import PARAMS, extract_package

WIDTH = 1024


def build_model(path: pathlib.Path, size_mb: int) -> None:
    layers = max(1, size_mb * 2**20 // (WIDTH * WIDTH * 4))
    rng = np.random.default_rng(0)
    nodes, inits, x = [], [], "x"
    for i in range(layers):
        w = (rng.standard_normal((WIDTH, WIDTH), dtype=np.float32) / 32).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        y = "y" if i == layers - 1 else f"h{i}"
        nodes.append(helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"]))
        nodes.append(helper.make_node("Relu", [f"m{i}"], [y]))
        x = y
    graph = helper.make_graph(
        nodes,
        "big",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, WIDTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, WIDTH])],
        inits,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def npz_load_path(pkg: pathlib.Path, npz: bytes) -> np.ndarray:
    """The steps of the loader before params.bin (library checks and dlopen left out)."""
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-load-"))
    try:
        manifest, _ = extract_package(pkg, tmp)
        (tmp / "params.npz").write_bytes(npz)  # the member the old package held
        table = read_npz(tmp / "params.npz", "parameters")
        params_digest(manifest, table)
        return pack_params(manifest, table)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def median_s(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=350)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--work", type=pathlib.Path, default=pathlib.Path("build/bench-load"))
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    model, pkg = args.work / f"big{args.size_mb}.onnx", args.work / f"big{args.size_mb}.tar"
    if not pkg.is_file():
        build_model(model, args.size_mb)
        mlc = pathlib.Path(sys.executable).with_name("mlc")
        subprocess.run([str(mlc), "-q", "compile", str(model), "-o", str(pkg)], check=True)
    rt = load_module(pkg)
    npz = npz_bytes({p.name: np.array(v) for p, v in zip(rt.manifest.params, rt.params.values())})
    size = pkg.stat().st_size / 2**20
    new = median_s(lambda: GraphModule(load_module(pkg)), args.repeat)
    verified = median_s(lambda: GraphModule(load_module(pkg, verify_params=True)), args.repeat)
    old = median_s(lambda: npz_load_path(pkg, npz), args.repeat)
    print(f"package {pkg} ({size:.0f} MiB, {len(rt.manifest.params)} params, {PARAMS} mapped)")
    print(f"  new (load_module + GraphModule):     {new * 1e3:8.1f} ms")
    print(f"  new, verify_params=True:             {verified * 1e3:8.1f} ms")
    print(f"  npz path (extract, read, hash, pack): {old * 1e3:8.1f} ms")
    try:
        import onnxruntime as ort
    except ImportError:
        return 0
    session = (
        median_s(lambda: ort.InferenceSession(str(model)), args.repeat) if model.is_file() else 0
    )
    print(f"  onnxruntime InferenceSession(onnx):   {session * 1e3:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
