"""Fast keyboard moves on every explorer's main control end with the figure stating the control's value.

A student holding an arrow key, tapping Home/End, or reversing mid-burst sends moves faster than some explorers
redraw.  Whatever arrives out of order, is throttled, dropped or echoed late, once the page is idle (a state:
tests/browser/explorer_state.py) the figure's title must name the value the slider shows -- a screenshot once
showed the Laplace slider at 0.933 under a figure titled epsilon = 0.977.  Bursts are pressed without pauses and
with short seeded pauses (so moves land while a redraw is in flight), and the pairing is checked after each.
"""

from __future__ import annotations

import random

from .explorer_state import same_shown_value, shown_pair, wait_until_idle

#: Bursts of (key, presses); a pause of 0-250 ms (seeded) follows some presses in the second half.
BURSTS = [
    [("ArrowRight", 9), ("ArrowLeft", 4)],
    [("End", 1), ("ArrowLeft", 3), ("Home", 1), ("ArrowRight", 5)],
    [("ArrowLeft", 6), ("ArrowRight", 2), ("ArrowLeft", 1)],
]


def test_fast_keyboard_moves_end_with_figure_equal_to_control(explorer_page, screenshot_dir):
    name, page = explorer_page
    wait_until_idle(page)
    readout, stated, title = shown_pair(page, name)
    assert stated is not None, f"{name}: the figure title does not state the main control's value: {title!r}"
    assert same_shown_value(readout, stated), f"{name}: at load the slider shows {readout}, the figure {stated}"

    rng = random.Random(18)
    handle = page.locator(".dpviz-main-control .noUi-handle").first
    handle.focus()
    seen = [readout]
    for k, burst in enumerate(BURSTS):
        for key, presses in burst:
            for _ in range(presses):
                page.keyboard.press(key)
                if k > 0 and rng.random() < 0.4:
                    page.wait_for_timeout(rng.randint(0, 250))
        wait_until_idle(page)
        readout, stated, title = shown_pair(page, name)
        seen.append(readout)
        assert stated is not None, f"{name}: after burst {k} the title does not state the value: {title!r}"
        assert same_shown_value(readout, stated), (
            f"{name}: after burst {k} ({burst}) the slider shows {readout} but the figure says {stated} ({title!r})")
    assert len(set(seen)) > 1, f"{name}: the keyboard moves did not move the slider ({seen})"
    # the readability review's screenshots, at both sizes the course is checked at (the page scrolls: full height)
    for width, height in ((1400, 1000), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => { window.dispatchEvent(new Event('resize')); const p = document.querySelector("
                      "'.js-plotly-plot'); return window.Plotly && p ? window.Plotly.Plots.resize(p) : null; }")
        wait_until_idle(page)
        page.locator(".dpviz-explorer").screenshot(path=str(screenshot_dir / f"{name}-{width}x{height}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})
