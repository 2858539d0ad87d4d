"""The MLC course's mm_relu written in tp script, scheduled step by step with `mlc.tp.Schedule`;
each version's output is checked against numpy and timed next to numpy (alternating rounds,
medians). `python bench/bench_tp_schedule.py [--n 128] [--rounds 7] [--threads 2]`"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import mlc
from mlc import tp as T


def mm_relu(n: int) -> T.PrimFunc:
    return T.parse_script(
        f"""
def mm_relu(A: T.Buffer(({n}, {n}), "float32"), B: T.Buffer(({n}, {n}), "float32"),
            C: T.Buffer(({n}, {n}), "float32")):
    Y = T.alloc_buffer(({n}, {n}), "float32")
    for i, j, k in T.grid({n}, {n}, {n}):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid({n}, {n}):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
""",
        "mm_relu.py",
    )


def steps(n: int, threads: int) -> list[tuple[str, Callable[..., None]]]:
    """(label, kernel) after each schedule step, as the course transforms mm_relu."""
    func = mm_relu(n)
    out = [("original (i, j, k)", T.build(func))]
    sch = T.Schedule(func)
    i, j, k = sch.get_loops("Y")
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(j0, k, j1)
    out.append(("split j by 8, reorder j0, k, j1", T.build(sch)))
    sch.vectorize(j1)
    out.append(("+ vectorize j1", T.build(sch)))
    i0, i1 = sch.split(i, [None, 4])
    sch.reorder(i0, j0, k, i1, j1)
    sch.unroll(i1)
    out.append(
        ("+ split i by 4, reorder i0, j0, k, i1, j1, unroll i1 (register tile)", T.build(sch))
    )
    if threads > 1:
        sch.parallel(i0)
        out.append((f"+ parallel i0 ({threads} threads)", T.build(sch, threads=threads)))
    default = func.copy()  # what mlc's own scheduler picks for the same function
    mlc.PassManager.parse("builtin.module(tp-default-schedule)").run(default.module)
    out.append(("mlc's tp-default-schedule (1 thread)", T.build(default)))
    print("final schedule:\n" + sch.show() + "\n\ntrace:\n" + sch.trace() + "\n")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--number", type=int, default=20, help="calls per timing sample")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((args.n, args.n), dtype=np.float32)
    b = rng.standard_normal((args.n, args.n), dtype=np.float32)
    ref = np.maximum(a @ b, 0)
    c = np.empty_like(ref)
    versions = steps(args.n, args.threads)
    peers: list[tuple[str, Callable[[], object]]] = [("numpy", lambda: np.maximum(a @ b, 0))]
    for label, kernel in versions:
        c.fill(np.nan)
        kernel(a, b, c)
        np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-4, err_msg=label)
        peers.append((label, kernel.bind(a, b, c)))  # one foreign call per run
    times: dict[str, list[float]] = {label: [] for label, _ in peers}
    for _ in range(args.rounds):
        for label, run in peers:
            run()
            start = time.perf_counter()
            for _ in range(args.number):
                run()
            times[label].append((time.perf_counter() - start) / args.number * 1e3)
    base = statistics.median(times["numpy"])
    print(f"mm_relu {args.n}x{args.n}x{args.n}, every version equal to numpy (rtol 1e-4)\n")
    print("| version | median (ms) | numpy / version |")
    print("|---|---|---|")
    for label, _ in peers:
        med = statistics.median(times[label])
        print(f"| {label} | {med:.3f} | {base / med:.2f} |")


if __name__ == "__main__":
    main()
