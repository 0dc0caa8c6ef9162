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


def test_patch_figure_sends_one_message_per_redraw():
    """The browser redraws the figure once per message: a redraw changing x, y and colours of several traces and
    the title must reach it as one ``plotly_update`` (not one ``plotly_restyle`` per property), and the figure
    must end up equal to one built from the new spec."""
    import plotly.graph_objects as go

    from dpviz.plots.bands import patch_figure

    def spec(shift: float) -> tuple[list[dict], dict]:
        line = {"type": "scatter", "x": np.arange(4.0), "y": np.zeros(4), "name": "truth"}
        dots = [{"type": "scatter", "x": np.arange(3.0) + shift, "y": np.ones(3) * (k + shift), "name": f"dots {k}",
                 "marker": {"color": np.array([0, 1, 0]) if shift == 0 else np.array([1, 1, 0])}} for k in range(3)]
        return [line, *dots], {"title": {"text": f"shift {shift}"}}

    old, new = spec(0.0), spec(1.0)
    fig = go.FigureWidget(go.Figure(data=old[0], layout=old[1]))
    sent: list[str] = []
    for kind in ("restyle", "relayout", "update"):
        original = getattr(fig, f"_send_{kind}_msg")
        setattr(fig, f"_send_{kind}_msg", lambda *a, _k=kind, _o=original, **kw: (sent.append(_k), _o(*a, **kw)))
    assert patch_figure(fig, new[0], new[1], old)
    assert sent == ["update"]
    expected = go.Figure(data=new[0], layout=new[1])
    for got, want in zip(fig.data, expected.data, strict=True):
        assert np.array_equal(got.x, want.x) and np.array_equal(got.y, want.y)
        assert np.array_equal(np.asarray(got.marker.color if got.marker.color is not None else []),
                              np.asarray(want.marker.color if want.marker.color is not None else []))
    assert fig.layout.title.text == "shift 1.0"


def test_patch_figure_sends_one_message_when_only_some_traces_have_a_property():
    """A property only some changed traces have (error bars on the first) and a trace that keeps its y: still one
    ``plotly_update``, the other traces given Undefined there (left as they are), and the figure equal to one
    built from the new spec -- the trace without error bars still has none."""
    import plotly.graph_objects as go
    from plotly.basedatatypes import Undefined

    from dpviz.plots.bands import patch_figure

    def spec(k: float) -> tuple[list[dict], dict]:
        bars = {"type": "scatter", "x": np.arange(3.0), "y": np.arange(3.0) * k, "name": "bars",
                "error_y": {"type": "data", "array": np.ones(3) * k}}
        line = {"type": "scatter", "x": np.arange(3.0) + k, "y": np.zeros(3), "name": "line"}
        return [bars, line], {"title": {"text": f"k {k}"}}

    old, new = spec(1.0), spec(2.0)
    fig = go.FigureWidget(go.Figure(data=old[0], layout=old[1]))
    sent: list[dict] = []
    original = fig._send_update_msg
    def spy(*args, **kwargs):
        sent.append(kwargs.get("restyle_data", args[0] if args else None))
        return original(*args, **kwargs)

    fig._send_update_msg = spy
    assert patch_figure(fig, new[0], new[1], old)
    assert len(sent) == 1
    assert sent[0]["y"][1] is Undefined and sent[0]["error_y.array"][1] is Undefined
    assert sent[0]["x"][0] is Undefined                       # the first trace keeps its x
    np.testing.assert_array_equal(fig.data[0].error_y.array, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(fig.data[0].y, [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(fig.data[1].x, [2.0, 3.0, 4.0])
    assert fig.data[1].error_y.array is None and fig.layout.title.text == "k 2.0"


def test_patch_figure_sends_a_string_title_as_title_text():
    """plotly.js 3+ ignores ``xaxis.title`` given as a string, so a changed string title must go out as
    ``xaxis.title.text`` (the axis kept its title only when plotly.py validated the figure first)."""
    import plotly.graph_objects as go

    from dpviz.plots.bands import patch_figure

    def spec(t: str) -> tuple[list[dict], dict]:
        return [{"type": "scatter", "y": np.zeros(2)}], {"xaxis": {"title": t}, "title": f"figure {t}"}

    old, new = spec("density"), spec("probability")
    fig = go.FigureWidget(go.Figure(data=old[0], layout=old[1]))
    sent: list[dict] = []
    fig._send_relayout_msg = lambda data, *a, **kw: sent.append(data)
    assert patch_figure(fig, new[0], new[1], old)
    assert sent == [{"xaxis.title.text": "probability", "title.text": "figure probability"}]
    assert fig.layout.xaxis.title.text == "probability" and fig.layout.title.text == "figure probability"
