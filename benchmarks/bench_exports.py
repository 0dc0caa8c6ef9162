"""Kernel-free explorer pages (dpviz.export): page size and switching a grid value in headless chromium.

Rows per explorer: ``export <Name> page size [MB]`` against 3 MB; ``export <Name> switch`` -- the time from
setting the range input to the next frame painted (the page's ``dpvizShow`` plus two animation frames), over every
grid value, after the page has drawn its plots (it draws them while idle after loading; ``dpvizDrawAll`` waits for
that) -- against 100 ms; ``first key press`` -- the same for the value one step from the start, as soon as the
page is ready (the page draws both neighbours of the starting value before the control is live), against 100 ms;
and ``jump to a value not drawn yet`` -- the value farthest from the start, as soon as the page is ready: a full
``Plotly.newPlot`` of that frame, against 250 ms (the p95 budget of an input in the live app).  Skipped without
/usr/bin/chromium.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchmarks.harness import row

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
SWITCH_JS = """async k => { const t = performance.now(); await window.dpvizShow(k);
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); return performance.now() - t; }"""


def run() -> list[dict]:
    """Export every explorer into a temporary folder (removed afterwards), then time its page in chromium."""
    with tempfile.TemporaryDirectory(prefix="dpviz-exports-") as tmp:
        return _run(Path(tmp))


def _run(out: Path) -> list[dict]:
    from dpviz.export import MAX_PAGE_BYTES, explorer_names, export

    pages = {name: export(name, out / f"{name}.html") for name in explorer_names()}
    rows = [row(f"export {name} page size", [p.stat().st_size / 1e6], MAX_PAGE_BYTES / 1e6, unit="MB")
            for name, p in pages.items()]
    if not os.path.exists(CHROMIUM):
        return rows
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            for name, path in pages.items():
                page = browser.new_page(viewport={"width": 1200, "height": 900})
                page.goto(path.as_uri())
                page.wait_for_function("document.body.dataset.ready === 'true'", timeout=120_000)
                n = int(page.get_attribute("#dpviz-control", "max")) + 1
                start = int(page.get_attribute("#dpviz-control", "value"))
                first = [page.evaluate(SWITCH_JS, start + 1 if start + 1 < n else start - 1)]
                far = 0 if start > n - 1 - start else n - 1
                cold = [page.evaluate(SWITCH_JS, far)]
                page.evaluate("window.dpvizDrawAll()")
                times = [page.evaluate(SWITCH_JS, k) for _ in range(2) for k in range(n)]
                rows.append(row(f"export {name} switch", times, 100.0))
                rows.append(row(f"export {name} first key press after load", first, 100.0))
                rows.append(row(f"export {name} jump to a value not drawn yet", cold, 250.0))
                page.close()
        finally:
            browser.close()
    return rows
