"""The timing loop, made deterministic with a fake clock (no timing thresholds)."""

from __future__ import annotations

import numpy as np
import pytest

from mlc.runtime.benchmark import BenchmarkResult, time_function, time_interleaved


class FakeClock:
    """Each call of `fn` advances the clock by `cost` seconds; the timer reads it."""

    def __init__(self, costs: list[float] | float) -> None:
        self.now = 0.0
        self.calls = 0
        self.costs = costs

    def fn(self) -> None:
        cost = (
            self.costs
            if isinstance(self.costs, float)
            else self.costs[self.calls % len(self.costs)]
        )
        self.now += cost
        self.calls += 1

    def timer(self) -> float:
        return self.now


def test_calls_warmup_plus_number_times_repeat() -> None:
    clock = FakeClock(0.002)
    result = time_function(clock.fn, number=3, repeat=4, warmup=2, timer=clock.timer)
    assert clock.calls == 2 + 3 * 4
    assert result.number == 3 and result.repeat == 4 and result.warmup == 2
    np.testing.assert_allclose(result.samples, [0.002] * 4, rtol=1e-9)


def test_samples_are_per_call_means_and_warmup_is_not_timed() -> None:
    # warm-up call costs 1 s; then batches of 2 calls: (0.1+0.3)/2, (0.1+0.3)/2
    clock = FakeClock([1.0, 0.1, 0.3, 0.1, 0.3])
    result = time_function(clock.fn, number=2, repeat=2, warmup=1, timer=clock.timer)
    np.testing.assert_allclose(result.samples, [0.2, 0.2], rtol=1e-9)


def test_min_repeat_ms_grows_number_until_a_batch_lasts_long_enough() -> None:
    clock = FakeClock(1e-4)  # 0.1 ms per call; 5 ms wanted -> >= 50 calls per sample
    result = time_function(
        clock.fn, number=1, repeat=3, min_repeat_ms=5, warmup=0, timer=clock.timer
    )
    assert result.number >= 50
    assert result.number * 1e-4 >= 5e-3
    assert result.number <= 1000  # grown by prediction, not by blind doubling to a huge count
    calibration = clock.calls - result.number * 3
    assert calibration > 0  # calibration batches ran and were not recorded
    assert len(result.samples) == 3


def test_min_repeat_ms_keeps_number_when_already_long_enough() -> None:
    clock = FakeClock(0.01)
    result = time_function(
        clock.fn, number=4, repeat=2, min_repeat_ms=5, warmup=0, timer=clock.timer
    )
    assert result.number == 4 and clock.calls == 4 + 4 * 2


def test_statistics_and_table() -> None:
    samples = (0.001, 0.002, 0.004, 0.003, 0.010)
    r = BenchmarkResult(samples=samples, number=7, warmup=1)
    assert r.mean == pytest.approx(np.mean(samples))
    assert r.median == pytest.approx(0.003)
    assert r.std == pytest.approx(np.std(samples))
    assert (r.min, r.max) == (0.001, 0.010)
    assert r.p90 == pytest.approx(np.percentile(samples, 90))
    assert r.p99 == pytest.approx(np.percentile(samples, 99))
    lines = str(r).splitlines()
    assert lines[0] == "Execution time summary:"
    assert lines[1].split() == [
        "mean",
        "(ms)",
        "median",
        "(ms)",
        "max",
        "(ms)",
        "min",
        "(ms)",
        "std",
        "(ms)",
        "p90",
        "(ms)",
        "p99",
        "(ms)",
    ]
    values = [float(v) for v in lines[2].split()]
    np.testing.assert_allclose(
        values,
        [
            4.0,
            3.0,
            10.0,
            1.0,
            np.std(samples) * 1e3,
            np.percentile(samples, 90) * 1e3,
            np.percentile(samples, 99) * 1e3,
        ],
        atol=1e-4,
    )
    assert "5 samples of 7 runs" in lines[3]
    d = r.to_dict()
    assert d["unit"] == "ms" and d["number"] == 7 and d["repeat"] == 5
    np.testing.assert_allclose(d["samples"], [s * 1e3 for s in samples])


def test_interleaved_samples_alternate_and_number_follows_the_first() -> None:
    clock = FakeClock(0.0)
    order: list[str] = []

    def timed(name: str, cost: float):
        def fn() -> None:
            order.append(name)
            clock.now += cost

        return fn

    a, b = timed("a", 1e-4), timed("b", 3e-4)
    ra, rb = time_interleaved(
        [a, b], number=1, repeat=3, min_repeat_ms=1, warmup=1, timer=clock.timer
    )
    n = ra.number
    assert n >= 10 and rb.number == n  # calibrated on a: 0.1 ms per call, 1 ms per sample
    samples = order[-6 * n :]
    assert samples == (["a"] * n + ["b"] * n) * 3  # sample k of each before sample k + 1
    assert order[:2] == ["a", "b"]  # each warmed up
    np.testing.assert_allclose(ra.samples, [1e-4] * 3, rtol=1e-9)
    np.testing.assert_allclose(rb.samples, [3e-4] * 3, rtol=1e-9)
    with pytest.raises(ValueError, match="at least one function"):
        time_interleaved([])


def test_lead_in_calls_precede_each_sample_untimed() -> None:
    clock = FakeClock(0.0)
    order: list[str] = []

    def timed(name: str):
        def fn() -> None:
            order.append(name)
            clock.now += 1e-3 if order.count(name) % 3 == 1 else 1e-4  # lead-ins cost 1 ms

        return fn

    ra, rb = time_interleaved(
        [timed("a"), timed("b")], number=2, repeat=2, warmup=0, lead_in=1, timer=clock.timer
    )
    assert order == ["a"] * 3 + ["b"] * 3 + ["a"] * 3 + ["b"] * 3
    np.testing.assert_allclose(ra.samples + rb.samples, [1e-4] * 4, rtol=1e-9)
    with pytest.raises(ValueError, match="lead_in"):
        time_interleaved([lambda: None], lead_in=-1)


@pytest.mark.parametrize(
    "kwargs", [{"number": 0}, {"repeat": 0}, {"warmup": -1}, {"min_repeat_ms": -1.0}]
)
def test_invalid_arguments(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        time_function(lambda: None, **kwargs)
