"""Text typed into a slider's readout: read as the student means it, then accepted or refused by the control."""

from __future__ import annotations

import math

import ipywidgets as widgets
import pytest

from dpviz.widgets import LaplaceExplorer
from dpviz.widgets.readouts import TYPED_CLASS_PREFIX, parse_typed


@pytest.mark.parametrize(("widget", "text", "expected"), [
    (widgets.FloatSlider(), "0.5", 0.5),
    (widgets.FloatSlider(), " 1e-3 ", 0.001),
    (widgets.FloatSlider(), "\u22123", -3.0),                  # the minus sign a readout may print
    (widgets.IntSlider(max=10**6), "20,000", 20000),           # as the readout prints it
    (widgets.IntSlider(), "7.0", 7),
    (widgets.FloatLogSlider(), "0.01", 0.01),
    (widgets.FloatRangeSlider(), "0.25 – 0.75", (0.25, 0.75)),
    (widgets.FloatRangeSlider(min=-5), "-1 - 2", (-1.0, 2.0)),
    (widgets.IntRangeSlider(), "3 to 40", (3, 40)),
    (widgets.SelectionSlider(options=["0.9", "0.99"]), "0.99", "0.99"),
])
def test_typed_text_is_read_as_meant(widget, text, expected):
    assert parse_typed(widget, text) == expected


@pytest.mark.parametrize(("widget", "text", "words"), [
    (widgets.FloatSlider(), "junk", "is not a number"),
    (widgets.FloatSlider(), "1,2", "is not a number"),        # not a thousands separator: refused, not 12
    (widgets.IntSlider(), "2.5", "is not a whole number"),
    (widgets.FloatRangeSlider(), "0.3", "is not two numbers"),
    (widgets.SelectionSlider(options=[("low", 1), ("high", 2)]), "medium", "is not one of the choices"),
])
def test_text_that_is_no_value_is_refused_by_name(widget, text, words):
    with pytest.raises(ValueError, match=words):
        parse_typed(widget, text)


def test_only_sliders_are_read():
    with pytest.raises(TypeError, match="widget must be one of"):
        parse_typed(widgets.Text(), "1")


def test_a_typed_value_goes_through_the_controls_guard():
    explorer = LaplaceExplorer()
    guard = explorer.widget.children[-1]
    slider = explorer.controls["epsilon"]
    assert TYPED_CLASS_PREFIX + "epsilon" in slider._dom_classes
    guard.handle_typed("epsilon", "1e9")                      # out of range: refused, never clipped
    assert slider.value == 1.0 and "outside this explorer's range" in explorer.message_text
    guard.handle_typed("epsilon", "nan")
    assert slider.value == 1.0 and "finite" in explorer.message_text
    guard.handle_typed("epsilon", "0.5")
    assert math.isclose(slider.value, 0.5) and "epsilon = 0.5" in explorer.figure.layout.title.text
    explorer.close()


def test_a_range_typed_backwards_is_refused_not_raised():
    from dpviz.widgets import HierarchyExplorer

    explorer = HierarchyExplorer()
    name = next(k for k, w in explorer.controls.items() if isinstance(w, widgets.FloatRangeSlider))
    before = explorer.controls[name].value
    explorer.widget.children[-1].handle_typed(name, "0.5 to 0.25")
    assert explorer.controls[name].value == before and "low end above its high end" in explorer.message_text
    explorer.close()


def test_the_end_of_a_range_left_as_shown_keeps_its_exact_value():
    from dpviz.widgets.readouts import guard_readouts

    messages: list[str] = []
    slider = widgets.FloatRangeSlider(value=(0.0, 1 / 3), min=0.0, max=1.0, step=1e-9, readout_format=".2f")
    box = guard_readouts(widgets.VBox([slider]), {"r": slider}, messages.append)
    box.children[-1].handle_typed("r", "0.10 – 0.33", shown="0.00 – 0.33")
    assert slider.value == (0.1, 1 / 3) and not messages       # not 0.33: the student did not touch that end
