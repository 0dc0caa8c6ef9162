"""Accessibility of the course app in a real browser: axe-core finds no serious or critical violation on any page,
and every explorer control has an accessible name, is reached by Tab, and shows a visible focus outline.

axe-core comes from the npm registry (``make browser-deps`` installs it in build/browser-deps); Playwright injects
it into each Voila page once the explorer is idle.  Without it the axe checks are skipped (failed under CI).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .explorer_state import wait_until_idle

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "build" / "browser-deps" / "node_modules" / "axe-core" / "axe.min.js"
#: WCAG 2.1 A and AA rules plus axe's best practices; a violation of impact "serious" or "critical" fails.
AXE_RUN = """async () => JSON.stringify((await axe.run(document, {
    runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']},
    resultTypes: ['violations']})).violations)"""

CONTROLS_JS = """() => {
    const root = document.querySelector('.dpviz-explorer');
    const sel = 'input, select, button, textarea, [role="slider"], [contenteditable="true"]';
    const visible = e => e.offsetParent !== null && !e.disabled && e.getAttribute('tabindex') !== '-1';
    const all = Array.from(root.querySelectorAll(sel)).filter(e => visible(e) && !e.closest('.js-plotly-plot'));
    all.forEach((e, k) => e.setAttribute('data-a11y-index', String(k)));
    const name = e => (e.getAttribute('aria-label') || (e.labels && e.labels.length ? e.labels[0].textContent : '')
        || e.getAttribute('title') || e.textContent || '').trim();
    return all.map(e => ({tag: e.tagName.toLowerCase(), role: e.getAttribute('role'), name: name(e)}));
}"""

FOCUS_JS = """() => {
    const e = document.activeElement;
    if (!e || !e.hasAttribute('data-a11y-index')) return null;
    const s = getComputedStyle(e);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1;
    return {index: Number(e.getAttribute('data-a11y-index')), visible: outline || s.boxShadow !== 'none'};
}"""


def _axe_source() -> str:
    if not AXE.exists():
        msg = f"{AXE} not found: `make browser-deps` installs axe-core from the npm registry"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return AXE.read_text()


def _axe_violations(page) -> list[str]:
    """The serious and critical violations axe-core finds on ``page``, one line each."""
    page.add_script_tag(content=_axe_source())
    violations = json.loads(page.evaluate(AXE_RUN))
    return [f"{v['impact']} {v['id']} ({v['help']}): " + "; ".join(n["html"][:120] for n in v["nodes"][:3])
            for v in violations if v["impact"] in ("serious", "critical")]


def test_axe_finds_no_serious_violation_on_the_landing_page(browser, voila_app):
    _axe_source()
    base, token = voila_app
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{base}/voila/render/index.ipynb?token={token}", timeout=180_000)
    page.wait_for_selector("table", timeout=120_000)
    bad = _axe_violations(page)
    assert not bad, "index: " + "\n".join(bad)
    page.close()


def test_axe_finds_no_serious_violation_on_an_explorer_page(explorer_page):
    _axe_source()
    name, page = explorer_page
    wait_until_idle(page)
    bad = _axe_violations(page)
    assert not bad, f"{name}: " + "\n".join(bad)


def test_every_control_named_reached_by_tab_with_visible_focus(explorer_page):
    name, page = explorer_page
    wait_until_idle(page)
    controls = page.evaluate(CONTROLS_JS)
    assert controls, f"{name}: no controls found in the explorer"
    unnamed = [c for c in controls if not c["name"]]
    assert not unnamed, f"{name}: controls without an accessible name: {unnamed}"
    page.locator("body").focus()
    reached, no_outline = set(), set()
    for _ in range(4 * len(controls) + 40):
        page.keyboard.press("Tab")
        focus = page.evaluate(FOCUS_JS)
        if focus is not None:
            reached.add(focus["index"])
            if not focus["visible"]:
                no_outline.add(focus["index"])
        if len(reached) == len(controls):
            break
    missed = [controls[k] for k in range(len(controls)) if k not in reached]
    assert not missed, f"{name}: Tab never reaches {missed}"
    assert not no_outline, f"{name}: no visible focus on {[controls[k] for k in sorted(no_outline)]}"


def test_every_figure_says_its_title_in_a_live_region(browser, voila_app):
    # a plot is pictures to a screen reader: the title (each explorer states its parameters and result there) is
    # kept in a polite live region beside it, and changes when the figure does
    base, token = voila_app
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{base}/voila/render/laplace.ipynb?token={token}", timeout=180_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
    wait_until_idle(page)
    region = page.locator(".dpviz-figure-text")
    assert region.count() == 1 and region.get_attribute("aria-live") == "polite"
    before = region.text_content()
    title = page.evaluate("() => document.querySelector('.js-plotly-plot').layout.title.text")
    assert before == "Figure: " + title
    page.locator(".dpviz-main-control .noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    wait_until_idle(page)
    page.wait_for_function("(t) => document.querySelector('.dpviz-figure-text').textContent !== t", arg=before,
                           timeout=30_000)
    assert "epsilon = " in region.text_content()
    page.close()
