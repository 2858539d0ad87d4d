"""What every benchmark script shares: onnxruntime configured as mlc's peer, and timing peers
in alternating rounds in one process (machine noise hits both alike).

onnxruntime runs with ORT_ENABLE_ALL, sequential execution and `intra_op_num_threads` =
threads. Between turns the process sleeps SETTLE_S: both peers' worker threads keep spinning
after a run (onnxruntime's pool; mlc's OpenMP threads) and would steal the next peer's cores.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from mlc.runtime.benchmark import time_function

SETTLE_S = 0.3


def ort_session(model: object, threads: int = 1):  # type: ignore[no-untyped-def]
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), options)  # type: ignore[attr-defined]


def alternate(
    peers: Mapping[str, Callable[[], object]],
    rounds: int,
    number: int,
    settle: float = SETTLE_S,
    timer: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Seconds per call of each peer: `rounds` rounds, each one untimed call then `number`
    timed calls per peer in turn, the turns' order rotated by one each round (no peer always
    runs first after the pause; two identical models timed so differed by 1-5 %, either way).
    `timer=time.process_time` counts CPU time instead (the process's, all threads together):
    on a loaded host it is far steadier at one thread."""
    samples: dict[str, list[float]] = {name: [] for name in peers}
    names = list(peers)
    for turn in range(rounds):
        for name in names[turn % len(names) :] + names[: turn % len(names)]:
            fn = peers[name]
            result = time_function(fn, number=1, repeat=number, warmup=1, timer=timer)
            samples[name] += result.samples
            time.sleep(settle)
    return samples


def paired_ratio(numerator: list[float], denominator: list[float], number: int) -> float:
    """The median over rounds of (median of `numerator`'s calls in that round) / (the same of
    `denominator`'s): samples as `alternate` returns them, `number` per peer per round. The two
    peers of a round run a second apart, so a host whose speed drifts over seconds (a shared
    VM: one kernel's latency moved 1.2-2.4 ms within a minute) shifts both alike; the ratio of
    the overall medians instead compares calls made up to minutes apart."""
    ratios = [
        float(np.median(numerator[i : i + number]) / np.median(denominator[i : i + number]))
        for i in range(0, min(len(numerator), len(denominator)), number)
    ]
    return float(np.median(ratios))


def median_ms(samples: list[float]) -> float:
    return 1e3 * float(np.median(samples))


def max_rel_error(got: Sequence[np.ndarray], want: Sequence[np.ndarray]) -> float:
    """max |got - want| / max |want| over all outputs."""
    error = 0.0
    for g, w in zip(got, want, strict=True):
        scale = max(float(np.abs(w).max()), 1e-30)
        error = max(error, float(np.abs(g.astype(np.float64) - w).max()) / scale)
    return error


def single_op(
    name: str,
    model: object,
    feeds: Mapping[str, np.ndarray],
    rounds: int,
    number: int,
    timer: Callable[[], float] = time.perf_counter,
) -> None:
    """One ONNX model of one op: mlc (1 thread) vs onnxruntime, printed as one line."""
    import mlc
    from mlc.runtime import GraphModule

    gm = GraphModule(mlc.build(*mlc.from_onnx(model), threads=1).jit())
    for k, v in feeds.items():
        gm.set_input(k, v)
    session = ort_session(model, 1)
    ms = alternate(
        {"mlc": gm.run, "ort": lambda: session.run(None, dict(feeds))}, rounds, number, 0.2, timer
    )
    gm.run()
    error = max_rel_error([gm.get_output(0)], session.run(None, dict(feeds))[:1])
    m, o = median_ms(ms["mlc"]), median_ms(ms["ort"])
    print(f"{name:24s} mlc {m:8.3f} ms  ort {o:8.3f} ms  ratio {o / m:5.2f}  rel err {error:.1e}")


def run_single_ops(
    cases: Mapping[str, Callable[[], tuple[object, Mapping[str, np.ndarray]]]], argv: list[str]
) -> int:
    """`single_op` for every case whose name contains one of `argv` (all without arguments);
    `--cpu-time` in argv times CPU time instead of wall-clock time."""
    timer = time.process_time if "--cpu-time" in argv else time.perf_counter
    words = [w for w in argv if w != "--cpu-time"]
    for name, make in cases.items():
        if not words or any(w in name for w in words):
            model, feeds = make()
            single_op(name, model, feeds, rounds=5, number=10, timer=timer)
    return 0


def write_section(text: str, path: str | None) -> None:
    """Append a markdown section to `path` (a results file), if given."""
    if path:
        with open(path, "a") as f:
            f.write("\n" + text)
