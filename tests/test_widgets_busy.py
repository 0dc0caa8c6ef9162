"""The busy state: an explorer's box carries the class dpviz-busy exactly while an update runs."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from dpviz.widgets import GPTTAttackExplorer, LaplaceExplorer  # noqa: E402
from dpviz.widgets.base import BUSY_CLASS  # noqa: E402


def _record(explorer):
    seen = []
    explorer.widget.observe(lambda ch: seen.append(BUSY_CLASS in ch["new"]), names="_dom_classes")
    return seen


def test_busy_while_an_update_runs_and_not_after():
    e = LaplaceExplorer(seed=0)
    assert BUSY_CLASS not in e.widget._dom_classes
    inside = []
    original = e._compute
    e._compute = lambda **v: (inside.append(BUSY_CLASS in e.widget._dom_classes), original(**v))[1]
    seen = _record(e)
    e.controls["epsilon"].value = 0.5
    assert inside == [True] and seen == [True, False]
    assert BUSY_CLASS not in e.widget._dom_classes
    # the header says so, but only after 200 ms (a CSS delay, so quick updates never flash it)
    header = e.widget.children[0]
    assert "dpviz-busy-note" in header.value and "0.2s" in header.value


def test_busy_cleared_after_a_failed_update():
    e = LaplaceExplorer(seed=0)
    seen = _record(e)

    def fail(**values):
        raise ValueError("no")
    e._compute = fail
    e.controls["epsilon"].value = 0.5
    assert seen == [True, False] and "no" in e.message_text
    assert BUSY_CLASS not in e.widget._dom_classes


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
