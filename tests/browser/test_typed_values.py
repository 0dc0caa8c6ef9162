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


def _readout(page, label: str):
    return page.locator(f".widget-slider:has(label:text-is('{label}')) .widget-readout, "
                        f".widget-hslider:has(label:text-is('{label}')) .widget-readout").first


def _title(page) -> str:
    return page.evaluate("() => document.querySelector('.js-plotly-plot').layout.title.text")


def test_a_slider_readout_takes_a_typed_value_and_refuses_one_out_of_range(browser, voila_app):
    # ipywidgets clamps a typed readout into the slider's range in the browser (1e9 became the maximum, silently);
    # dpviz.widgets.readouts sends the text to the kernel, which refuses it by name and range
    base, token = voila_app
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{base}/voila/render/laplace.ipynb?token={token}", timeout=180_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
    wait_until_idle(page)
    readout = page.locator(".dpviz-main-control .widget-readout")
    assert readout.get_attribute("role") == "textbox" and "type a value" in (readout.get_attribute("aria-label") or "")
    shown, title = readout.inner_text().strip(), _title(page)
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("1e9")
    page.keyboard.press("Enter")
    wait_until_idle(page)
    text = page.locator(".dpviz-error").inner_text()
    assert "1000000000" in text and "outside this explorer's range" in text, text
    assert readout.inner_text().strip() == shown and _title(page) == title
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("0.5")
    page.keyboard.press("Enter")
    wait_until_idle(page)
    assert "epsilon = 0.5," in _title(page), _title(page)
    assert float(readout.inner_text()) == 0.5
    page.close()


def test_text_typed_beside_a_choice_slider_is_refused_and_wiped(browser, voila_app):
    # the sum-queries truncation ratio is a choice slider: ipywidgets left typed junk on screen, p unchanged
    base, token = voila_app
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{base}/voila/render/sum_queries.ipynb?token={token}", timeout=180_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
    wait_until_idle(page)
    readout = page.locator(".dpviz-main-control .widget-readout")
    shown, title = readout.inner_text().strip(), _title(page)
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("junk")
    page.keyboard.press("Tab")                  # leaving the readout commits it, as Enter does
    wait_until_idle(page)
    assert readout.inner_text().strip() == shown, f"the readout shows {readout.inner_text()!r}"
    text = page.locator(".dpviz-error").inner_text()
    assert "'junk' is not one of the choices" in text, text
    assert _title(page) == title
    page.close()
