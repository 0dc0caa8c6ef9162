"""The grid of main-control values an exported page is precomputed at: values the live control can show."""

from __future__ import annotations

import math
from typing import Any

import ipywidgets as widgets
import numpy as np

__all__ = ["grid_values", "GRID_SIZE"]

#: Number of grid points of an exported control (fewer when the control shows fewer values).
GRID_SIZE = 21


def _lattice(lo: float, hi: float, step: float) -> int:
    """The number of steps between ``lo`` and ``hi`` (the slider's positions are ``lo + k * step``)."""
    return int(math.floor((hi - lo) / step + 1e-9))


def _spread(positions: int, size: int, keep: int | None) -> list[int]:
    """``size`` of the ``positions + 1`` lattice indices, evenly spread, ends included, ``keep`` among them."""
    if positions + 1 <= size:
        return list(range(positions + 1))
    chosen = sorted({int(round(k)) for k in np.linspace(0, positions, size)})
    if keep is not None and keep not in chosen:
        nearest = min(range(1, len(chosen) - 1), key=lambda i: abs(chosen[i] - keep))
        chosen[nearest] = keep
        chosen.sort()
    return chosen


def grid_values(widget: widgets.Widget, size: int = GRID_SIZE) -> list[Any]:
    """Values of ``widget`` (a slider) to precompute an explorer at: on the slider's own steps.

    A log slider's grid is evenly spread in the exponent and snapped to its step, an integer or float slider's
    on its step, a selection slider's or a dropdown's are its options (all of them when there are at most
    ``size``).  The control's current value is one of the points when the slider can reach it.

    Parameters
    ----------
    widget : ipywidgets.Widget
        A FloatLogSlider, IntSlider, FloatSlider, SelectionSlider or Dropdown.
    size : int, default GRID_SIZE
        Largest number of points, >= 2.

    Returns
    -------
    list
        The values, increasing along the control.

    Raises
    ------
    TypeError
        If ``widget`` is not one of the controls above.
    ValueError
        If ``size`` < 2.

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> grid_values(widgets.IntSlider(value=4, min=2, max=8, step=2))
    [2, 4, 6, 8]
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 2:
        raise ValueError(f"size must be an integer >= 2, got {size!r}")
    if isinstance(widget, (widgets.SelectionSlider, widgets.Dropdown)):
        options = [o[1] if isinstance(o, tuple) else o for o in widget.options]
        return [options[k] for k in _spread(len(options) - 1, size, options.index(widget.value))]
    if isinstance(widget, widgets.FloatLogSlider):
        lo, step = float(widget.min), float(widget.step)
        positions = _lattice(lo, float(widget.max), step)
        at = (math.log(widget.value, widget.base) - lo) / step
        keep = int(round(at)) if abs(at - round(at)) < 1e-6 else None
        return [float(widget.base ** round(lo + k * step, 10)) for k in _spread(positions, size, keep)]
    if isinstance(widget, (widgets.IntSlider, widgets.FloatSlider)):
        lo, step = widget.min, widget.step
        positions = _lattice(lo, widget.max, step)
        at = (widget.value - lo) / step
        keep = int(round(at)) if abs(at - round(at)) < 1e-6 else None
        if isinstance(widget, widgets.IntSlider):
            return [int(lo + k * step) for k in _spread(positions, size, keep)]
        return [round(lo + k * step, 10) for k in _spread(positions, size, keep)]
    raise TypeError(f"cannot grid a {type(widget).__name__}: expected a slider or a dropdown")
