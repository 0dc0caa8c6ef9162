"""``Explorer.close()`` closes every widget an explorer made: none stays registered in the kernel (``del`` left 46)."""

from __future__ import annotations

import pytest
from ipywidgets.widgets import widget as ipywidgets_widget

import dpviz.widgets as dw

EXPLORERS = sorted(name for name in dw.__all__ if name.endswith("Explorer") and name != "Explorer")


def _registered() -> dict:
    instances = getattr(ipywidgets_widget, "_instances", None)
    if instances is None:                                   # pragma: no cover - ipywidgets moved its registry
        pytest.skip("ipywidgets keeps no _instances registry in this version")
    return dict(instances)


@pytest.mark.parametrize("name", EXPLORERS)
def test_close_leaves_no_widget_of_the_explorer_registered(name: str) -> None:
    dw.LaplaceExplorer().close()                            # the page's shared plotly loader exists from here on
    before = set(_registered())
    explorer = getattr(dw, name)()
    made = set(_registered()) - before
    assert len(made) > 10, f"{name} registered only {len(made)} widgets: is the registry the right one?"
    explorer.close()
    left = set(_registered()) & made
    assert not left, f"{name}.close() left {len(left)} of its {len(made)} widgets open"
