"""Figures a student reads at a glance: labelled log ticks, numbers to the digits that matter, short legends.

* :func:`log_axis` -- a plotly log axis whose ticks are chosen here and labelled in full (``0.001, 0.002, 0.005,
  0.01``), never plotly's minor-tick digits (``5, 2, 0.01, 5, 2``) that make 0.05 read as 5.
* :func:`short` -- a number to 3 significant digits for titles and summaries (exact values go in hover text,
  formatted with :data:`HOVER_FORMAT`).
* :data:`MAX_LEGEND_ENTRIES` -- the most entries a legend may have; beyond it a figure labels its lines directly
  (:func:`direct_labels`), and pairs each colour with a dash or marker (:data:`DASHES`, :data:`MARKERS`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["log_axis", "log_ticks", "tick_text", "short", "direct_labels", "HOVER_FORMAT", "MAX_LEGEND_ENTRIES",
           "DASHES", "MPL_LINESTYLES", "MARKERS"]

#: Hover text keeps full precision (7 significant digits, trailing zeros dropped).
HOVER_FORMAT = ".7~g"
#: The most legend entries a figure shows (more are grouped or replaced by direct labels).
MAX_LEGEND_ENTRIES = 6
#: Line dashes and marker symbols to pair with colours, so no series is told apart by colour alone.
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot", "8px,3px,2px,3px,2px,3px", "1px,5px")
#: The same dashes for matplotlib (static figures).
MPL_LINESTYLES: tuple[Any, ...] = ("-", (0, (4, 2)), ":", "-.", (0, (9, 3)), (0, (9, 3, 2, 3)),
                                   (0, (8, 3, 2, 3, 2, 3)), (0, (1, 5)))
MARKERS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "star", "triangle-down")


def tick_text(value: float) -> str:
    """A tick label in full: ``0.002``, ``50``, ``20,000``, ``3M``; ``1e-05`` only below 0.0001.

    Parameters
    ----------
    value : float
        A positive tick value.

    Returns
    -------
    str
        The label, at most 3 significant digits.

    Examples
    --------
    >>> [tick_text(v) for v in (0.002, 0.05, 1.0, 20000.0, 1e-6, 3e7)]
    ['0.002', '0.05', '1', '20,000', '1e-06', '30M']
    """
    v = float(f"{float(value):.3g}")
    if v != 0 and abs(v) < 1e-4:
        return f"{v:.3g}"
    if abs(v) >= 1e9:
        return f"{v / 1e9:.3g}G"
    if abs(v) >= 1e6:
        return f"{v / 1e6:.3g}M"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def log_ticks(*values: ArrayLike, max_ticks: int = 9) -> list[float]:
    """Tick values for a log axis showing ``values``: every decade, with 2 and 5 between when <= 3 decades show.

    Parameters
    ----------
    *values : array_like
        The data the axis shows (non-positive and non-finite entries are ignored).
    max_ticks : int, default 9
        At most about this many ticks (decades are thinned to every 2nd, 3rd, ... when more span).

    Returns
    -------
    list of float
        The tick values (empty when no value is positive and finite).

    Examples
    --------
    >>> log_ticks([0.012, 0.3])
    [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
    >>> log_ticks([1.0, 1e6])
    [1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0, 1000000.0]
    """
    flat = [np.asarray(v, dtype=float).ravel() for v in values]
    data = np.concatenate(flat) if flat else np.zeros(0)
    data = data[np.isfinite(data) & (data > 0)]
    if data.size == 0:
        return []
    lo, hi = math.floor(math.log10(data.min())), math.ceil(math.log10(data.max()))
    hi = max(hi, lo + 1)
    decades = hi - lo
    if decades <= 3:
        # all of them: plotly draws only those inside the axis range, whatever padding autorange adds
        ticks = [float(f"{m * 10.0 ** e:.3g}") for e in range(lo, hi + 1) for m in (1, 2, 5)]
        return [t for t in ticks if t <= 10.0 ** hi * (1 + 1e-9)]
    step = max(1, math.ceil((decades + 1) / max_ticks))
    exps = list(range(lo, hi + 1, step))
    if exps[-1] < hi:   # thinned: one more tick so the top of the data is covered
        exps.append(exps[-1] + step)
    return [float(10.0 ** e) for e in exps]


def log_axis(*values: ArrayLike, **axis: Any) -> dict[str, Any]:
    """A plotly log-axis dict with ticks from :func:`log_ticks`, labelled by :func:`tick_text`.

    Parameters
    ----------
    *values : array_like
        The data the axis shows.
    **axis
        Other axis properties (``title``, ``domain``, ``anchor``, ``range`` ...).

    Returns
    -------
    dict
        ``type="log"`` with ``tickvals``/``ticktext`` (``dtick=1``, decades, when there is no positive data).

    Examples
    --------
    >>> log_axis([0.03, 0.4], title="error")["ticktext"]
    ['0.01', '0.02', '0.05', '0.1', '0.2', '0.5', '1']
    """
    ticks = log_ticks(*values)
    spec: dict[str, Any] = dict(type="log", **axis)
    if ticks:
        spec.update(tickmode="array", tickvals=ticks, ticktext=[tick_text(t) for t in ticks])
    else:
        spec.update(dtick=1)
    return spec


def short(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits for a title or summary (``20,755,668`` -> ``20.8M``).

    Parameters
    ----------
    value : float
        The number.
    digits : int, default 3
        Significant digits kept.

    Returns
    -------
    str
        The rounded number; integers below 10,000 stay as they are, larger numbers take k, M or G.

    Examples
    --------
    >>> short(2.052317), short(0.0123456), short(128.0), short(25714.0), short(20755668.0)
    ('2.05', '0.0123', '128', '25.7k', '20.8M')
    """
    v = float(value)
    if not math.isfinite(v):
        return str(v)
    if v == int(v) and abs(v) < 10_000:
        return f"{int(v)}"
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e4, "k")):
        if abs(v) >= size:
            scaled = float(f"{v / (size if unit != 'k' else 1e3):.{digits}g}")
            return f"{scaled:g}{unit}"
    return f"{v:.{digits}g}"


