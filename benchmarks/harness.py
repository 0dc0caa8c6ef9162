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


def _close_widgets() -> None:
    """Close every ipywidget (ipywidgets keeps each one alive in a registry) and collect the garbage: the
    explorers of earlier rows would otherwise stay on the heap, and every full garbage collection during a row
    would walk them all (a notebook holds one explorer, not dozens)."""
    import gc

    import ipywidgets as widgets

    widgets.Widget.close_all()
    gc.collect()


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
    _close_widgets()
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


#: Seconds a student looks at the figure before the next change (the rows that say "after a 0.5 s pause").
STUDENT_PAUSE_S = 0.5


def keyboard_steps(widget, presses: int, direction: int = -1) -> list[Any]:
    """The values ``presses`` presses of an arrow key (``direction`` -1 left, +1 right) take a slider to, one step
    each from its current value: what :func:`dpviz.widgets.base.next_values` says of a copy moved along."""
    import ipywidgets as widgets

    from dpviz.widgets.base import next_values

    if not isinstance(widget, (widgets.FloatLogSlider, widgets.FloatSlider, widgets.IntSlider)):
        raise TypeError(f"keyboard_steps takes a slider, got {type(widget).__name__}")
    keys = ("min", "max", "step") + (("base",) if isinstance(widget, widgets.FloatLogSlider) else ())
    probe = type(widget)(value=widget.value, **{k: getattr(widget, k) for k in keys})
    out: list[Any] = []
    for _ in range(presses):
        ahead = [v for v in next_values(probe, steps=1) if (v > probe.value) == (direction > 0)]
        if not ahead:
            break
        probe.value = ahead[0]
        out.append(probe.value)
    return out


def student_rows(name: str, make: Callable[[], Any], control: str, values: Sequence[Any]) -> list[dict]:
    """Two first-visit rows of ``values``: with a :data:`STUDENT_PAUSE_S` pause before each change (a student
    reading the figure, while the explorer computes its next moves in the background), budget median < 50 ms,
    p95 < 100 ms; and back to back (every change computed in the call), budget twice that."""
    paused = first_visit_row(f"{name}, first visits, after a 0.5 s pause", make, control, values,
                             pause_s=STUDENT_PAUSE_S)
    quick = first_visit_row(f"{name}, first visits, back to back (no pause)", make, control, values)
    quick["budget_ms"], quick["p95_budget_ms"] = 100.0, 200.0
    return [paused, quick]
