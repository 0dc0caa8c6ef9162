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
