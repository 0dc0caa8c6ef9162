"""Thousands of dots as one picture: a dot plot drawn into a PNG and shown as one plotly image trace.

A plotly marker is an SVG element the browser lays out and styles on every redraw: the GPTT explorer's
three panels of 4096 cells drew 2,500 of them, 300-500 ms per move in headless chromium.  Drawn into an
image of the plot's pixel grid (one image column per :data:`~dpviz.plots.decimate.DOT_COLUMNS` bucket of
cells, a few image rows per unit of the y axis), the same dots are one ``<image>`` element: the browser
decodes a small PNG instead of laying out thousands of paths (the figure's redraw 2.5-3x faster, measured in
benchmarks/bench_exports.py and benchmarks/browser_bench.py).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpviz.plots.decimate import DOT_COLUMNS
from dpviz.validation import check_elements

__all__ = ["dot_image", "MAX_ROWS"]

#: Most image rows of a panel (about its height in pixels): more would be thinned away by the browser's scaling.
MAX_ROWS = 200


def _rgba(colour: str) -> tuple[int, int, int, int]:
    """``#RRGGBB`` as an opaque RGBA tuple."""
    if not (isinstance(colour, str) and len(colour) == 7 and colour.startswith("#")):
        raise ValueError(f"colours must be '#RRGGBB' strings, got {colour!r}")
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16), 255


def dot_image(x: np.ndarray, y: np.ndarray, kind: np.ndarray, *, n: int, top: int, colours: Sequence[str],
              columns: int = DOT_COLUMNS, per_unit: int = 3) -> dict[str, Any]:
    """A plotly image trace (plain dict) drawing a dot at each ``(x[i], y[i])`` in colour ``colours[kind[i]]``.

    The x axis runs over the cells ``0..n-1``, cut into ``columns`` image columns; the y axis from -0.5 to
    ``top + 0.5``, ``per_unit`` image rows per unit (fewer when that would exceed :data:`MAX_ROWS` rows, several
    units per row then).  A dot is one image pixel at its centre: the cell's column and the row holding ``y``.
    Where dots of several kinds fall on one pixel the highest kind wins (e.g. "wrong" over "exact").  Dots
    outside ``[0, top]`` are not drawn.  The image is a transparent PNG, so what is under it stays visible.

    Parameters
    ----------
    x : numpy.ndarray
        The dots' cells, integers in ``[0, n)``.
    y : numpy.ndarray
        Their heights (same length).
    kind : numpy.ndarray
        Their colour classes, integers in ``[0, len(colours))`` (same length).
    n : int
        Number of cells on the x axis, >= 1.
    top : int
        Highest y drawn, >= 0.
    colours : sequence of str
        ``#RRGGBB`` colour of each class.
    columns : int, default DOT_COLUMNS
        Image columns (at most ``n`` are used).
    per_unit : int, default 3
        Image rows per unit of y (the dot sits in the middle one).

    Returns
    -------
    dict
        ``type="image"`` with the PNG as a data URI in ``source`` and ``x0, dx, y0, dy`` placing it on the axes;
        hover is off (the caller's other traces carry the values).

    Raises
    ------
    ValueError
        If the arrays differ in length, a cell or class is out of range, a size is not a positive integer, or
        the image would exceed :data:`~dpviz.validation.MAX_ELEMENTS` values.

    Examples
    --------
    >>> trace = dot_image(np.array([0, 5]), np.array([1, 2]), np.array([0, 1]), n=8, top=3,
    ...                   colours=["#0072B2", "#D55E00"], columns=4)
    >>> trace["type"], trace["source"][:22], trace["dx"], trace["dy"]
    ('image', 'data:image/png;base64,', 2.0, 0.3333333333333333)
    """
    from PIL import Image

    x, y, kind = np.asarray(x), np.asarray(y, dtype=float), np.asarray(kind)
    if not (x.ndim == 1 and x.shape == y.shape == kind.shape):
        raise ValueError(f"x, y and kind must be 1-D of the same length, got shapes {x.shape}, {y.shape}, {kind.shape}")
    for name, value in (("n", n), ("columns", columns), ("per_unit", per_unit)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 0:
        raise ValueError(f"top must be an integer >= 0, got {top!r}")
    palette = [_rgba(c) for c in colours]
    if x.size and (x.min() < 0 or x.max() >= n):
        raise ValueError(f"x must hold cells in [0, {n}), got values from {x.min()} to {x.max()}")
    if kind.size and (kind.min() < 0 or kind.max() >= len(palette)):
        raise ValueError(f"kind must be in [0, {len(palette)}), got values from {kind.min()} to {kind.max()}")
    if len(palette) > 255:
        raise ValueError(f"at most 255 colours, got {len(palette)}")
    cols = min(int(columns), int(n))
    units = int(top) + 1
    rows = min(units * int(per_unit), MAX_ROWS)
    check_elements(float(rows) * cols, "dot image pixels (rows x columns)", rows=rows, columns=cols)
    shown = (y >= 0) & (y <= top)
    col = ((x[shown] + 0.5) * cols / n).astype(np.int64)
    row = ((y[shown] + 0.5) * rows / units).astype(np.int64)
    order = np.argsort(kind[shown], kind="stable")           # the highest kind is written last and wins
    # an indexed image: 0 transparent, k + 1 colour k (a quarter of RGBA's bytes to compress)
    index = np.zeros((rows, cols), dtype=np.uint8)
    index[row[order], col[order]] = kind[shown][order].astype(np.uint8) + 1
    picture = Image.fromarray(index, "P")
    picture.putpalette([0, 0, 0] + [v for rgba in palette for v in rgba[:3]])
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", transparency=0, compress_level=1)
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    dx, dy = n / cols, units / rows
    # plotly draws image row 0 at y0 and the next rows towards larger y on an increasing y axis
    return dict(type="image", source=uri, x0=-0.5 + dx / 2, dx=dx, y0=-0.5 + dy / 2, dy=dy, hoverinfo="skip")
