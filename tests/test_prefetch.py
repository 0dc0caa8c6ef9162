"""The single-flight cache and its background warmer: same values as direct calls, one computation per key,
warming only when calls are quiet, no thread per call."""

from __future__ import annotations

import threading
import time

import pytest

from dpviz.experiments.prefetch import SingleFlight, single_flight


def _wait(predicate, timeout=10.0):
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        time.sleep(0.005)


def test_values_are_the_functions_and_cached_least_recently_used_first():
    calls = []
    f = SingleFlight(lambda x, y=0: calls.append(x) or (x, object()), maxsize=2)
    a = f(1)
    assert f(1) is a and a[0] == 1
    f(2)
    f(3)                      # evicts 1, the least recently used
    assert f(1) is not a and calls == [1, 2, 3, 1]
    assert f.cache_info() == (1, 4)
    f.cache_clear()
    assert f.cache_info() == (0, 0)


def test_errors_reach_the_caller_and_are_not_cached():
    attempts = []

    def flaky(x):
        attempts.append(x)
        if len(attempts) == 1:
            raise ValueError("first call fails")
        return x

    f = SingleFlight(flaky, maxsize=4)
    with pytest.raises(ValueError, match="first call fails"):
        f(5)
    assert f(5) == 5 and attempts == [5, 5]


def test_concurrent_calls_of_one_key_compute_once_and_share_the_result():
    started, release, count = threading.Event(), threading.Event(), []

    def slow(x):
        count.append(x)
        started.set()
        release.wait(5)
        return object()

    f = SingleFlight(slow, maxsize=4)
    results = []
    first = threading.Thread(target=lambda: results.append(f(1)))
    first.start()
    started.wait(5)
    second = threading.Thread(target=lambda: results.append(f(1)))
    second.start()
    time.sleep(0.05)
    release.set()
    first.join(5)
    second.join(5)
    assert len(count) == 1 and len(results) == 2 and results[0] is results[1]


def test_warming_computes_in_the_background_and_a_call_gets_the_same_value():
    f = SingleFlight(lambda x: [x * 2], maxsize=8, idle=0.0)
    f.warm([(1,), (2,), (3,)])
    _wait(lambda: f.pending() == 0)
    hits_before = f.cache_info()[0]
    assert f(2) == [4] and f.cache_info()[0] == hits_before + 1   # a hit: computed by the warmer
    assert f(2) is f(2)


def test_a_new_warm_replaces_the_keys_still_waiting():
    started, done = [], []
    gate = threading.Event()

    def work(x):
        started.append(x)
        if x == 0:
            gate.wait(5)
        done.append(x)
        return x

    f = SingleFlight(work, maxsize=16, idle=0.0)
    f.warm([(0,), (1,), (2,)])
    _wait(lambda: started == [0])
    assert f.pending() == 3                              # 0 in progress, 1 and 2 waiting
    f.warm([(7,)])
    gate.set()
    _wait(lambda: f.pending() == 0)
    assert done == [0, 7]


def test_the_warmer_waits_for_quiet_and_for_calls_to_finish():
    order = []
    gate = threading.Event()

    def work(x):
        order.append(("start", x))
        if x == "foreground":
            gate.wait(5)
        return x

    f = SingleFlight(work, maxsize=16, idle=0.2)
    caller = threading.Thread(target=lambda: f("foreground"))
    caller.start()
    _wait(lambda: ("start", "foreground") in order)
    f.warm([("background",)])
    time.sleep(0.4)                          # quiet long enough, but a call is still computing
    assert ("start", "background") not in order
    gate.set()
    caller.join(5)
    t0 = time.monotonic()
    _wait(lambda: ("start", "background") in order)
    assert time.monotonic() - t0 >= 0.1     # and then only after `idle` seconds of quiet


def test_one_background_thread_per_cache_however_often_it_is_warmed_and_none_when_idle():
    f = SingleFlight(lambda x: time.sleep(0.001) or x, maxsize=4, idle=0.0)

    def warmers():
        return [t for t in threading.enumerate() if t.name == "dpviz-warm-<lambda>" and t.is_alive()]

    most = 0
    for i in range(50):
        f.warm([(i,), (i + 1,)])
        most = max(most, len(warmers()))
    assert most <= 1
    _wait(lambda: f.pending() == 0)
    _wait(lambda: not warmers())        # the thread ends once nothing waits


@pytest.mark.parametrize("kwargs", [{"maxsize": 0}, {"maxsize": 2.5}, {"maxsize": True}, {"idle": -1.0},
                                    {"idle": float("nan")}, {"idle": float("inf")}])
def test_bad_settings_are_refused_by_name(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        single_flight(**{"maxsize": 4, **kwargs})
