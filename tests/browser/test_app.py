"""Open every explorer of the course app in a real browser, move its main slider, and check the plot redraws.

What a student sees: the page renders a plotly figure, moving the main slider
(by keyboard, as a student using the keyboard would) changes the plotted data,
and neither an error output nor a browser console error appears.  A
screenshot of each explorer after the move is saved for people to look at.
"""

from __future__ import annotations

import json
import re
import time
from urllib.parse import urlparse

import pytest

from .explorer_state import same_shown_value, shown_pair, wait_until_idle

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
    .map(p => (p.data || []).map(t => [t.x, t.y, t.source])))"""


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
    assert page.title().endswith(" — dpviz") and page.title() != name, f"{name}: page title {page.title()!r}"

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
    # ... and its aria-valuenow is that number, inside aria-valuemin/max (in value units on a log slider: the
    # library writes its internal position, the exponent, rounded to 0.1)
    if re.fullmatch(r"[-+]?[0-9][0-9,]*\.?[0-9]*(e[-+]?[0-9]+)?", readout, re.IGNORECASE):
        now, lo, hi = (float(handle.get_attribute(f"aria-value{k}")) for k in ("now", "min", "max"))
        assert now == float(readout.replace(",", "")) and lo <= now <= hi, (
            f"{name}: aria-valuenow/min/max {now}, {lo}, {hi} for the readout {readout!r}")
        if page.locator(".dpviz-main-control.dpviz-log10").count():
            assert lo > 0, f"{name}: the log slider announces its exponent as the minimum ({lo})"
    page.screenshot(path=str(screenshot_dir / f"{name}.png"), full_page=True)

    stderr = page.locator("[data-mime-type='application/vnd.jupyter.stderr'], .jp-OutputArea-output.jp-mod-error")
    assert stderr.count() == 0, f"{name}: error output on the page: {stderr.first.inner_text()}"
    # an explorer shows a failed update in its message widget (the kernel keeps running, so look there)
    assert page.locator(".dpviz-message").count() == 1, f"{name}: the explorer's message area did not render"
    shown = page.locator(".dpviz-error")
    assert shown.count() == 0, f"{name}: the explorer reported an error: {shown.first.inner_text()}"
    assert not errors, f"{name}: {errors}"
    page.close()


KERNEL_ID_JS = "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"


@pytest.mark.parametrize("name", ["composition", "composition_bounds", "laplace"])
def test_preheated_page_redraws_when_its_controls_move(browser, voila_server, name):
    """app/voila.json preheats a kernel per page: a page served from the pool must redraw on every move (once
    the plot kept its first state while the kernel, its ledgers and the slider moved on)."""
    base, token, log, _ = voila_server
    pool_filled = f"Kernel pool of {name}.ipynb is filled"
    deadline = time.monotonic() + 180
    while pool_filled not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert pool_filled in log.read_text(), f"{name}: voila never filled its kernel pool (is preheating on?)"
    page = browser.new_page(viewport={"width": 1280, "height": 1700})
    page.goto(f"{base}/voila/render/{name}.ipynb?token={token}", timeout=180_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
    kernel = page.evaluate(KERNEL_ID_JS)
    assert f"Using pre-heated kernel: {kernel} for {name}.ipynb" in log.read_text(), (
        f"{name}: the page's kernel {kernel} is not one of the pool's")
    wait_until_idle(page)
    handle = page.locator(".dpviz-main-control .noUi-handle").first
    handle.focus()
    seen = []
    for key in ("ArrowLeft", "ArrowLeft", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
        wait_until_idle(page)
        readout, stated, title = shown_pair(page, name)
        assert stated is not None and same_shown_value(readout, stated), (
            f"{name} (preheated): after {key} the slider shows {readout}, the figure {stated} ({title!r})")
        seen.append(readout)
    assert len(set(seen)) > 1, f"{name}: the moves did not move the slider ({seen})"
    page.close()
