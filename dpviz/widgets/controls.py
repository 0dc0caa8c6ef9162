"""The controls of an explorer: sliders built alike, the values one keyboard step away, and guards.

Every control is *guarded* (:func:`guard_control`): a value it cannot show (out of range, of the wrong type, not one of
its options, NaN) is refused before ipywidgets would clip or coerce it -- from Python or from the browser -- and
the explorer names the control, the value and what is allowed.  :func:`next_values` says where a keyboard step
takes a control, for explorers that prepare their next moves while the student reads the figure.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import numpy as np
import traitlets

__all__ = ["log_slider", "int_slider", "seed_box", "SEED_MAX", "control_range", "next_values", "guard_control",
           "set_initial_value", "short_value"]


def log_slider(value: float, lo_exp: float, hi_exp: float, label: str, step: float = 0.01) -> widgets.FloatLogSlider:
    """A base-10 log slider from ``10**lo_exp`` to ``10**hi_exp`` with a descriptive label.

    Parameters
    ----------
    value : float
        Starting value.
    lo_exp, hi_exp : float
        Base-10 exponents of the smallest and largest value.
    label : str
        Description shown beside the slider.
    step : float, default 0.01
        Step of the exponent.

    Returns
    -------
    ipywidgets.FloatLogSlider
        The slider (it updates on release, not while dragging).
    """
    return widgets.FloatLogSlider(value=value, base=10, min=lo_exp, max=hi_exp, step=step, description=label,
                                  continuous_update=False, readout_format=".3g",
                                  style={"description_width": "initial"}, layout=widgets.Layout(width="420px"))


def int_slider(value: int, lo: int, hi: int, label: str, step: int = 1) -> widgets.IntSlider:
    """An integer slider with a descriptive label.

    Parameters
    ----------
    value : int
        Starting value.
    lo, hi : int
        Smallest and largest value.
    label : str
        Description shown beside the slider.
    step : int, default 1
        Step between values.

    Returns
    -------
    ipywidgets.IntSlider
        The slider (it updates on release, not while dragging).
    """
    return widgets.IntSlider(value=value, min=lo, max=hi, step=step, description=label, continuous_update=False,
                             style={"description_width": "initial"}, layout=widgets.Layout(width="420px"))


#: Largest seed a seed box takes.
SEED_MAX = 2**31 - 1


def seed_box(value: int = 0) -> widgets.BoundedIntText:
    """The random seed control (every explorer is reproducible from its seed).

    Parameters
    ----------
    value : int, default 0
        Starting seed, in ``[0, 2**31 - 1]``.

    Returns
    -------
    ipywidgets.BoundedIntText
        The seed box.
    """
    return widgets.BoundedIntText(value=value, min=0, max=SEED_MAX, description="seed",
                                  style={"description_width": "initial"}, layout=widgets.Layout(width="160px"))


def control_range(widget: widgets.Widget) -> tuple[float, float] | None:
    """``(low, high)`` of the values a bounded control can show (a log slider's in value units), else None.

    Parameters
    ----------
    widget : ipywidgets.Widget
        A control.

    Returns
    -------
    tuple of float or None
        The bounds, or None for an unbounded control (text box, toggle buttons).
    """
    if isinstance(widget, widgets.FloatLogSlider):
        return widget.base ** widget.min, widget.base ** widget.max
    if "_dpviz_bounds" in widget.__dict__:       # a guarded number box: its range is kept here (guard_control)
        return widget.__dict__["_dpviz_bounds"]
    lo, hi = getattr(widget, "min", None), getattr(widget, "max", None)
    return None if lo is None or hi is None else (lo, hi)


def next_values(widget: widgets.Widget, steps: int = 2) -> list[Any]:
    """The values a student reaches next with ``widget``: up to ``steps`` keyboard steps down and up (nearest
    first), or the neighbouring options of a dropdown; [] for other controls.

    A log slider's steps are steps of its exponent, as in the browser.

    Parameters
    ----------
    widget : ipywidgets.Widget
        A control.
    steps : int, default 2
        How many steps each way.

    Returns
    -------
    list
        The values, nearest first, inside the control's range.

    Examples
    --------
    >>> next_values(widgets.IntSlider(value=3, min=0, max=4))
    [2, 4, 1]
    >>> [round(v, 4) for v in next_values(log_slider(0.1, -3, 1, "epsilon"), steps=1)]
    [0.0977, 0.1023]
    """
    out: list[Any] = []
    if isinstance(widget, widgets.Dropdown):
        values = [v for _, v in widget.options] if widget.options and isinstance(widget.options[0], tuple) else list(
            widget.options)
        if widget.value in values:
            i = values.index(widget.value)
            out = [values[j] for k in range(1, steps + 1) for j in (i - k, i + k) if 0 <= j < len(values)]
        return out
    if isinstance(widget, widgets.FloatLogSlider):
        e = math.log(widget.value, widget.base)
        position = round((e - widget.min) / widget.step)
        for k in range(1, steps + 1):
            for j in (position - k, position + k):
                exponent = widget.min + j * widget.step
                if widget.min - 1e-9 <= exponent <= widget.max + 1e-9:
                    out.append(widget.base ** exponent)
        return out
    if isinstance(widget, (widgets.IntSlider, widgets.FloatSlider, widgets.BoundedIntText)):
        step = getattr(widget, "step", 1) or 1
        lo, hi = control_range(widget) or (widget.min, widget.max)
        for k in range(1, steps + 1):
            out += [v for v in (widget.value - k * step, widget.value + k * step) if lo <= v <= hi]
    return out


_INT_WIDGETS = (widgets.IntSlider, widgets.BoundedIntText, widgets.IntText, widgets.IntRangeSlider)
_FLOAT_WIDGETS = (widgets.FloatSlider, widgets.FloatLogSlider, widgets.BoundedFloatText, widgets.FloatText,
                  widgets.FloatRangeSlider)
_FLAG_WIDGETS = (widgets.Checkbox, widgets.ToggleButton)


def _check_kind(name: str, widget: widgets.Widget, value: Any) -> None:
    """Refuse a starting value of the wrong kind: ipywidgets would round 2.5 to 2, read 1 as True, or accept NaN."""
    parts = value if isinstance(widget, (widgets.FloatRangeSlider, widgets.IntRangeSlider)) else (value,)
    if isinstance(widget, (widgets.FloatRangeSlider, widgets.IntRangeSlider)) and (
            not isinstance(value, (tuple, list)) or len(value) != 2):
        raise TypeError(f"{name} must be a pair (low, high), got {value!r}")
    if isinstance(widget, _INT_WIDGETS):
        for v in parts:
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"{name} must be an integer, got {v!r} ({type(v).__name__})")
    elif isinstance(widget, _FLOAT_WIDGETS):
        for v in parts:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"{name} must be a number, got {v!r} ({type(v).__name__})")
            if not math.isfinite(float(v)):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
    elif isinstance(widget, _FLAG_WIDGETS):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    elif isinstance(widget, (widgets.Dropdown, widgets.RadioButtons, widgets.ToggleButtons, widgets.Select,
                             widgets.SelectionSlider)):
        allowed = [o[1] if isinstance(o, tuple) else o for o in widget.options]
        if not any(value == a and isinstance(value, bool) == isinstance(a, bool) for a in allowed):
            raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def _check_value(name: str, widget: widgets.Widget, value: Any) -> None:
    """Raise a named ValueError/TypeError if ``widget`` cannot show ``value`` as it is (no clipping, no casting)."""
    _check_kind(name, widget, value)
    bounds = control_range(widget)
    if bounds is not None:
        lo, hi = bounds
        parts = value if isinstance(widget, (widgets.FloatRangeSlider, widgets.IntRangeSlider)) else (value,)
        for v in parts:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"{name} must be a number, got {v!r} ({type(v).__name__})")
            if not math.isfinite(float(v)):
                raise ValueError(f"{name} must be a finite number in [{lo:g}, {hi:g}], got {v!r}")
            if not (lo * (1 - 1e-12) - 1e-300 <= float(v) <= hi * (1 + 1e-12) + 1e-300):
                raise ValueError(f"{name} = {v!r} is outside this explorer's range [{lo:g}, {hi:g}]")


class _Guarded:
    """Mixin of a guarded control (see the module docstring): a refused value never reaches the trait.

    Both Python assignments (``__setattr__``) and the browser's updates (``set_trait``, through which
    ipywidgets applies a front-end change) are checked; a refused browser value is answered by sending the
    kept value back, so the control shows what the explorer uses.
    """

    _dpviz_name: str
    _dpviz_refused: Callable[[str], None]

    def _dpviz_accepts(self, value: Any) -> bool:
        try:
            _check_value(self._dpviz_name, self, value)
        except (TypeError, ValueError) as exc:
            self._dpviz_refused(f"{exc}; {self._dpviz_name} stays at {short_value(self.value)}")  # type: ignore[attr-defined]
            return False
        return True

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "value" and "_dpviz_name" in self.__dict__ and not self._dpviz_accepts(value):
            return
        super().__setattr__(name, value)

    def set_trait(self, name: str, value: Any) -> None:
        if name == "value" and "_dpviz_name" in self.__dict__ and not self._dpviz_accepts(value):
            self.send_state("value")   # type: ignore[attr-defined]
            return
        super().set_trait(name, value)  # type: ignore[misc]


_GUARDED: dict[type, type] = {}


def guard_control(name: str, widget: widgets.Widget, refused: Callable[[str], None]) -> None:
    """Make ``widget`` a guarded control named ``name`` whose refusals go to ``refused(message)``.

    Parameters
    ----------
    name : str
        The control's name in the explorer (used in the refusal messages).
    widget : ipywidgets.Widget
        The control; its class becomes a guarded subclass of its own class.
    refused : callable
        Called with the message when a value is refused (the explorer shows it).
    """
    cls = type(widget)
    if cls not in _GUARDED:
        _GUARDED[cls] = type(f"Guarded{cls.__name__}", (_Guarded, cls), {})
    bounds = control_range(widget)
    if bounds is not None and isinstance(widget, (widgets.BoundedFloatText, widgets.BoundedIntText)):
        # the browser clamps a typed number into the box's min/max before the kernel sees it (10x the maximum
        # became the maximum, silently); the range is kept here instead and the box's own made wide, so a typed
        # value out of range reaches the guard, which refuses it, says so and puts the kept value back
        widget.__dict__["_dpviz_bounds"] = bounds
        wide = 2**53 if isinstance(widget, widgets.BoundedIntText) else 1.7976931348623157e308
        widget.max, widget.min = wide, -wide
        widget.tooltip = f"{name}: from {bounds[0]:g} to {bounds[1]:g}"   # a text box does not show its range
    widget.__class__ = _GUARDED[cls]
    widget.__dict__["_dpviz_name"] = name
    widget.__dict__["_dpviz_refused"] = refused


def set_initial_value(name: str, widget: widgets.Widget, value: Any) -> None:
    """Set a control's starting value, refusing (not clipping) one the control cannot show.

    ipywidgets' bounded sliders silently clip an out-of-range value; an explorer
    built with ``epsilon=-1`` must say so instead of running at the slider's minimum.

    Parameters
    ----------
    name : str
        The control's name in the explorer (used in the error message).
    widget : ipywidgets.Widget
        The control.
    value : object
        The starting value.

    Raises
    ------
    ValueError
        If the control cannot show ``value`` (out of range, NaN, not one of its options).
    TypeError
        If ``value`` is of a type the control does not take.
    """
    _check_value(name, widget, value)
    try:
        widget.value = value
    except traitlets.TraitError as exc:
        options = getattr(widget, "options", None)
        allowed = f"; allowed: {[o[1] if isinstance(o, tuple) else o for o in options]}" if options else ""
        raise ValueError(f"{name} = {value!r} is not a value this control accepts{allowed}") from exc


def short_value(v: Any) -> str:
    """A control value for ``repr``: floats to 4 significant digits.

    Parameters
    ----------
    v : object
        The value.

    Returns
    -------
    str
        ``f"{v:.4g}"`` for a float, ``repr(v)`` otherwise.

    Examples
    --------
    >>> short_value(0.123456), short_value("laplace")
    ('0.1235', "'laplace'")
    """
    return f"{v:.4g}" if isinstance(v, float) else repr(v)
