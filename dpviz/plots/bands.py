"""Drawing primitives shared by every figure: truth, mean and a shaded band, in plotly and matplotlib.

Plot functions only draw: they take numbers computed elsewhere and return a
figure or axes; they never sample and never call ``show()``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from plotly.basedatatypes import Undefined

from dpviz.plots.palette import band_fill
from dpviz.validation import check_bool

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plotly_band", "plotly_line", "mpl_band", "sync_figure", "patch_figure", "replace_figure", "new_axes"]


def plotly_band(x: ArrayLike, lower: ArrayLike, upper: ArrayLike, *, name: str, color: str,
                legendgroup: str | None = None, hover: str = "%{y:.7~g}") -> list[go.Scatter]:
    """Two traces drawing a filled band between ``lower`` and ``upper`` (the upper edge carries the legend).

    Parameters
    ----------
    x : array_like
        Positions along the x axis.
    lower, upper : array_like
        The band's edges at each ``x``.
    name : str
        Legend and hover name of the band.
    color : str
        Hex colour of the edges; the fill is a translucent version of it.
    legendgroup : str, optional
        Plotly legend group (default ``name``), so both traces toggle together.
    hover : str, default "%{y:.7~g}"
        Plotly hover format of the values.

    Returns
    -------
    list of plotly.graph_objects.Scatter
        The lower edge, then the upper edge filled down to it.
    """
    x = np.asarray(x)
    group = legendgroup or name
    return [
        go.Scatter(x=x, y=np.asarray(lower), mode="lines", line=dict(width=0, color=color), showlegend=False,
                   legendgroup=group, name=f"{name} (lower)", hovertemplate=f"{name} lower: {hover}<extra></extra>"),
        go.Scatter(x=x, y=np.asarray(upper), mode="lines", line=dict(width=0, color=color), fill="tonexty",
                   fillcolor=band_fill(color), name=name, legendgroup=group,
                   hovertemplate=f"{name} upper: {hover}<extra></extra>"),
    ]


def plotly_line(x: ArrayLike, y: ArrayLike, *, name: str, color: str, dash: str | None = None,
                mode: str = "lines", hover: str = "%{y:.7~g}", **kwargs: Any) -> go.Scatter:
    """A named line (or marker) trace with exact values in its hover text.

    Parameters
    ----------
    x, y : array_like
        The points.
    name : str
        Legend and hover name.
    color : str
        Colour of the line and markers.
    dash : str, optional
        Plotly dash style (e.g. ``"dot"``); solid if None.
    mode : str, default "lines"
        Plotly drawing mode (``"lines"``, ``"markers"``, ``"lines+markers"``).
    hover : str, default "%{y:.7~g}"
        Plotly hover format of the values.
    **kwargs
        Further ``plotly.graph_objects.Scatter`` properties.

    Returns
    -------
    plotly.graph_objects.Scatter
        The trace.
    """
    return go.Scatter(x=np.asarray(x), y=np.asarray(y), mode=mode, name=name,
                      line=dict(color=color, dash=dash), marker=dict(color=color),
                      hovertemplate=f"{name}: {hover}<extra></extra>", **kwargs)


#: Layout properties copied on every redraw; the rest (template, sizes, legend) is set once.
_LAYOUT_KEYS = ("title", "xaxis", "yaxis", "xaxis2", "yaxis2", "xaxis3", "yaxis3", "annotations", "shapes")


def _same(a: Any, b: Any) -> bool:
    """Whether two plotly property values (scalars, arrays, lists or nested dicts) are equal."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(
            _same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, np.ndarray)) or isinstance(b, (list, tuple, np.ndarray)):
        if isinstance(a, (list, tuple)) and any(isinstance(v, dict) for v in a):
            return isinstance(b, (list, tuple)) and len(a) == len(b) and all(
                _same(x, y) for x, y in zip(a, b, strict=True))
        try:
            aa, bb = np.asarray(a), np.asarray(b)
            if aa.shape != bb.shape or aa.dtype.kind != bb.dtype.kind:
                return False
            return bool(np.array_equal(aa, bb, equal_nan=aa.dtype.kind in "fc"))   # NaN breaks lines: equal
        except (TypeError, ValueError):
            return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def sync_figure(target: go.FigureWidget, source: go.Figure) -> None:
    """Copy ``source``'s traces and changing layout parts into ``target`` (a FigureWidget) in one batch.

    When the number and types of traces match, each trace is updated in place
    (only its own properties), so the browser receives one small diff; the
    layout's static parts (template, size, legend) are copied only the first
    time, which keeps a redraw to a few milliseconds.

    Parameters
    ----------
    target : plotly.graph_objects.FigureWidget
        The figure shown in the notebook, updated in place.
    source : plotly.graph_objects.Figure
        The freshly drawn figure to copy from.
    """
    same = len(target.data) == len(source.data) and all(
        a.type == b.type for a, b in zip(target.data, source.data, strict=True))
    with target.batch_update():
        if same:
            for t, s in zip(target.data, source.data, strict=True):
                new, old = s.to_plotly_json(), t.to_plotly_json()
                changed = {k: v for k, v in new.items() if k != "uid" and not _same(old.get(k), v)}
                if changed:  # only what changed is validated and sent (most style properties never change)
                    t.update(changed, overwrite=True)
            layout = source.layout.to_plotly_json()
            old = target.layout.to_plotly_json()
            changed = {k: layout[k] for k in _LAYOUT_KEYS if k in layout and not _same(old.get(k), layout[k])}
            if changed:
                target.layout.update(changed, overwrite=True)
        else:
            target.data = ()
            target.add_traces(list(source.data))
            target.layout = source.layout


