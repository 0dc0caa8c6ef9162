"""Explorers on a slow laptop: Chromium's CPU slowed 6x (DevTools' low-end preset), moves made while the page loads.

Under that throttling plotly's 4.9 MB widget bundle took about 27 s to compile, and anywidget 0.11 rejects a model
whose module has not started within 2 s ("[anywidget] Failed to initialize model."): the figure was drawn later,
but every update after that was dropped while the slider and the text kept moving (3 of 3 moves never redrew).
Here a student moves the main slider as soon as it is on the page, before the figure exists, and again after it
is drawn; once the page is idle (tests/browser/explorer_state.py) the figure's title must state the slider's value
every time.
"""

from __future__ import annotations

import time

import pytest

from .explorer_state import same_shown_value, shown_pair, wait_until_idle

#: Chromium's CPU throttling rate: 6 is DevTools' "low-end mobile" preset, about a low-end laptop.
THROTTLING = 6
#: Long enough for a page whose first figure takes ~30 s at this rate.
SLOW_MS = 300_000


def _slowed_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLING})
    page.goto(url, timeout=SLOW_MS)
    return page


def _check(page, name: str, when: str) -> None:
    wait_until_idle(page, SLOW_MS)
    readout, stated, title = shown_pair(page, name)
    assert stated is not None, f"{name}: {when}, the figure title does not state the main control's value: {title!r}"
    assert same_shown_value(readout, stated), (
        f"{name}: {when}, the slider shows {readout} but the figure says {stated} ({title!r})")


# One page in `make test` (about 40 s at this rate): hierarchies, on which the old figure module froze.
@pytest.mark.parametrize("name", ["hierarchies"])
def test_figure_follows_the_slider_on_a_cpu_slowed_six_times(browser, voila_app, name):
    base, token = voila_app
    t0 = time.monotonic()
    page = _slowed_page(browser, f"{base}/voila/render/{name}.ipynb?token={token}")
    handle = page.locator(".dpviz-main-control .noUi-handle").first
    handle.wait_for(timeout=SLOW_MS)
    drawn_before_moves = page.locator(".js-plotly-plot .main-svg").count() > 0
    handle.focus()
    for _ in range(3):                      # while the page is still loading (the figure usually is not there yet)
        page.keyboard.press("ArrowLeft")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=SLOW_MS)
    first_figure = time.monotonic() - t0
    _check(page, name, f"after 3 moves made while the page loaded (figure drawn before them: {drawn_before_moves})")
    for k in range(3):                      # and one at a time once it is drawn: each must redraw
        handle.focus()
        page.keyboard.press("ArrowRight")
        _check(page, name, f"after move {k + 1} with the figure drawn")
    print(f"{name}: first figure after {first_figure:.1f} s at CPU throttling x{THROTTLING}")
    page.close()
