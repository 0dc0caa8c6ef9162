"""Points as many as the eye needs: plots of thousands of cells thinned to what a pixel column can show.

A panel of 4096 cells drawn about 1000 px wide puts four cells in every pixel column; a dot of 5 px covers
about twenty.  Per pixel column, drawing one dot for each distinct (value, colour) shows exactly the same picture
as drawing every cell, with a fraction of the SVG elements the browser must lay out on every redraw
(:func:`distinct_per_column`).  A line keeps, per pixel column, its lowest and highest cell
(:func:`min_max_per_column`): the envelope the column shows, every peak and trough included.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PLOT_COLUMNS", "DOT_COLUMNS", "distinct_per_column", "min_max_per_column"]

#: Pixel columns of an explorer's plot area (its figure is about 1100 px wide, less the margins).
PLOT_COLUMNS = 1024
#: Buckets of a dot plot: two pixel columns each, less than the radius (2.5 px) of a 5-px dot, so a dot dropped
#: because its bucket already shows the same (value, colour) lies within 1 px of one drawn.
DOT_COLUMNS = PLOT_COLUMNS // 2


def distinct_per_column(y: np.ndarray, flag: np.ndarray, columns: int = PLOT_COLUMNS) -> np.ndarray:
    """Indices of the cells a dot plot of ``y`` (coloured by ``flag``) needs at ``columns`` pixel columns.

    The cells ``0..n-1`` are cut into ``columns`` runs of ``ceil(n / columns)`` consecutive cells (one pixel
    column each); of the cells of a run, the first with each distinct ``(y, flag)`` is kept.  With
    ``n <= columns`` every cell is kept.

    Parameters
    ----------
    y : numpy.ndarray
        The dots' heights, one per cell (1-D).
    flag : numpy.ndarray
        The dots' colour class, one per cell (same length; e.g. exact vs wrong).
    columns : int, default PLOT_COLUMNS
        Pixel columns of the plot area (>= 1).

    Returns
    -------
    numpy.ndarray
        Increasing indices into ``y``: every (column, y, flag) of the full data occurs once among them.

    Raises
    ------
    ValueError
        If ``y`` and ``flag`` are not 1-D of the same length, or ``columns`` < 1.

    Examples
    --------
    >>> distinct_per_column(np.array([0, 0, 1, 1, 1, 0]), np.array([0, 0, 0, 1, 1, 0]), columns=2)
    array([0, 2, 3, 5])
    """
    y, flag = np.asarray(y), np.asarray(flag)
    if y.ndim != 1 or flag.shape != y.shape:
        raise ValueError(f"y and flag must be 1-D of the same length, got shapes {y.shape} and {flag.shape}")
    if isinstance(columns, bool) or not isinstance(columns, (int, np.integer)) or columns < 1:
        raise ValueError(f"columns must be an integer >= 1, got {columns!r}")
    n = y.size
    if n <= columns:
        return np.arange(n)
    per = -(-n // int(columns))
    key = np.stack([np.arange(n) // per, y.astype(float), flag.astype(float)], axis=1)
    _, first = np.unique(key, axis=0, return_index=True)
    return np.sort(first)


def min_max_per_column(y: np.ndarray, columns: int = PLOT_COLUMNS) -> np.ndarray:
    """Indices of the cells a line through ``y`` needs at ``columns`` pixel columns: each column's lowest and highest.

    The cells ``0..n-1`` are cut into runs of ``ceil(n / columns)`` consecutive cells (one pixel column each); of
    each run the first cell holding its minimum and the first holding its maximum are kept (NaN cells are skipped;
    a run of NaN only is dropped), and the first and last cell always.  A line through the kept cells covers, in
    every column, the same range of values as the line through all of them.  With ``n <= 2 * columns`` every cell
    is kept.

    Parameters
    ----------
    y : numpy.ndarray
        The line's heights, one per cell (1-D).
    columns : int, default PLOT_COLUMNS
        Pixel columns of the plot area (>= 1).

    Returns
    -------
    numpy.ndarray
        Increasing indices into ``y``.

    Raises
    ------
    ValueError
        If ``y`` is not 1-D, or ``columns`` < 1.

    Examples
    --------
    >>> min_max_per_column(np.array([3, 1, 2, 5, 0, 4, 4, 4]), columns=2)
    array([0, 1, 3, 4, 5, 7])
    """
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if isinstance(columns, bool) or not isinstance(columns, (int, np.integer)) or columns < 1:
        raise ValueError(f"columns must be an integer >= 1, got {columns!r}")
    n = y.size
    if n <= 2 * columns:
        return np.arange(n)
    per = -(-n // int(columns))
    runs = -(-n // per)
    padded = np.full(runs * per, np.nan)
    padded[:n] = y
    block = padded.reshape(runs, per)
    seen = ~np.all(np.isnan(block), axis=1)
    low = np.where(np.isnan(block), np.inf, block).argmin(axis=1)
    high = np.where(np.isnan(block), -np.inf, block).argmax(axis=1)
    start = np.arange(runs) * per
    kept = np.concatenate([(start + low)[seen], (start + high)[seen], [0, n - 1]])
    return np.unique(kept)