def replace_figure(target: go.FigureWidget, traces: list[dict[str, Any]], layout: dict[str, Any]) -> None:
    """Replace every trace and the layout of ``target`` by the plain-dict figure ``(traces, layout)``, in one batch.

    For a redraw whose traces change in number or type (an algorithm ticked or unticked), where neither
    :func:`patch_figure` nor :func:`sync_figure`'s in-place update applies.  The dicts are validated once, by
    the widget (building a ``go.Figure`` first, then copying it, validated them twice: 13 ms of the comparison
    explorer's 33 ms).

    Parameters
    ----------
    target : plotly.graph_objects.FigureWidget
        The figure shown in the notebook.
    traces : list of dict
        The new traces, as plotly property dicts with a ``type``.
    layout : dict
        The new layout, as a plotly property dict.

    Examples
    --------
    >>> fig = go.FigureWidget(go.Figure(data=[{"type": "scatter", "y": [1.0]}, {"type": "bar", "y": [2.0]}]))
    >>> replace_figure(fig, [{"type": "scatter", "y": [3.0]}], {"title": {"text": "one trace"}})
    >>> len(fig.data), fig.data[0].y, fig.layout.title.text
    (1, (3.0,), 'one trace')
    """
    with target.batch_update():
        target.data = ()
        target.add_traces(traces)
        target.layout = layout


