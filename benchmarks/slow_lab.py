"""Lectures in JupyterLab on a slow laptop and a busy server: does every explorer's figure end up stating its slider?

The JupyterLab counterpart of ``benchmarks/slow_machine.py`` (the Voila pages).  Starts JupyterLab over a copy of
``notebooks/`` (``benchmarks.browser_bench.lab_server``: the flags of ``make lab``, and the app exposed to the
page), and for each fresh visit of a lecture: opens it in headless Chromium with the CPU throttled (CDP
``Emulation.setCPUThrottlingRate``; 6 is DevTools' low-end preset), optionally while ``--load N`` busy processes
run, runs all cells as a student does, presses the first explorer's main-slider key twice as soon as the slider
is on the page (usually before its figure is drawn), then makes ``--moves`` single moves on *every* explorer of
the lecture.  A step is *settled* when the kernel is idle and the explorer's figure title states the value its
slider's readout shows; a step that does not settle within ``--settle`` seconds is counted *apart* (a frozen
figure never settles) and its readout and title are printed.  The kernel is shut down after each visit, so the
next visit is a fresh one.

Usage: ``python -m benchmarks.slow_lab [--rate 6] [--load 8] [--visits 1] [--moves 5] [--settle 120] [--json FILE]
[lecture ...]``.  Prints one row per lecture (time from "run all" to the first explorer figure, median and worst;
steps checked; steps apart; frozen visits) and exits 1 if any visit froze.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from benchmarks.browser_bench import CHROMIUM, CHROMIUM_ARGS, lab_server
from benchmarks.slow_machine import busy, print_table
from tests.browser.explorer_state import TITLE_PARAMETER, same_shown_value

ROOT = Path(__file__).resolve().parents[1]
#: The lectures the issue names, with the page whose title pattern their explorers share.
LECTURES = {"00_what_dp_promises": "privacy_loss", "03_hierarchies": "hierarchies",
            "06_sparse_vector_and_gptt": "gptt_attack"}
SLOW_MS = 600_000

NOTEBOOK_JS = "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
KERNEL_IDLE_JS = """() => { const w = window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.status === 'idle'; }"""
# explorer k's readout and figure title (explorers are the .dpviz-explorer boxes, in page order)
EXPLORER_JS = """(k) => { const root = document.querySelectorAll('.dpviz-explorer')[k];
  if (!root) return null;
  const p = root.querySelector('.js-plotly-plot'), r = root.querySelector('.dpviz-main-control .widget-readout');
  const t = p && p.layout && p.layout.title;
  return {title: t ? (typeof t === 'string' ? t : (t.text || '')) : '', readout: r ? r.textContent.trim() : null}; }"""


def _settled(page, k: int, pattern: str, settle_s: float, before: dict | None) -> tuple[bool, dict]:
    """Wait until the kernel is idle and explorer ``k``'s title states its readout's value (and changed if the
    readout did since ``before``: "epsilon = 1" agrees with 1.02 at the one digit it shows); (settled, state)."""
    deadline = time.monotonic() + settle_s
    state: dict = {}
    while time.monotonic() < deadline:
        if page.evaluate(KERNEL_IDLE_JS):
            state = page.evaluate(EXPLORER_JS, k) or {}
            found = re.search(pattern, state.get("title", ""))
            moved_alone = bool(before) and state.get("readout") != before.get("readout") and (
                state.get("title") == before.get("title"))
            if (found and state.get("readout") and not moved_alone
                    and same_shown_value(state["readout"], found.group(1).rstrip("."))):
                return True, state
        page.wait_for_timeout(250)
    return False, state


def _visit(browser, url: str, pattern: str, rate: float, moves: int, settle_s: float, label: str
           ) -> tuple[float, int, int, int]:
    """One fresh visit: (seconds from "run all" to the first explorer figure, explorers, steps, steps apart)."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
    page.goto(url, timeout=SLOW_MS)
    page.wait_for_function(NOTEBOOK_JS + " && document.querySelector('.jp-Notebook')", timeout=SLOW_MS)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=SLOW_MS)
    t0 = time.monotonic()
    page.evaluate("() => { window.__dpvizRan = false; window.jupyterapp.commands"
                  ".execute('notebook:run-all-cells').then(() => { window.__dpvizRan = true; }); }")
    handle = page.locator(".dpviz-explorer .dpviz-main-control .noUi-handle").first
    handle.wait_for(timeout=SLOW_MS)
    handle.focus(timeout=SLOW_MS)
    for _ in range(2):                      # a student who moves the slider before the figure is there
        page.keyboard.press("ArrowLeft")
    page.wait_for_selector(".dpviz-explorer .js-plotly-plot .main-svg", timeout=SLOW_MS)
    first = time.monotonic() - t0
    page.wait_for_function("() => window.__dpvizRan === true", timeout=SLOW_MS)
    explorers = page.locator(".dpviz-explorer").count()
    checked = apart = 0
    for k in range(explorers):
        handle = page.locator(".dpviz-explorer").nth(k).locator(".dpviz-main-control .noUi-handle").first
        state: dict | None = None
        for step in range(moves + 1):
            if step:
                handle.scroll_into_view_if_needed(timeout=SLOW_MS)
                handle.focus(timeout=SLOW_MS)
                page.keyboard.press("ArrowRight" if step % 2 else "ArrowLeft")
            ok, state = _settled(page, k, pattern, settle_s, state)
            checked += 1
            if not ok:
                apart += 1
                print(f"  {label} explorer {k} step {step}: readout {state.get('readout')!r}, "
                      f"figure title {state.get('title')!r}", flush=True)
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    page.close()
    return first, explorers, checked, apart


