"""The busy state: an explorer's box carries the class dpviz-busy while an update that has run for BUSY_AFTER_S is
still running, and a quick update sends nothing for the box."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("ipywidgets")

from dpviz.widgets import GPTTAttackExplorer, LaplaceExplorer  # noqa: E402
from dpviz.widgets.base import BUSY_AFTER_S, BUSY_CLASS  # noqa: E402


def _record(explorer):
    seen = []
    explorer.widget.observe(lambda ch: seen.append(BUSY_CLASS in ch["new"]), names="_dom_classes")
    return seen


def _slow(explorer, seconds, inside=None, fail=False):
    """Make the explorer's computation take ``seconds`` (and fail if asked); record whether the box is busy at
    its end."""
    original = explorer._compute

    def compute(**values):
        time.sleep(seconds)
        if inside is not None:
            inside.append(BUSY_CLASS in explorer.widget._dom_classes)
        if fail:
            raise ValueError("no")
        return original(**values)
    explorer._compute = compute


def test_busy_while_a_slow_update_runs_and_not_after():
    e = LaplaceExplorer(seed=0)
    assert BUSY_CLASS not in e.widget._dom_classes
    inside: list[bool] = []
    _slow(e, 3 * BUSY_AFTER_S, inside)
    seen = _record(e)
    e.controls["epsilon"].value = 0.5
    assert inside == [True] and seen == [True, False]
    assert BUSY_CLASS not in e.widget._dom_classes
    # the header says so 50 ms after the class arrives (a CSS delay), so about 200 ms into the update
    header = e.widget.children[0]
    assert "dpviz-busy-note" in header.value and "0.05s" in header.value


def test_a_quick_update_sends_nothing_for_the_box(monkeypatch: pytest.MonkeyPatch):
    import ipywidgets

    import dpviz.widgets.base as base

    monkeypatch.setattr(base, "BUSY_AFTER_S", 2.0)   # "quick" whatever the load on this machine
    e = LaplaceExplorer(seed=0)
    seen = _record(e)
    sent: list[str] = []
    original = ipywidgets.Widget._send

    def capture(self, msg, buffers=None):
        sent.append(type(self).__name__)
        return original(self, msg, buffers)
    monkeypatch.setattr(ipywidgets.Widget, "_send", capture)
    e.controls["epsilon"].value = 0.5
    time.sleep(0.3)   # the timer was cancelled: nothing arrives later either
    assert seen == [] and "VBox" not in sent and "ExplorerFigure" in sent
    assert not [t for t in threading.enumerate() if isinstance(t, threading.Timer)]   # and the thread ended


def test_busy_cleared_after_a_failed_update():
    e = LaplaceExplorer(seed=0)
    seen = _record(e)
    _slow(e, 3 * BUSY_AFTER_S, fail=True)
    e.controls["epsilon"].value = 0.5
    assert seen == [True, False] and "no" in e.message_text
    assert BUSY_CLASS not in e.widget._dom_classes
    # a quick failure: never marked
    e2 = LaplaceExplorer(seed=0)
    seen2 = _record(e2)
    _slow(e2, 0.0, fail=True)
    e2.controls["epsilon"].value = 0.5
    time.sleep(2 * BUSY_AFTER_S)
    assert seen2 == [] and "no" in e2.message_text


def test_gptt_copies_disabled_without_query_noise():
    e = GPTTAttackExplorer()
    copies, share = e.controls["copies"], e.controls["query_share"]
    assert share.value == 0 and copies.disabled and "only with query noise" in copies.description
    share.value = 0.5
    assert not copies.disabled and copies.description == "copies per query"
    share.value = 0.0
    assert copies.disabled
    # the share slider has a width of its own (without one its track rendered 0 px wide)
    assert e.controls["split"].layout.width == "420px"
