"""Open every explorer of the course app in a real browser, move its main slider, and check the plot redraws.

What a student sees: the page renders a plotly figure, moving the main slider
(by keyboard, as a student using the keyboard would) changes the plotted data,
and neither an error output nor a browser console error appears.  A
screenshot of each explorer after the move is saved for people to look at.
"""

from __future__ import annotations

import json
from urllib.parse import urlparse

import pytest

from .explorer_state import wait_until_idle

PAGES = {
    # page: what the main slider is
    "privacy_loss": "epsilon",
    "laplace": "epsilon",
    "composition": "total budget epsilon",
    "subsampling": "sampling rate p",
    "composition_bounds": "number of releases k",
    "hierarchies": "branching factor b",
    "matrix_mechanism": "epsilon",
    "sum_queries": "truncation ratio p",
    "gptt_attack": "epsilon",
    "audit": "number of samples",
    "comparison": "epsilon",
    "selection": "epsilon",
}
PLOT_DATA_JS = """() => JSON.stringify(Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(p => (p.data || []).map(t => [t.x, t.y])))"""


def _watch(page, base):
    """Collect HTTP errors from this server (console errors and warnings, page errors and requests that leave
    the machine fail every test through conftest's PageRules)."""
    errors = []
    host = urlparse(base).netloc

    def on_response(resp):
        if urlparse(resp.url).netloc == host and resp.status >= 400:
            errors.append(f"HTTP {resp.status}: {resp.url}")

    page.on("response", on_response)
    return errors, []


def test_landing_page_lists_every_explorer(browser, voila_app, screenshot_dir):
    base, token = voila_app
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors, _ = _watch(page, base)
    page.goto(f"{base}/voila/render/index.ipynb?token={token}", timeout=120_000)
    page.wait_for_selector("table", timeout=120_000)
    hrefs = page.eval_on_selector_all("a", "els => els.map(e => e.getAttribute('href'))")
    for name in PAGES:
        assert f"{name}.ipynb" in hrefs, f"landing page does not link {name}.ipynb"
    page.screenshot(path=str(screenshot_dir / "index.png"), full_page=True)
    assert not errors, errors
    page.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_explorer_redraws_when_main_slider_moves(browser, voila_app, screenshot_dir, name):
    base, token = voila_app
    page = browser.new_page(viewport={"width": 1280, "height": 1700})
    errors, external = _watch(page, base)
    page.goto(f"{base}/voila/render/{name}.ipynb?token={token}", timeout=180_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
    page.wait_for_function("() => document.querySelector('.js-plotly-plot').data.length > 0", timeout=60_000)
    wait_until_idle(page)
    before = page.evaluate(PLOT_DATA_JS)
    assert json.loads(before)[0], "the plot rendered without data"

    handle = page.locator(".dpviz-main-control .noUi-handle").first
    handle.focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    wait_until_idle(page)   # every move computed and redrawn: a state, not a time
    assert page.evaluate(PLOT_DATA_JS) != before, f"{name}: moving the {PAGES[name]} slider did not change the plot"
    # the handle announces the value the readout shows (a log slider's handle would announce its exponent)
    readout = page.locator(".dpviz-main-control .widget-readout").first.inner_text().strip()
    assert readout and handle.get_attribute("aria-valuetext") == readout, (
        f"{name}: aria-valuetext {handle.get_attribute('aria-valuetext')!r}, readout {readout!r}")
    page.screenshot(path=str(screenshot_dir / f"{name}.png"), full_page=True)

    stderr = page.locator("[data-mime-type='application/vnd.jupyter.stderr'], .jp-OutputArea-output.jp-mod-error")
    assert stderr.count() == 0, f"{name}: error output on the page: {stderr.first.inner_text()}"
    # an explorer shows a failed update in its message widget (the kernel keeps running, so look there)
    assert page.locator(".dpviz-message").count() == 1, f"{name}: the explorer's message area did not render"
    shown = page.locator(".dpviz-error")
    assert shown.count() == 0, f"{name}: the explorer reported an error: {shown.first.inner_text()}"
    assert not errors, f"{name}: {errors}"
    page.close()
