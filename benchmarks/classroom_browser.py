"""A classroom student in headless chromium (``benchmarks/classroom.py --driver browser``; for small N).

The student logs in through the hub's form, waits for its server, opens the course-app page in Voila and presses
the arrow key on the explorer's main slider.  Every renderer shares the machine's cores with the servers, so at
N = 20-30 this measures the browsers; the default driver (``benchmarks/classroom_kernel.py``) measures the server.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

__all__ = ["open_browser", "browser_student"]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: Seconds a student looks at the figure before the next slider move.
THINK_S = 1.0
PLOT_DATA_JS = """() => JSON.stringify(Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(p => (p.data || []).map(t => [t.x, t.y])))"""
#: What a stalled page shows (written into the student's report when a wait lasts over STALL_S; it never fails it).
STATE_JS = """() => { const a = document.activeElement; const r = document.querySelector(
    '.dpviz-main-control .widget-readout');
  return {focus: a ? a.className : null, readout: r ? r.textContent : null,
          plots: Array.from(document.querySelectorAll('.js-plotly-plot')).map(p => (p.data || []).length),
          busy: document.querySelectorAll('.dpviz-busy').length, hasFocus: document.hasFocus()}; }"""
STALL_S = 30.0


async def _wait(page: Any, s: Any, stage: str, js: str, **kwargs: Any) -> None:
    """Wait (without a limit: the run's own limit bounds it) for ``js`` to be true; note the page's state when a
    wait stalls for longer than STALL_S, for the report."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    s.stage = stage
    while True:
        try:
            await page.wait_for_function(js, timeout=STALL_S * 1e3, **kwargs)
            return
        except PlaywrightTimeout:
            s.notes.append(f"{stage} stalled {STALL_S:g} s: {await page.evaluate(STATE_JS)}")


async def open_browser() -> tuple[Any, Any]:
    """Start Playwright and Debian's chromium; return ``(playwright, browser)`` (the caller stops both)."""
    from playwright.async_api import async_playwright

    playwright = await async_playwright().start()
    browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    return playwright, browser


async def browser_student(browser: Any, base: str, s: Any, page_name: str, moves: int) -> None:
    """Run one student (``s`` is a ``benchmarks.classroom.Student``, filled in place); never raises."""
    context = await browser.new_context(viewport={"width": 1280, "height": 1400})
    s.close = context.close
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    # console errors and warnings are noted (a failed student's report shows them), not counted as failures
    page.on("console", lambda m: s.notes.append(f"console {m.type}: {m.text[:300]}")
            if m.type in ("error", "warning") else None)
    try:
        t0 = time.perf_counter()
        s.stage = "login"
        await page.goto(f"{base}/hub/login", timeout=0)
        await page.fill("input[name=username]", s.name)
        await page.fill("input[name=password]", "benchmark-only")
        await page.click("input[type=submit], button[type=submit]")
        await page.wait_for_url(f"**/user/{s.name}/**", timeout=0)
        s.login_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        s.stage = "page"
        await page.goto(f"{base}/user/{s.name}/voila/render/{page_name}.ipynb", timeout=0)
        await _wait(page, s, "first figure", "() => { const p = document.querySelector('.js-plotly-plot');"
                    " return p && p.data && p.data.length > 0; }")
        s.first_figure_s = time.perf_counter() - t1
        handle = page.locator(".dpviz-main-control .noUi-handle").first
        for k in range(moves):
            await asyncio.sleep(THINK_S)
            await page.evaluate(f"() => {{ window.__dpvizBefore = ({PLOT_DATA_JS})(); }}")
            await handle.focus()
            t2 = time.perf_counter()
            await page.keyboard.press("ArrowLeft")
            await _wait(page, s, f"move {k + 1}", f"() => ({PLOT_DATA_JS})() !== window.__dpvizBefore", polling=50)
            s.moves_ms.append((time.perf_counter() - t2) * 1e3)
        shown = page.locator(".dpviz-error")
        if await shown.count():
            s.error = f"explorer error: {await shown.first.inner_text()}"
        elif errors:
            s.error = "; ".join(errors)
    except Exception as exc:  # noqa: BLE001 - a failed student is reported, not raised
        s.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
