"""dpviz.plots.raster.dot_image: dots drawn into one PNG, checked pixel by pixel."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from dpviz.plots.raster import MAX_ROWS, dot_image


def _pixels(trace: dict) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(trace["source"].split(",", 1)[1]))).convert("RGBA"))


def test_each_dot_colours_the_pixel_over_its_point_and_nothing_else():
    gen = np.random.default_rng(2)
    n, top = 300, 12
    x = gen.integers(0, n, 500)
    y = gen.integers(-3, top + 4, 500)
    kind = gen.integers(0, 3, 500)
    colours = ["#0072B2", "#D55E00", "#009E73"]
    trace = dot_image(x, y, kind, n=n, top=top, colours=colours, columns=64, per_unit=2)
    img = _pixels(trace)
    rows, cols = img.shape[:2]
    assert (rows, cols) == (2 * (top + 1), 64)
    want = np.zeros_like(img)
    best = -np.ones((rows, cols), dtype=int)
    for xi, yi, ki in zip(x, y, kind, strict=True):
        if not 0 <= yi <= top:
            continue
        # the pixel whose extent on the axes holds the point, found by search, not by formula
        c = next(c for c in range(cols) if trace["x0"] + (c - 0.5) * trace["dx"] <= xi < trace["x0"] + (c + 0.5)
                 * trace["dx"])
        r = next(r for r in range(rows) if trace["y0"] + (r - 0.5) * trace["dy"] <= yi < trace["y0"] + (r + 0.5)
                 * trace["dy"])
        if ki > best[r, c]:
            best[r, c] = ki
            want[r, c] = [int(colours[ki][1:3], 16), int(colours[ki][3:5], 16), int(colours[ki][5:7], 16), 255]
    np.testing.assert_array_equal(img, want)
    assert trace["hoverinfo"] == "skip"


def test_tall_axes_are_binned_into_at_most_max_rows():
    trace = dot_image(np.array([0, 1]), np.array([0, 999]), np.array([0, 0]), n=2, top=999, colours=["#000000"])
    img = _pixels(trace)
    assert img.shape[0] == MAX_ROWS and trace["dy"] == pytest.approx(1000 / MAX_ROWS)
    assert img[0, 0, 3] == 255 and img[-1, -1, 3] == 255 and img[:, :, 3].sum() == 2 * 255


@pytest.mark.parametrize("kwargs, match", [
    (dict(x=np.array([0, 1]), y=np.array([0]), kind=np.array([0, 0])), "same length"),
    (dict(x=np.array([5]), y=np.array([0]), kind=np.array([0])), "x must hold cells"),
    (dict(x=np.array([0]), y=np.array([0]), kind=np.array([2])), "kind"),
    (dict(x=np.array([0]), y=np.array([0]), kind=np.array([0]), top=-1), "top"),
    (dict(x=np.array([0]), y=np.array([0]), kind=np.array([0]), columns=0), "columns"),
    (dict(x=np.array([0]), y=np.array([0]), kind=np.array([0]), colours=["blue"]), "RRGGBB"),
])
def test_bad_input_is_refused_by_name(kwargs, match):
    args = dict(n=4, top=3, colours=["#000000", "#FFFFFF"]) | kwargs
    with pytest.raises(ValueError, match=match):
        dot_image(**args)
