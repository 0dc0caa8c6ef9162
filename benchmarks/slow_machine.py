"""Explorers on a slow laptop and a busy server: does the figure always end up stating what the controls say?

Serves the course app with Voila (as ``make bench-browser`` does), opens every explorer page in headless Chromium
with its CPU throttled (CDP ``Emulation.setCPUThrottlingRate``; 6 is DevTools' low-end preset), optionally while
``--load N`` busy processes run beside it, and for each fresh visit: presses the main slider's key twice while
the page is still loading, waits for the figure, then makes ``--moves`` single moves.  After every step it waits
until the page is idle (tests/browser/explorer_state.py) and compares the slider's readout with the value the
figure's title states, and whether the title changed when the readout did.  A visit is *frozen* if any step ends
with the two apart.

Usage: ``python -m benchmarks.slow_machine [--rate 6] [--load 8] [--visits 1] [--moves 5] [--workers 1] [--json FILE]
[--exports] [page ...]``; ``--exports`` visits the kernel-free exported pages (dpviz.export) instead, a step checked
when the frame shown is the control's.  ``--workers K`` makes K visits at once, each from a browser of its own (K
students on one server: more load, never less); ``--json`` keeps every visit's figures.  Prints one row per page
(first figure median and worst, steps checked, steps apart, frozen visits) and exits 1 if any visit froze.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from benchmarks.browser_bench import CHROMIUM, CHROMIUM_ARGS, PAGES, voila_server
from tests.browser.explorer_state import same_shown_value, shown_pair, wait_until_idle

SLOW_MS = 300_000


@contextlib.contextmanager
def busy(n: int) -> Iterator[None]:
    """``n`` processes spinning on the CPU until the block ends."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def _visit(browser, url: str, name: str, rate: float, moves: int) -> tuple[float, int, int]:
    """One fresh visit: (seconds to the first figure, steps checked, steps with figure and slider apart)."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    t0 = time.monotonic()
    page.goto(url, timeout=SLOW_MS)
    handle = page.locator(".dpviz-main-control .noUi-handle").first
    handle.wait_for(timeout=SLOW_MS)
    handle.focus(timeout=SLOW_MS)
    for _ in range(2):
        page.keyboard.press("ArrowLeft")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=SLOW_MS)
    first = time.monotonic() - t0
    checked = apart = 0
    before: tuple[str, str] | None = None
    for k in range(moves + 1):
        if k:
            handle.focus(timeout=SLOW_MS)
            page.keyboard.press("ArrowRight" if k % 2 else "ArrowLeft")
        wait_until_idle(page, SLOW_MS)
        readout, stated, title = shown_pair(page, name)
        checked += 1
        # apart: the title does not state the readout's value, or the readout moved and the title did not (a title
        # stating "epsilon = 1" agrees with a readout of 1.02 at the one digit it shows)
        if not (stated is not None and same_shown_value(readout, stated)) or (
                before is not None and readout != before[0] and title == before[1]):
            apart += 1
            print(f"  {name} step {k}: readout {readout!r}, figure title {title!r}", flush=True)
        before = (readout, title)
    page.goto("about:blank")
    page.close()
    return first, checked, apart


# the exported page's state after a key press: the control's index, the frame shown and its title
EXPORT_STATE_JS = """() => {
  const shown = document.querySelector('.dpviz-frame.dpviz-shown');
  const t = shown && shown.layout && shown.layout.title;
  return {control: document.getElementById('dpviz-control').value, body: document.body.dataset.shown,
          frame: shown ? shown.dataset.frame : null, title: t ? (typeof t === 'string' ? t : (t.text || '')) : ''};
}"""


def _visit_export(browser, url: str, name: str, rate: float, moves: int) -> tuple[float, int, int]:
    """One fresh visit of a kernel-free exported page: (seconds to the first figure, steps checked, steps where
    the frame shown is not the control's)."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    t0 = time.monotonic()
    page.goto(url, timeout=SLOW_MS)
    control = page.locator("#dpviz-control")
    control.focus(timeout=SLOW_MS)
    page.keyboard.press("ArrowLeft")          # a key pressed while the page still loads
    page.wait_for_selector(".dpviz-frame.dpviz-shown .main-svg", timeout=SLOW_MS)
    first = time.monotonic() - t0
    page.wait_for_function("document.body.dataset.ready === 'true'", timeout=SLOW_MS)
    checked = apart = 0
    for k in range(moves + 1):
        if k:
            control.focus(timeout=SLOW_MS)
            page.keyboard.press("ArrowRight" if k % 2 else "ArrowLeft")
        try:   # settled: the frame shown is the control's (the page draws a frame it has not drawn yet first)
            page.wait_for_function("() => document.body.dataset.shown === document.getElementById('dpviz-control')"
                                   ".value", timeout=60_000)
        except Exception:  # noqa: BLE001 - a page that never catches up is counted, not raised
            pass
        state = page.evaluate(EXPORT_STATE_JS)
        checked += 1
        apart += not (state["control"] == state["body"] == state["frame"] and state["title"])
    page.close()
    return first, checked, apart


def _worker(tasks: queue.Queue, results: dict, errors: list, rate: float, moves: int) -> None:
    """Take (page, url, visit) tasks until none is left; each thread drives a Chromium of its own."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            while True:
                try:
                    name, url, k = tasks.get_nowait()
                except queue.Empty:
                    return
                try:
                    visit = _visit_export if url.startswith("file:") else _visit
                    results[name, k] = visit(browser, url, name, rate, moves)
                    first, checked, apart = results[name, k]
                    print(f"  {name} visit {k}: first figure {first:.1f} s, {checked} steps, {apart} apart",
                          flush=True)
                except Exception as exc:  # a visit that never showed its figure is reported, not hidden
                    errors.append(f"{name} visit {k}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                    results[name, k] = (float("nan"), 0, 1)
        finally:
            browser.close()


def print_table(what: str, visits: dict[str, list[tuple[float, int, int]]]) -> int:
    """Print one row per page (or lecture) from its visits' (first figure s, steps, steps apart); return the
    number of frozen visits (any step apart)."""
    print(f"{what:<28s} {'first figure (s): median':>26s} {'worst':>7s} {'steps':>6s} {'apart':>6s} {'frozen':>7s}")
    frozen_total = 0
    for name, rows in visits.items():
        firsts = [r[0] for r in rows]
        frozen = sum(r[2] > 0 for r in rows)
        frozen_total += frozen
        print(f"{name:<28s} {statistics.median(firsts):>26.1f} {max(firsts):>7.1f} "
              f"{sum(r[1] for r in rows):>6d} {sum(r[2] for r in rows):>6d} {frozen:>7d}", flush=True)
    return frozen_total


def run(pages: list[str], rate: float, load: int, visits: int, moves: int, workers: int = 1,
        json_path: str | None = None, exports: bool = False) -> int:
    print(f"CPU throttling x{rate:g}, {load} busy processes, {visits} fresh visit(s) per page, {moves} moves each, "
          f"{workers} visit(s) at once")
    results: dict[tuple[str, int], tuple[float, int, int]] = {}
    errors: list[str] = []
    t0 = time.monotonic()
    with busy(load), contextlib.ExitStack() as stack:
        if exports:    # the kernel-free pages (dpviz.export), one per explorer, opened from file://
            from dpviz.export import explorer_names, export

            out = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="dpviz-slow-exports-")))
            pages = explorer_names()
            urls = {name: export(name, out / f"{name}.html").as_uri() for name in pages}
        else:
            url, _pid = stack.enter_context(voila_server())
            urls = {name: url.format(page=name) for name in pages}
        tasks: queue.Queue = queue.Queue()
        for k in range(visits):  # visit k of every page before visit k + 1 of any: pages share the load evenly
            for name in pages:
                tasks.put((name, urls[name], k))
        threads = [threading.Thread(target=_worker, args=(tasks, results, errors, rate, moves))
                   for _ in range(max(1, workers))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    frozen_total = print_table("page", {name: [results[name, k] for k in range(visits)] for name in pages})
    print(f"{len(results)} visits in {time.monotonic() - t0:.0f} s")
    for line in errors:
        print("error:", line)
    if json_path:
        Path(json_path).write_text(json.dumps(
            {"rate": rate, "load": load, "moves": moves, "workers": workers, "errors": errors,
             "visits": [{"page": n, "visit": k, "first_s": r[0], "steps": r[1], "apart": r[2]}
                        for (n, k), r in sorted(results.items())]}, indent=1))
    return 1 if frozen_total else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", default=PAGES)
    parser.add_argument("--rate", type=float, default=6.0)
    parser.add_argument("--load", type=int, default=0)
    parser.add_argument("--visits", type=int, default=1)
    parser.add_argument("--moves", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", default=None)
    parser.add_argument("--exports", action="store_true", help="the kernel-free exported pages instead of the app")
    args = parser.parse_args(argv)
    return run(args.pages, args.rate, args.load, args.visits, args.moves, args.workers, args.json, args.exports)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