def direct_labels(labels: Sequence[str], x: float, y: ArrayLike, colors: Sequence[str], *, xaxis: str = "x",
                  yaxis: str = "y", log: bool = False, min_gap: float = 0.0) -> dict[str, Any]:
    """One plotly text trace naming lines at their right end (instead of a legend), pushed apart to not overlap.

    A single ``mode="text"`` scatter trace, not one annotation per line: plotly.js measures and places every
    annotation on each redraw, which cost about a tenth of the comparison explorer's redraw in the browser, while
    a text trace is drawn with the data.  It is not clipped to the plot area (the names run into the right
    margin), takes no hover and has no legend entry.

    Parameters
    ----------
    labels : sequence of str
        The name of each line.
    x : float
        Where the labels start, in data units (the lines' last x; the text runs to the right of it).
    y : array_like
        Each line's last y, in data units.
    colors : sequence of str
        Each line's colour (the label is written in it).
    xaxis, yaxis : str, default "x", "y"
        The axes the lines are drawn on.
    log : bool, default False
        Whether the y axis is logarithmic (``min_gap`` is then in decades).
    min_gap : float, default 0.0
        Smallest distance between two labels, in axis units (decades on a log axis).

    Returns
    -------
    dict
        The trace: one text per finite (positive, on a log axis) ``y``, in the order of ``labels``.

    Examples
    --------
    >>> t = direct_labels(["a", "b"], 10.0, [1.0, 1.05], ["#000", "#111"], min_gap=0.5)
    >>> t["text"], t["y"].round(2).tolist(), t["textfont"]["color"]
    (['a', 'b'], [1.0, 1.5], ['#000', '#111'])
    """
    ys = np.asarray(y, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        pos = np.log10(ys) if log else ys.copy()
    finite = [k for k in np.argsort(pos, kind="stable") if np.isfinite(pos[k])]
    placed: dict[int, float] = {}
    last = -math.inf
    for k in finite:
        p = max(float(pos[k]), last + min_gap)
        placed[int(k)] = last = p
    keep = sorted(placed)
    at = np.array([placed[k] for k in keep], dtype=float)
    return dict(type="scatter", mode="text", x=np.full(len(keep), float(x)), y=10.0 ** at if log else at,
                text=[labels[k] for k in keep], textposition="middle right",
                textfont=dict(color=[colors[k] for k in keep], size=11), cliponaxis=False, showlegend=False,
                hoverinfo="skip", name="line labels", xaxis=xaxis, yaxis=yaxis)
