"""Open every explorer's kernel-free page (dpviz.export) in headless chromium and move its control over the grid.

The pages are opened from file:// (no server, no network): each must load its figure, answer every step of its
range input moved by keyboard (Home, then ArrowRight to the end) with a different figure and the value in
``aria-valuetext``, request nothing outside the file, and log no console error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpviz.export import explorer_names, export

NAMES = explorer_names()
FINGERPRINT_JS = """() => {
  const plot = document.querySelector('.dpviz-frame.dpviz-shown');
  return JSON.stringify(plot._fullData.map(t => [Array.from(t.x || []), Array.from(t.y || []), t.source || null]));
}"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("exports")
    return {name: export(name, out / f"{name}.html") for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_exported_page_switches_every_grid_value(browser, exported, screenshot_dir, name: str) -> None:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("request", lambda req: errors.append(f"request: {req.url}")
            if not req.url.startswith(("file:", "data:", "blob:")) else None)
    try:
        page.goto(exported[name].as_uri())
        page.wait_for_function("document.body.dataset.ready === 'true'", timeout=60_000)
        meta = json.loads(page.text_content("#dpviz-meta"))
        control = page.locator("#dpviz-control")
        assert control.get_attribute("aria-valuetext") == f"{meta['label']} = {meta['labels'][meta['start']]}"
        assert page.locator("label[for=dpviz-control]").text_content() == meta["label"]
        control.focus()
        seen = []
        for k in range(len(meta["values"])):
            page.keyboard.press("Home" if k == 0 else "ArrowRight")
            page.wait_for_function(f"document.body.dataset.shown === '{k}'", timeout=30_000)
            assert control.get_attribute("aria-valuetext") == f"{meta['label']} = {meta['labels'][k]}"
            fingerprint = page.evaluate(FINGERPRINT_JS)
            assert not seen or fingerprint != seen[-1], f"{name}: the figure did not change at step {k}"
            seen.append(fingerprint)
        assert page.locator(".dpviz-frame.dpviz-shown").count() == 1
        assert page.locator(".modebar-btn").count() == 0, "mode-bar buttons: one bar per drawn value, all hidden"
        # plotly's stylesheet keys on its own class on the plot div: with it the layers stack (absolute) and
        # the mode bar hides until hover; without it the title falls below the plot
        styled = page.evaluate("""() => {
          const shown = document.querySelector('.dpviz-frame.dpviz-shown');
          return [shown.classList.contains('js-plotly-plot'),
                  getComputedStyle(shown.querySelector('.main-svg')).position];
        }""")
        assert styled == [True, "absolute"], f"{name}: plotly's CSS does not apply to the shown plot: {styled}"
        page.screenshot(path=str(screenshot_dir / f"export_{name}.png"), full_page=True)
    finally:
        page.close()
    assert not errors, errors
