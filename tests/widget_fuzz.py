"""A fuzzer of the explorers' controls: every control to its bounds, out of range, of the wrong type, then random moves.

For every explorer of ``dpviz.widgets.__all__`` (new explorers are picked up automatically):

1. each control is set to its smallest and largest values (must be accepted, shown as set, no message),
   then to values it cannot show -- below and above its range, NaN, a string, None, a bool for a number,
   a float for an integer, a value that is not one of its options (each must be refused: the control, the
   result and the figure unchanged, a message of dpviz's own naming the control, nothing raised);
2. ``changes`` random moves, three in ten of them bad;
3. the final figure must equal that of a fresh explorer built with the same control values.

Outcomes counted: ``clipped`` (a value changed without a message), ``raised`` (an exception reached the
caller), ``foreign`` (a message that is not dpviz's own: numpy's, traitlets', "unexpected ..."), ``stale``
(the final figure differs from a fresh explorer's).  ``python -m tests.widget_fuzz [changes]`` prints the
report (``make fuzz`` runs it with 1,600 changes per explorer); tests/test_widget_fuzz.py runs fewer.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from typing import Any

import ipywidgets as widgets
import numpy as np

import dpviz.widgets as dw
from dpviz.widgets.base import control_range

FOREIGN = ("unexpected", "cannot convert", "TraitError", "expected a float, not", "expected an int", "Traceback",
           "object has no attribute", "index out of", "division by zero")


def explorers() -> list[type]:
    """The explorer classes of ``dpviz.widgets.__all__``."""
    return [getattr(dw, n) for n in dw.__all__ if isinstance(getattr(dw, n), type)
            and issubclass(getattr(dw, n), dw.Explorer) and getattr(dw, n) is not dw.Explorer]


def _options(w: widgets.Widget) -> list[Any]:
    return [o[1] if isinstance(o, tuple) else o for o in w.options]


def valid_values(w: widgets.Widget, gen: np.random.Generator, k: int = 1) -> list[Any]:
    """k random values the control can show (drawn within its range or from its options)."""
    if isinstance(w, (widgets.Dropdown, widgets.ToggleButtons, widgets.RadioButtons, widgets.SelectionSlider,
                      widgets.Select)):
        opts = _options(w)
        return [opts[int(i)] for i in gen.integers(0, len(opts), k)]
    if isinstance(w, (widgets.Checkbox, widgets.ToggleButton)):
        return [bool(b) for b in gen.integers(0, 2, k)]
    bounds = control_range(w)
    if isinstance(w, (widgets.FloatRangeSlider, widgets.IntRangeSlider)):
        assert bounds is not None
        pairs = np.sort(gen.uniform(bounds[0], bounds[1], (k, 2)), axis=1)
        if isinstance(w, widgets.IntRangeSlider):
            return [tuple(int(round(v)) for v in p) for p in pairs]
        return [tuple(float(v) for v in p) for p in pairs]
    integer = isinstance(w, (widgets.IntSlider, widgets.BoundedIntText, widgets.IntText))
    if bounds is None:                                   # an unbounded text box: values near its current one
        base = float(w.value) or 1.0
        vals = base * np.exp(gen.uniform(-1.0, 1.0, k))
        return [int(round(v)) for v in vals] if integer else [float(v) for v in vals]
    lo, hi = bounds
    if integer:
        hi_draw = min(hi, lo + 10_000)                   # a seed box spans 2^31: stay where explorers are quick
        return [int(v) for v in gen.integers(lo, hi_draw + 1, k)]
    if isinstance(w, widgets.FloatLogSlider):
        return [float(w.base ** gen.uniform(w.min, w.max)) for _ in range(k)]
    return [float(v) for v in gen.uniform(lo, hi, k)]


def bad_values(w: widgets.Widget) -> list[Any]:
    """Values the control cannot show as they are."""
    out: list[Any] = ["not a value", None, [1, 2]]
    if isinstance(w, (widgets.Dropdown, widgets.ToggleButtons, widgets.RadioButtons, widgets.SelectionSlider,
                      widgets.Select)):
        return out + ["no such option", -12345]
    if isinstance(w, (widgets.Checkbox, widgets.ToggleButton)):
        return out + [1, "yes"]
    bounds = control_range(w)
    if isinstance(w, (widgets.FloatRangeSlider, widgets.IntRangeSlider)):
        assert bounds is not None
        lo, hi = bounds
        return out + [lo, (lo - 1 - abs(lo), hi), (lo, hi + 1 + abs(hi)), (float("nan"), hi), (lo, hi, hi)]
    out += [float("nan"), float("inf"), True]
    if bounds is not None:
        lo, hi = bounds
        out += [lo - 1 - abs(lo), hi + 1 + abs(hi)]
        if isinstance(w, widgets.FloatLogSlider):
            out += [-1.0, 0.0]
    if isinstance(w, (widgets.IntSlider, widgets.BoundedIntText, widgets.IntText)):
        out += [float(w.value) + 0.5]
    return out


def _figure_data(e: Any) -> list[dict]:
    """The figure's traces and layout, without plotly's random trace ids and without measured run times (the
    comparison explorer's hover shows each algorithm's milliseconds per release, which differ run to run)."""
    traces = []
    for t in e.figure.data:
        d = {k: v for k, v in t.to_plotly_json().items() if k != "uid"}
        if " ms per release" in str(d.get("hovertemplate", "")):
            d.pop("customdata", None)
        traces.append(d)
    return [*traces, e.figure.layout.to_plotly_json()]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, np.ndarray)) and isinstance(b, (list, tuple, np.ndarray)):
        a, b = np.asarray(a, dtype=object).ravel(), np.asarray(b, dtype=object).ravel()
        return a.shape == b.shape and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


def fuzz(cls: type, changes: int, seed: int = 0) -> tuple[Counter, list[str]]:
    """Run the fuzz on one explorer class; return the outcome counts and a description of every failure."""
    gen = np.random.default_rng(seed)
    counts: Counter = Counter()
    failures: list[str] = []
    e = cls()

    def attempt(name: str, value: Any, bad: bool) -> None:
        w = e.controls[name]
        before_value, before_result, before_fig = w.value, e.result, _figure_data(e)
        try:
            w.value = value
        except Exception as exc:  # noqa: BLE001 - what the fuzz is looking for
            counts["raised"] += 1
            failures.append(f"{cls.__name__}.{name} = {value!r}: raised {type(exc).__name__}: {exc}")
            return
        msg = e.message_text
        if any(f in msg for f in FOREIGN):
            counts["foreign"] += 1
            failures.append(f"{cls.__name__}.{name} = {value!r}: message {msg!r}")
        if bad:
            if w.value != before_value and not (isinstance(w.value, float) and math.isnan(w.value)):
                counts["clipped"] += 1
                failures.append(f"{cls.__name__}.{name} = {value!r}: control changed to {w.value!r}")
            elif name not in msg:
                counts["clipped"] += 1
                failures.append(f"{cls.__name__}.{name} = {value!r}: refused without naming the control: {msg!r}")
            elif e.result is not before_result or not _same(before_fig, _figure_data(e)):
                counts["clipped"] += 1
                failures.append(f"{cls.__name__}.{name} = {value!r}: refused but the figure changed")
            else:
                counts["refused"] += 1
        else:
            if _same(w.value, value):
                counts["accepted"] += 1
            elif _same(w.value, before_value) and f"{name} back to" in msg:
                counts["refused"] += 1          # in range, refused by the computation: the control went back
            else:
                counts["clipped"] += 1
                failures.append(f"{cls.__name__}.{name} = {value!r}: shown as {w.value!r}, message {msg!r}")

    for name, w in e.controls.items():
        bounds = control_range(w)
        if isinstance(w, (widgets.FloatRangeSlider, widgets.IntRangeSlider)):
            attempt(name, tuple(bounds), bad=False)
        elif bounds is not None and not isinstance(w, widgets.BoundedIntText):
            for v in bounds:
                attempt(name, int(v) if isinstance(w, widgets.IntSlider) else float(v), bad=False)
        for v in bad_values(w):
            attempt(name, v, bad=True)
    names = list(e.controls)
    for _ in range(changes):
        name = names[int(gen.integers(len(names)))]
        w = e.controls[name]
        if gen.random() < 0.3:
            vals = bad_values(w)
            attempt(name, vals[int(gen.integers(len(vals)))], bad=True)
        else:
            attempt(name, valid_values(w, gen)[0], bad=False)
    fresh = cls(**e.values)
    if not _same(_figure_data(fresh), _figure_data(e)):
        counts["stale"] += 1
        failures.append(f"{cls.__name__}: final figure differs from a fresh explorer's with {e.values}")
    return counts, failures


def main(argv: list[str]) -> int:
    changes = int(argv[0]) if argv else 1600
    total: Counter = Counter()
    bad = 0
    for cls in explorers():
        counts, failures = fuzz(cls, changes)
        total += counts
        print(f"{cls.__name__:32s} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        for f in failures[:10]:
            print("   ", f)
        bad += len(failures)
    print("total: " + ", ".join(f"{k} {v}" for k, v in sorted(total.items())))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
