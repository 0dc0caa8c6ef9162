"""Kernel-free explorer pages (dpviz.export): each page shows what a fresh live explorer shows at its grid values.

The pages are written once for every explorer; for three grid values of each (both ends and the one shown first) a
fresh explorer is built at that value and its figure (every trace and layout entry, arrays decoded to numbers) and
side-panel HTML are compared with what the page carries.  What the page does in a browser is tested in
tests/browser/test_exports.py.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import numpy as np
import pytest

from dpviz.export import MAX_PAGE_BYTES, MIN_GRID, explorer_names, export, grid_values, read_page
from dpviz.export.frames import make_explorer
from dpviz.export.packing import pack, unpack

NAMES = explorer_names()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("exports")
    return {name: export(name, out / f"{name}.html") for name in NAMES}


def _decoded(obj: Any) -> Any:
    """plotly JSON with every typed array ``{"dtype", "bdata"}`` decoded to a numpy array."""
    if isinstance(obj, dict):
        if isinstance(obj.get("bdata"), str):
            array = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=np.dtype(obj["dtype"]))
            if "shape" in obj:
                array = array.reshape([int(s) for s in str(obj["shape"]).split(",")])
            return array
        return {k: _decoded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decoded(v) for v in obj]
    return obj


def _mask_timings(name: str, figure: dict[str, Any]) -> dict[str, Any]:
    """Zero the one measured wall time a figure shows: the comparison's "ms per release" (customdata column 3 of
    its first trace), which differs between any two runs; everything else must match exactly."""
    if name == "AlgorithmComparisonExplorer":
        times = figure["data"][0]["customdata"]
        assert np.all(np.isfinite(times[:, 3])) and np.all(times[:, 3] >= 0)
        figure["data"][0]["customdata"] = np.concatenate([times[:, :3], np.zeros_like(times[:, 3:])], axis=1)
    return figure


def _assert_same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), f"{where}: keys {sorted(a)} vs {sorted(b)}"
        for k in a:
            _assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def test_every_explorer_has_a_page(pages: dict[str, Path]) -> None:
    import dpviz.widgets

    assert set(pages) == set(dpviz.widgets.__all__) - {"Explorer"}
    for name, path in pages.items():
        assert path.stat().st_size < MAX_PAGE_BYTES, f"{name}: {path.stat().st_size:,} bytes"
        text = path.read_text()
        assert "<script src" not in text and "<link" not in text, f"{name} loads something from outside"


@pytest.mark.parametrize("name", NAMES)
def test_page_shows_what_a_fresh_explorer_shows(pages: dict[str, Path], name: str) -> None:
    page = read_page(pages[name])
    meta, frames = page["meta"], page["frames"]
    live = make_explorer(name)
    widget = live.controls[meta["control"]]
    values = meta["values"]
    assert len(values) == len(frames) and MIN_GRID <= len(values) <= 25 or len(values) == len(
        [o for o in getattr(widget, "options", ())]), f"{name}: {len(values)} grid values"
    lo, hi = (widget.base ** widget.min, widget.base ** widget.max) if isinstance(widget, widgets.FloatLogSlider) \
        else (getattr(widget, "min", None), getattr(widget, "max", None))
    if lo is not None:
        assert all(lo * (1 - 1e-12) <= v <= hi * (1 + 1e-12) for v in values)
    assert values == sorted(values) and len(set(values)) == len(values)
    for k in sorted({0, meta["start"], len(values) - 1}):
        fresh = make_explorer(name, **{meta["control"]: values[k]})
        shown = json.loads(fresh.figure.to_json())
        _assert_same(_mask_timings(name, _decoded(frames[k]["figure"])), _mask_timings(name, _decoded(shown)),
                     f"{name}[{meta['control']}={values[k]}]")
        panels = [fresh.message.value] + [w.value for w in fresh._side_panels() if isinstance(w, widgets.HTML)]
        assert frames[k]["panels"] == panels


def test_consecutive_frames_differ(pages: dict[str, Path]) -> None:
    for name, path in pages.items():
        frames = read_page(path)["frames"]
        for a, b in zip(frames, frames[1:], strict=False):
            assert a["figure"]["data"] != b["figure"]["data"], f"{name}: two grid values show the same traces"


def test_grid_values_lie_on_the_slider_steps() -> None:
    log = widgets.FloatLogSlider(value=1.0, base=10, min=-2, max=1, step=0.01)
    grid = grid_values(log)
    assert len(grid) == 21 and grid[0] == 0.01 and grid[-1] == 10.0 and 1.0 in grid
    steps = (np.log10(grid) + 2) / 0.01
    assert np.allclose(steps, np.round(steps), atol=1e-6)
    ints = grid_values(widgets.IntSlider(value=16, min=2, max=64))
    assert ints[0] == 2 and ints[-1] == 64 and 16 in ints and len(ints) == 21
    assert grid_values(widgets.IntSlider(value=4, min=2, max=8, step=2)) == [2, 4, 6, 8]
    assert grid_values(widgets.SelectionSlider(options=[0.5, 0.9, 1.0], value=0.9)) == [0.5, 0.9, 1.0]


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="explorer_name must be one of"):
        export("NoSuchExplorer", "/nonexistent/x.html")
    with pytest.raises(ValueError, match="size must be an integer in"):
        export("LaplaceExplorer", "/nonexistent/x.html", size=1)
    with pytest.raises(TypeError, match="cannot grid a Text"):
        grid_values(widgets.Text())
    with pytest.raises(ValueError, match="size must be an integer >= 2"):
        grid_values(widgets.IntSlider(), size=1)


def test_packing_round_trips_every_dtype() -> None:
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=7), rng.integers(-5, 5, size=4).astype(np.int16), np.arange(3, dtype=np.uint8),
              rng.normal(size=(2, 3)).astype(np.float32)]
    specs = [{"dtype": a.dtype.str[1:], "bdata": base64.b64encode(a.tobytes()).decode()} for a in arrays]
    specs[3]["shape"] = "2, 3"
    pieces = [json.dumps({"x": specs[0], "y": specs[1]}), json.dumps([specs[2], specs[3], specs[0]])]
    packed, table, blob = pack(pieces)
    assert len(table) == 4   # the repeated array is stored once
    assert unpack(packed, table, blob) == [json.loads(p) for p in pieces]
