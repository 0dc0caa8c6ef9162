"""What a plotly figure shows, as plain Python, to compare a patched explorer figure with a fresh one."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

LAYOUT_KEYS = ("title", "annotations", "shapes", "xaxis", "yaxis", "xaxis2", "yaxis2", "xaxis3", "yaxis3")


def plain(value: Any) -> Any:
    """A plotly property value as plain Python: arrays as lists (NaN as None), dicts and tuples recursively."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k != "uid"}
    if isinstance(value, (list, tuple, np.ndarray)):
        a = np.asarray(value, dtype=object if not isinstance(value, np.ndarray) else None)
        if a.dtype.kind == "f":
            return np.where(np.isnan(a), None, a).tolist()
        return [plain(v) for v in value] if a.dtype == object else a.tolist()
    return value


def assert_shows(fig: go.FigureWidget, traces: list[dict[str, Any]], layout: dict[str, Any], context: Any) -> None:
    """``fig`` shows the same traces and changing layout parts as a figure built (and validated) from the spec."""
    got = plain(fig.to_plotly_json())
    want = plain(go.Figure(data=traces, layout=layout).to_plotly_json())
    assert got["data"] == want["data"], context
    for key in LAYOUT_KEYS:
        assert got["layout"].get(key) == want["layout"].get(key), (context, key)
