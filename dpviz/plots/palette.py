"""One colour-blind-safe palette for every dpviz figure (Okabe & Ito, "Color Universal Design", 2008)."""

from __future__ import annotations

from typing import Any

__all__ = ["PALETTE", "TRUTH", "SIMULATED", "THEORY", "ALT", "TEMPLATE", "color", "band_fill"]

#: Okabe-Ito colours, safe for the common forms of colour blindness.
PALETTE = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    # a neutral ninth colour for a ninth series (distinct from all eight by lightness, not hue)
    "grey": "#8C8C8C",
}
TRUTH = PALETTE["black"]
SIMULATED = PALETTE["blue"]
THEORY = PALETTE["vermillion"]
ALT = PALETTE["green"]
_SERIES = ["blue", "vermillion", "green", "orange", "purple", "sky", "yellow", "black"]


def color(i: int) -> str:
    """The i-th series colour (cycles through the palette).

    Parameters
    ----------
    i : int
        Index of the series.

    Returns
    -------
    str
        A hex colour.
    """
    return PALETTE[_SERIES[i % len(_SERIES)]]


def band_fill(hex_color: str, alpha: float = 0.2) -> str:
    """An ``rgba(...)`` string for a translucent band in the given colour.

    Parameters
    ----------
    hex_color : str
        A colour as ``"#RRGGBB"``.
    alpha : float, default 0.2
        Opacity.

    Returns
    -------
    str
        ``"rgba(r,g,b,alpha)"``.
    """
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _axis_style() -> dict[str, Any]:
    """Axis properties shared by both axes of :data:`TEMPLATE`."""
    return dict(gridcolor="#E5E8EE", linecolor="#AAB2BD", zerolinecolor="#C8CED6", ticks="outside",
                tickcolor="#AAB2BD", automargin=True, ticklabeloverflow="allow")


#: A small plotly template shared by every dpviz figure: white background, light grid, the
#: colour-blind-safe palette as colourway.  Kept small on purpose: plotly validates a template each
#: time a figure is built, and the built-in "plotly_white" alone costs ~20 ms, a third of a redraw budget.
TEMPLATE = {
    "layout": {
        "colorway": [PALETTE[c] for c in _SERIES],
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "font": {"family": "Arial, Helvetica, sans-serif", "size": 13, "color": "#2A3F5F"},
        "xaxis": _axis_style(),
        "yaxis": _axis_style(),
        "hoverlabel": {"align": "left"},
    }
}
