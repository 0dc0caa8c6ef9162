"""Every explorer's figure reads at a glance (issue 18): checked on the figure each explorer shows at its defaults.

* a log axis has its ticks chosen and labelled in full (``0.001, 0.002, 0.005``), never plotly's minor-tick digits
  (``5, 2, 0.01``) that made 0.05 read as 5 in the comparison explorer;
* no legend has more than MAX_LEGEND_ENTRIES entries (the comparison explorer had 12, the hierarchy explorer 10);
* hover texts keep full precision (at least 6 significant digits) while titles round to 3;
* two series of one panel in the legend never differ by colour alone (a dash, a marker or the mark type too).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from dpviz import widgets as W  # noqa: E402
from dpviz.plots.readability import (  # noqa: E402
    MAX_LEGEND_ENTRIES,
    direct_labels,
    log_axis,
    log_ticks,
    short,
    tick_text,
)

EXPLORERS = [name for name in W.__all__ if name.endswith("Explorer") and name != "Explorer"]
_FIGURES: dict[str, object] = {}


def _figure(name: str):
    if name not in _FIGURES:
        _FIGURES[name] = getattr(W, name)().figure
    return _FIGURES[name]


def _value(text: str) -> float:
    """The number a tick label or short number states ("20,000" -> 20000, "3M" -> 3e6)."""
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}.get(text[-1], 1.0)
    return float(text.rstrip("kMG").replace(",", "")) * scale


def _axes(fig) -> dict[str, object]:
    return {k: fig.layout[k] for k in fig.layout if re.fullmatch(r"[xy]axis\d*", k)}


def _legends(fig) -> dict[str, list[str]]:
    """The entries of each legend (a figure may group its entries in several: legend, legend2, ...)."""
    out: dict[str, list[str]] = {}
    for t in fig.data:
        if t.visible is not False and getattr(t, "showlegend", None) is not False and t.name:
            out.setdefault(getattr(t, "legend", None) or "legend", []).append(t.name)
    return out


def test_tick_labels_are_whole_numbers_not_mantissas():
    for lo, hi in [(0.012, 0.3), (3e-4, 0.02), (0.5, 40.0), (1.0, 1e6), (2e-7, 5e3)]:
        ticks = log_ticks([lo, hi])
        assert len(ticks) >= 2, (lo, hi, ticks)
        for t in ticks:
            assert _value(tick_text(t)) == pytest.approx(t, rel=1e-12), (t, tick_text(t))
        # the ticks cover the data with no gap wider than two decades (decades are thinned only past ~9)
        assert ticks[0] <= lo * 1.5 and ticks[-1] >= hi / 1.5, (lo, hi, ticks)
        assert all(b / a <= 100.0 * (1 + 1e-9) for a, b in zip(ticks, ticks[1:], strict=False)), ticks


def test_log_axis_without_positive_data_falls_back_to_decades():
    assert log_axis([0.0, -1.0, np.nan])["dtick"] == 1


def test_short_keeps_three_significant_digits():
    for v in [2.052317, 0.0123456, 12.02, 1.169, 25714.0, 20755668.0, -19.123]:
        text = short(v)
        assert _value(text) == pytest.approx(v, rel=5e-3), (v, text)
        digits = re.sub(r"[^0-9]", "", text.split("e")[0]).lstrip("0")
        assert len(digits) <= 3, (v, text)


def test_direct_labels_never_overlap():
    trace = direct_labels(list("abcdef"), 5.0, [10.0, 10.5, 11.0, 1e3, 1e3, 1e-2], ["#000"] * 6, log=True,
                          min_gap=0.3)
    ys = sorted(np.log10(trace["y"]))   # decades apart on the log axis
    assert all(b - a >= 0.3 - 1e-12 for a, b in zip(ys, ys[1:], strict=False)), ys
    assert trace["text"] == list("abcdef") and trace["mode"] == "text" and trace["cliponaxis"] is False


@pytest.mark.parametrize("name", EXPLORERS)
def test_log_axes_label_their_ticks_in_full(name):
    fig = _figure(name)
    for key, axis in _axes(fig).items():
        if axis.type != "log":
            continue
        assert axis.tickvals is not None or axis.dtick is not None, f"{name}.{key}: plotly's default log ticks"
        if axis.tickvals is not None:
            assert len(axis.ticktext) == len(axis.tickvals), f"{name}.{key}"
            for value, text in zip(axis.tickvals, axis.ticktext, strict=True):
                assert _value(text) == pytest.approx(value, rel=1e-9), (name, key, value, text)


@pytest.mark.parametrize("name", EXPLORERS)
def test_legends_are_short(name):
    for legend, entries in _legends(_figure(name)).items():
        assert len(entries) <= MAX_LEGEND_ENTRIES, f"{name}.{legend}: {len(entries)} entries: {entries}"


@pytest.mark.parametrize("name", EXPLORERS)
def test_hover_texts_keep_full_precision(name):
    for t in _figure(name).data:
        template = t.hovertemplate
        if not template:
            continue
        for spec in re.findall(r"%\{[^}:]+:([^}]+)\}", template):
            m = re.fullmatch(r"[+,]*\.(\d+)~?[ge]", spec)
            if m:
                assert int(m.group(1)) >= 6, f"{name}: hover format {spec!r} in {template!r} rounds the value"


@pytest.mark.parametrize("name", EXPLORERS)
def test_titles_round_to_three_significant_digits(name):
    title = _figure(name).layout.title.text or ""
    for number in re.findall(r"(?<![\w.])\d+\.\d+", title):
        digits = number.replace(".", "").lstrip("0")
        assert len(digits) <= 3, f"{name}: {number} in the title {title!r} shows more digits than matter"


@pytest.mark.parametrize("name", EXPLORERS)
def test_no_series_told_apart_by_colour_alone(name):
    fig = _figure(name)
    shown = [t for t in fig.data if t.visible is not False and getattr(t, "showlegend", None) is not False
             and t.name]
    seen: dict[tuple, str] = {}
    for t in shown:
        line, marker = getattr(t, "line", None), getattr(t, "marker", None)
        pattern = getattr(marker, "pattern", None) if marker is not None else None
        style = (t.type, getattr(t, "xaxis", None), getattr(t, "yaxis", None), getattr(t, "mode", None),
                 getattr(t, "fill", None), getattr(line, "dash", None) if line is not None else None,
                 getattr(marker, "symbol", None) if marker is not None else None,
                 getattr(pattern, "shape", None) if pattern is not None else None)
        assert style not in seen, f"{name}: {t.name!r} and {seen[style]!r} differ only by colour"
        seen[style] = t.name


@pytest.mark.parametrize("dataset", ["income", "nettrace"])
def test_static_release_panel_uses_the_explorers_count_axis(dataset):
    """The static histogram beside the HierarchyExplorer reads as the live one: a log count axis exactly when the
    explorer's panel has one (a linear axis put INCOME's bins but a handful on the zero line)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpviz.plots.hierarchy import release_axes

    explorer = W.HierarchyExplorer()
    explorer.controls["dataset"].value = dataset
    live = explorer.figure.layout.yaxis.type
    ax = release_axes(explorer.result)
    try:
        assert ax.get_yscale() == ("log" if live == "log" else "linear"), (dataset, live, ax.get_yscale())
    finally:
        plt.close(ax.figure)
