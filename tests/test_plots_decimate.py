"""Thinning dot plots to the pixel columns (dpviz.plots.decimate) and the busy state of every explorer."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz.plots.decimate import distinct_per_column, min_max_per_column


@pytest.mark.parametrize("n, columns", [(4096, 1024), (4097, 1024), (1000, 1024), (4096, 7), (10, 1)])
def test_every_column_value_and_colour_is_kept_once(n, columns):
    rng = np.random.default_rng(n + columns)
    y = rng.poisson(3.0, n)
    flag = rng.random(n) < 0.3
    kept = distinct_per_column(y, flag, columns)
    assert np.all(np.diff(kept) > 0)
    if n <= columns:
        assert kept.tolist() == list(range(n))
    per = -(-n // columns)
    # the kept cells show every (column, value, colour) of the full data, each exactly once
    shown = [(i // per, y[i], flag[i]) for i in kept]
    assert len(shown) == len(set(shown))
    assert set(shown) == {(i // per, y[i], flag[i]) for i in range(n)}


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="columns"):
        distinct_per_column(np.zeros(3), np.zeros(3), 0)
    with pytest.raises(ValueError, match="same length"):
        distinct_per_column(np.zeros(3), np.zeros(4))


@pytest.mark.parametrize("n, columns", [(4096, 1024), (4097, 1024), (5000, 7), (2049, 1024), (2048, 1024)])
def test_min_max_per_column_keeps_each_columns_envelope(n, columns):
    rng = np.random.default_rng(n * 7 + columns)
    y = rng.poisson(3.0, n).astype(float) + (rng.random(n) < 0.01) * 1e4   # rare tall peaks
    y[rng.random(n) < 0.02] = np.nan
    kept = min_max_per_column(y, columns)
    assert np.all(np.diff(kept) > 0) and kept[0] == 0 and kept[-1] == n - 1
    if n <= 2 * columns:
        assert kept.tolist() == list(range(n))
        return
    assert kept.size <= 2 * columns + 2
    per = -(-n // columns)
    for start in range(0, n, per):   # numpy's min and max of the full column equal those of the kept cells in it
        column = y[start:start + per]
        mine = y[kept[(kept >= start) & (kept < start + per)]]
        if np.all(np.isnan(column)):
            assert np.all(np.isnan(mine))
        else:
            assert np.nanmin(mine) == np.nanmin(column) and np.nanmax(mine) == np.nanmax(column)
    # no local extremum of the full data is lost: every strict peak or trough value still occurs in its column
    inner = np.arange(1, n - 1)
    peaks = inner[(y[inner] > y[inner - 1]) & (y[inner] > y[inner + 1])]
    troughs = inner[(y[inner] < y[inner - 1]) & (y[inner] < y[inner + 1])]
    for i in np.concatenate([peaks, troughs]):
        start = i // per * per
        column_kept = y[kept[(kept >= start) & (kept < start + per)]]
        assert np.nanmin(column_kept) <= y[i] <= np.nanmax(column_kept)
    assert set(np.flatnonzero(y == np.nanmax(y))) & set(kept.tolist())


def test_min_max_per_column_bad_input_is_refused():
    with pytest.raises(ValueError, match="columns"):
        min_max_per_column(np.zeros(3), 0)
    with pytest.raises(ValueError, match="1-D"):
        min_max_per_column(np.zeros((3, 2)))