def _flat(spec: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The leaves of a nested plotly property dict as dotted paths (``{"marker.color": ...}``); lists kept whole.

    A title given as a string is the path ``title.text``: plotly.py accepts ``title="..."`` and stores
    ``{"text": "..."}``, but plotly.js (3 and later) ignores a string sent as ``xaxis.title`` (the axis would
    lose its title on the next patch)."""
    out: dict[str, Any] = {}
    for key, value in spec.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        elif key == "title" and isinstance(value, str):
            out[f"{prefix}title.text"] = value
        else:
            out[f"{prefix}{key}"] = value
    return out


def _layout_changes(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any] | None:
    """``plotly_relayout`` arguments taking layout ``old`` to ``new`` (both plain dicts); None if their keys differ."""
    fn, fo = _flat(new), _flat(old)
    if fn.keys() != fo.keys():
        return None
    changes: dict[str, Any] = {}
    for path, value in fn.items():
        before = fo[path]
        if _same(before, value):
            continue
        if (isinstance(value, list) and isinstance(before, list) and len(value) == len(before)
                and all(isinstance(v, dict) for v in value + before)):   # annotations, shapes: item by item
            for j, (a, b) in enumerate(zip(before, value, strict=True)):
                inner = _layout_changes(b, a)
                if inner is None:
                    changes[f"{path}[{j}]"] = b
                else:
                    changes.update({f"{path}[{j}].{k}": v for k, v in inner.items()})
        else:
            changes[path] = value
    return changes


def patch_figure(target: go.FigureWidget, traces: list[dict[str, Any]], layout: dict[str, Any],
                 shown: tuple[list[dict[str, Any]], dict[str, Any]] | None) -> bool:
    """Redraw ``target`` in place from the plain-dict figure ``(traces, layout)``, sending only what changed.

    ``shown`` is the ``(traces, layout)`` the figure shows now.  What differs is sent in one
    ``plotly_update`` (about 4x faster than assigning trace attributes, which validates and parses
    each path), since the browser redraws the figure once per message: every changed property of the
    changed traces with the layout's changes; a changed trace that keeps a property's value, or has no
    such property, is passed over there.  Nothing is applied, and False is
    returned, when there is nothing to compare with or the figures differ in structure (number,
    type or axes of the traces, or the set of properties): redraw with :func:`sync_figure`
    then.

    Parameters
    ----------
    target : plotly.graph_objects.FigureWidget
        The figure shown in the notebook.
    traces : list of dict
        The new traces, as plotly property dicts with a ``type``.
    layout : dict
        The new layout, as a plotly property dict.
    shown : (list of dict, dict) or None
        The traces and layout ``target`` shows (as last drawn or patched).

    Returns
    -------
    bool
        Whether the figure was patched.

    Examples
    --------
    >>> spec = ([{"type": "scatter", "y": np.array([1.0, 2.0])}], {"title": {"text": "a"}})
    >>> fig = go.FigureWidget(go.Figure(data=spec[0], layout=spec[1]))
    >>> patch_figure(fig, [{"type": "scatter", "y": np.array([1.0, 3.0])}], {"title": {"text": "b"}}, spec)
    True
    >>> fig.data[0].y.tolist(), fig.layout.title.text
    ([1.0, 3.0], 'b')
    """
    if shown is None:
        return False
    old_traces, old_layout = shown

    def signature(ts: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        # not the names: a renamed trace (H_16 -> H_15) is patched like any other property
        return [(t.get("type"), t.get("xaxis"), t.get("yaxis")) for t in ts]

    if signature(traces) != signature(old_traces):
        return False
    restyle: dict[str, tuple[list[int], list[Any]]] = {}
    flat: list[dict[str, Any]] = []
    for i, (new, old) in enumerate(zip(traces, old_traces, strict=True)):
        fn, fo = _flat(new), _flat(old)
        if fn.keys() != fo.keys():
            return False
        flat.append(fn)
        for path, value in fn.items():
            if not _same(fo[path], value):
                idx, values = restyle.setdefault(path, ([], []))
                idx.append(i)
                values.append(value)
    relayout = _layout_changes(layout, old_layout)
    if relayout is None:
        return False
    # One message in all: the browser redraws the whole figure on each message (GPTT: x, y and marker.color of
    # three traces, then the titles, were four full redraws of ~250 ms each; the comparison explorer's props
    # that only some traces have were a second redraw of 60-200 ms).  A trace that keeps a property's value, or
    # does not have it, gets Undefined there: plotly.js leaves it as it is and nothing is sent for it.
    changed = sorted({i for idx, _ in restyle.values() for i in idx})
    column = {i: k for k, i in enumerate(changed)}
    data: dict[str, list[Any]] = {}
    for path, (idx, values) in restyle.items():
        col: list[Any] = [Undefined] * len(changed)
        for i, value in zip(idx, values, strict=True):
            col[column[i]] = value
        data[path] = col
    with target.batch_update():
        if data:
            target.plotly_update(restyle_data=data, relayout_data=relayout or None, trace_indexes=changed)
        elif relayout:
            target.plotly_relayout(relayout)
    return True


def new_axes(ax: Axes | None = None, figsize: tuple[float, float] = (7.0, 3.6)) -> Axes:
    """Return ``ax`` or a fresh matplotlib Axes (matplotlib is imported lazily).

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; if None a new figure with one Axes is made.
    figsize : tuple of float, default (7.0, 3.6)
        Size in inches of the new figure.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax`` itself, or the new Axes.
    """
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def mpl_band(ax: Axes | None, x: ArrayLike, lower: ArrayLike, upper: ArrayLike, *, color: str, label: str,
             alpha: float = 0.2, edges: bool = True) -> Axes:
    """Fill the band between ``lower`` and ``upper`` on matplotlib axes, its edges drawn in its own colour.

    Where bands overlap their fills mix into one colour; the dashed edges keep each band's extent readable.

    Parameters
    ----------
    ax : matplotlib.axes.Axes or None
        Axes to draw on (None: a new figure).
    x : array_like
        Positions along the x axis.
    lower, upper : array_like
        The band's edges at each ``x``.
    color : str
        Fill colour.
    label : str
        Legend label.
    alpha : float, default 0.2
        Opacity of the fill.
    edges : bool, default True
        Draw the lower and upper edges as thin dashed lines in ``color``.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``, with the band drawn.

    Raises
    ------
    TypeError
        If ``edges`` is not a bool.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> ax = mpl_band(None, [0, 1, 2], [0, 1, 1], [2, 3, 4], color="tab:blue", label="5-95 %")
    >>> len(ax.collections), len(ax.lines)
    (1, 2)
    >>> plt.close(ax.figure)
    """
    edges = check_bool("edges", edges)
    ax = new_axes(ax)
    x, lower, upper = np.asarray(x), np.asarray(lower), np.asarray(upper)
    ax.fill_between(x, lower, upper, color=color, alpha=alpha, label=label, linewidth=0)
    if edges:
        for edge in (lower, upper):
            ax.plot(x, edge, color=color, lw=1.0, ls=(0, (4, 2)), alpha=0.9, label="_nolegend_")
    return ax
