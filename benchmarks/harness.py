"""Timing helpers shared by the benchmark modules.

Each ``benchmarks/bench_<topic>.py`` exposes ``run() -> list[dict]`` with rows
``{"name", "median_ms", "p95_ms", "budget_ms"}``; ``python -m benchmarks``
collects and prints them against their budgets.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def row(name: str, times_ms: Sequence[float], budget_ms: float, *, p95_budget_ms: float | None = None,
        unit: str = "ms") -> dict:
    """Summarise repeated timings (milliseconds) as a result row.

    ``unit`` other than "ms" marks a row whose figure is not a time (e.g. an error ratio against a reference,
    with its budget in the same unit); it is printed beside the name.
    """
    t = np.asarray(times_ms, dtype=float)
    return {"name": name if unit == "ms" else f"{name} [{unit}]", "median_ms": float(np.median(t)),
            "p95_ms": float(np.percentile(t, 95)), "budget_ms": float(budget_ms), "p95_budget_ms": p95_budget_ms,
            "n": int(t.size), "unit": unit}


def time_call(fn: Callable[[], Any], repeats: int = 30, warmup: int = 2) -> list[float]:
    """Wall times of ``fn()`` in milliseconds over ``repeats`` calls, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def measure_explorer(explorer, control: str, values: Sequence[Any], changes: int = 40,
                     allow_messages: bool = False) -> list[float]:
    """Latency (ms) from setting ``explorer.controls[control].value`` to the figure updated.

    Cycles through ``values`` (consecutive values must differ so each set fires
    an update) for ``changes`` changes, headless: the observer runs the compute
    and the in-place ``FigureWidget`` update synchronously, so the wall time of
    the assignment is the control-to-redraw latency.  Fails loudly if an
    update reports an error.
    """
    widget = explorer.controls[control]
    out = []
    for v in itertools.islice(itertools.cycle(values), changes):
        if widget.value == v:
            continue
        t0 = time.perf_counter()
        widget.value = v
        out.append((time.perf_counter() - t0) * 1e3)
        if explorer.message.value and not allow_messages:
            raise RuntimeError(f"{type(explorer).__name__} failed on {control}={v!r}: {explorer.message_text}")
    return out


def explorer_row(name: str, explorer, control: str, values: Sequence[Any], changes: int = 40,
                 allow_messages: bool = False) -> dict:
    """A result row for an explorer's control-to-redraw latency: budget median < 50 ms, p95 < 100 ms."""
    times = measure_explorer(explorer, control, values, changes, allow_messages)
    return row(name, times, 50.0, p95_budget_ms=100.0)


def wait_for_warmers(timeout_s: float = 120.0) -> float:
    """Wait until no dpviz background warm-up (:class:`dpviz.experiments.prefetch.SingleFlight`) has work left;
    return the seconds waited.  A row that follows another must not share the processor with the warm-ups the
    earlier row's explorer queued (in a notebook one explorer is moved at a time)."""
    from dpviz.experiments.prefetch import SingleFlight

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout_s:
        busy = [obj for name, module in list(sys.modules.items()) if name.startswith("dpviz")
                for obj in list(vars(module).values()) if isinstance(obj, SingleFlight) and obj.pending()]
        if not busy:
            break
        time.sleep(0.05)
    return time.perf_counter() - t0


def clear_caches() -> int:
    """Empty every cache of every loaded dpviz module (``functools`` caches and warmed caches); return how many.

    A first-visit row starts from here, so no value it visits was computed before, by a
    previous row or by a background warm-up.
    """
    cleared = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("dpviz"):
            continue
        for obj in list(vars(module).values()):
            clear = getattr(obj, "cache_clear", None)
            if callable(clear) and not isinstance(obj, type):
                clear()
                cleared += 1
    return cleared


def first_visit_row(name: str, make: Callable[[], Any], control: str, values: Sequence[Any], *,
                    pause_s: float = 0.0, allow_messages: bool = False) -> dict:
    """Latency of the first visit of each of ``values``: caches cleared, a fresh explorer, each value set once.

    ``values`` must be distinct and differ from the control's starting value.  ``pause_s``
    waits that long before each change, as a student reading the figure would, which gives
    an explorer that prepares its next moves in the background the time to do so; without
    it the changes come back to back.  Budget: median < 50 ms, p95 < 100 ms.
    """
    if len(set(map(repr, values))) != len(values):
        raise ValueError(f"{name}: first-visit values must be distinct, got {values!r}")
    wait_for_warmers()
    clear_caches()
    explorer = make()
    widget = explorer.controls[control]
    if any(widget.value == v for v in values):
        raise ValueError(f"{name}: {widget.value!r} is the starting value, not a first visit")
    out = []
    for v in values:
        if pause_s:
            time.sleep(pause_s)
        t0 = time.perf_counter()
        widget.value = v
        out.append((time.perf_counter() - t0) * 1e3)
        if explorer.message.value and not allow_messages:
            raise RuntimeError(f"{type(explorer).__name__} failed on {control}={v!r}: {explorer.message_text}")
    return row(name, out, 50.0, p95_budget_ms=100.0)