def run(lectures: list[str], rate: float, load: int, visits: int, moves: int, settle_s: float,
        json_path: str | None = None) -> int:
    from playwright.sync_api import sync_playwright

    print(f"JupyterLab: CPU throttling x{rate:g}, {load} busy processes, {visits} fresh visit(s) per lecture, "
          f"{moves} moves on each explorer")
    results: dict[tuple[str, int], tuple[float, int, int, int]] = {}
    errors: list[str] = []
    t_start = time.monotonic()
    with busy(load), lab_server() as (url_of, _pid), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for k in range(visits):
            for name in lectures:
                url = url_of.format(page=f"{name}.ipynb")
                try:
                    results[name, k] = _visit(browser, url, TITLE_PARAMETER[LECTURES[name]], rate, moves,
                                              settle_s, f"{name} visit {k}")
                except Exception as exc:  # a visit that never showed its explorers is reported, not hidden
                    errors.append(f"{name} visit {k}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                    results[name, k] = (float("nan"), 0, 0, 1)
                first, explorers, checked, apart = results[name, k]
                print(f"  {name} visit {k}: first explorer figure {first:.1f} s after run all, {explorers} "
                      f"explorers, {checked} steps, {apart} apart", flush=True)
        browser.close()
    frozen_total = print_table("lecture", {name: [(results[name, k][0], *results[name, k][2:]) for k in range(visits)]
                                           for name in lectures})
    print(f"{len(results)} visits in {time.monotonic() - t_start:.0f} s")
    for line in errors:
        print("error:", line)
    if json_path:
        Path(json_path).write_text(json.dumps(
            {"rate": rate, "load": load, "moves": moves, "errors": errors,
             "visits": [{"lecture": n, "visit": k, "first_s": r[0], "explorers": r[1], "steps": r[2], "apart": r[3]}
                        for (n, k), r in sorted(results.items())]}, indent=1))
    return 1 if frozen_total or errors else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lectures", nargs="*", default=list(LECTURES), help=f"any of {', '.join(LECTURES)}")
    parser.add_argument("--rate", type=float, default=6.0)
    parser.add_argument("--load", type=int, default=0)
    parser.add_argument("--visits", type=int, default=1)
    parser.add_argument("--moves", type=int, default=5)
    parser.add_argument("--settle", type=float, default=120.0, help="seconds a step may take to settle")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.lectures) - set(LECTURES))
    if unknown:   # (argparse's choices would also refuse the default list as a whole)
        parser.error(f"unknown lecture(s) {unknown}; choose from {list(LECTURES)}")
    return run(args.lectures, args.rate, args.load, args.visits, args.moves, args.settle, args.json)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
