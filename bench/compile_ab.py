"""Compile time of one model, old vs new, in one process, alternating (issue 31 item 6).

    python bench/compile_ab.py resnet50.onnx --threads 2 --repeat 2

Builds: every upstream pass verified (the old PassManager) vs runs of upstream passes verified
once where they end. Code generation: the whole module on one ExecutionEngine
(MLC_CODEGEN_JOBS=1, cache off) vs split into units on 2 processes (cache off); then a warm
compile (build + jit whose units are all in the cache). Prints a JSON summary of CPU seconds
(this process + the workers it waited for): minima over the repeats, and the critical path
(import + build + the larger of this process's and the workers' code generation), which is the
wall time on two free cores. On a shared host wall-clock times mostly measure the others.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time


def now() -> tuple[float, float, float]:
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime, c.ru_utime + c.ru_stime, time.perf_counter()


def since(a: tuple[float, float, float]) -> list[float]:
    return [round(y - x, 2) for x, y in zip(a, now())]


def main() -> int:
    import mlc
    from mlc.frontend import from_onnx
    from mlc.passes.pass_manager import PassManager

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="an .onnx file (static shapes)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    grouped = PassManager._upstream_group

    def each(self: PassManager, steps: list, index: int) -> list[str]:
        return [str(steps[index])]

    a = now()
    module, params = from_onnx(args.model)
    res: dict[str, list] = {"import": since(a), "build_old": [], "build_new": []}
    res |= {"cg_whole": [], "cg_split": []}
    lib = None
    for r in range(args.repeat):
        for mode in ("old", "new") if r % 2 == 0 else ("new", "old"):
            PassManager._upstream_group = each if mode == "old" else grouped  # type: ignore
            a = now()
            lib = mlc.build(module, params, threads=args.threads)
            res["build_" + mode].append(since(a))
        PassManager._upstream_group = grouped  # type: ignore[method-assign]
        for mode in ("whole", "split") if r % 2 == 0 else ("split", "whole"):
            os.environ["MLC_CACHE_DIR"] = "off"
            os.environ["MLC_CODEGEN_JOBS"] = "1" if mode == "whole" else "2"
            a = now()
            lib.jit()  # type: ignore[union-attr]
            res["cg_" + mode].append(since(a))
    os.environ["MLC_CACHE_DIR"] = tempfile.mkdtemp(prefix="mlc-cache-")
    os.environ["MLC_CODEGEN_JOBS"] = "2"
    lib.jit()  # type: ignore[union-attr]  # fills the cache
    a = now()
    mlc.build(module, params, threads=args.threads).jit()
    warm = since(a)

    def best(key: str, i: int = 0) -> float:
        return min(x[i] for x in res[key])

    imp = res["import"][0]
    s = {
        "model": os.path.basename(args.model),
        "load": round(os.getloadavg()[0], 1),
        "import": imp,
        "build_old": best("build_old"),
        "build_new": best("build_new"),
        "cg_whole": best("cg_whole"),
        "cg_split_self": best("cg_split"),
        "cg_split_workers": best("cg_split", 1),
        "warm": round(imp + warm[0] + warm[1], 2),
    }
    s["before_cpu"] = round(imp + s["build_old"] + s["cg_whole"], 2)
    s["after_cpu"] = round(imp + s["build_new"] + s["cg_split_self"] + s["cg_split_workers"], 2)
    s["after_critical_path"] = round(
        imp + s["build_new"] + max(s["cg_split_self"], s["cg_split_workers"]), 2
    )
    print("RAW " + json.dumps(res))
    print("SUMMARY " + json.dumps(s), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
