"""A number typed out of a box's range is refused where the student sees it, never clipped silently.

ipywidgets' bounded number box clamps a typed value into its min/max in the browser, before the kernel sees it:
10,000,007 typed as the Laplace sensitivity became 1,000,000 and the figure was redrawn at it, with no word.  The
explorers keep the range in the kernel (dpviz.widgets.controls.guard_control), so the value reaches the guard,
which names the control, the value and the range, and puts the kept value back in the box.
"""

from __future__ import annotations

from .explorer_state import wait_until_idle


def test_a_typed_number_out_of_range_is_refused_and_the_box_restored(browser, voila_app):
    base, token = voila_app
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{base}/voila/render/laplace.ipynb?token={token}", timeout=180_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
    wait_until_idle(page)
    title_before = page.evaluate("() => document.querySelector('.js-plotly-plot').layout.title.text")
    box = page.locator(".widget-text:has(label:text-is('sensitivity Δ₁')) input")
    assert box.input_value() == "1"
    box.fill("10000007")
    box.press("Enter")
    wait_until_idle(page)
    message = page.locator(".dpviz-error")
    assert message.count() == 1, "no refusal shown"
    text = message.inner_text()
    assert "sensitivity = 10000007" in text and "[0, 1e+06]" in text and "stays at 1" in text, text
    assert box.input_value() == "1", f"the box shows {box.input_value()!r}, not the kept value 1"
    assert page.evaluate("() => document.querySelector('.js-plotly-plot').layout.title.text") == title_before
    page.close()
