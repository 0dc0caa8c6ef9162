"""Thinning dot plots to the pixel columns (dpviz.plots.decimate) and the busy state of every explorer."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz.plots.decimate import distinct_per_column


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
