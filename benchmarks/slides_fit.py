"""Do the slide decks fit a projector? Every slide of ``build/slides/*.slides.html`` (``make slides``) at 1280×720.

``python -m benchmarks.slides_fit [DECK ...] [--slides] [--json FILE]``

Each deck is opened in headless Chromium (``/usr/bin/chromium``) at 1280×720 and every slide measured by
``tests/browser/slide_measure.py`` (the test ``tests/browser/test_slides_fit.py`` holds the decks to it): a slide is
*clipped* if its content reaches more than 2 px beyond the slide, *small* if any text is under 24 px, and it
*scrolls* if any element on it does, and a figure is *shrunk* if shown below 99 % of its own width (the lectures'
figures are drawn to be read at full size: ``dpviz.plots.style``).
``live`` counts the explorer slides whose frame shows the exported page's
figure within 60 s, with no request leaving the machine (the decks of ``make slides`` embed ``build/exports``).
Prints one line per deck and the totals; ``--slides`` prints every failing slide. Reads files only: no server.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tests.browser.slide_measure import MIN_FONT, failures, measure, open_deck

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
LOCAL = ("file:", "data:", "blob:", "about:")


def live_explorers(browser, deck: Path) -> tuple[int, int, list[str]]:
    """(explorer slides, those whose frame shows a plotly figure within 60 s, requests that left the machine)."""
    remote: list[str] = []
    page = open_deck(browser, deck, lambda r: remote.append(r.url) if not r.url.startswith(LOCAL) else None)
    slides = page.evaluate("""() => Reveal.getSlides().filter(s => s.querySelector('iframe.dpviz-explorer'))
        .map(s => Reveal.getIndices(s))""")
    shown = 0
    for index in slides:
        page.evaluate("i => Reveal.slide(i.h, i.v)", index)
        for _ in range(120):
            if any(f.query_selector(".main-svg") for f in page.frames if f != page.main_frame):
                shown += 1
                break
            page.wait_for_timeout(500)
    page.close()
    return len(slides), shown, remote


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="*", type=Path)
    parser.add_argument("--slides", action="store_true", help="print every failing slide")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    decks = args.decks or sorted((ROOT / "build" / "slides").glob("*.slides.html"))
    if not decks:
        print("no decks: run `make slides` first", file=sys.stderr)
        return 2
    totals = {"slides": 0, "clipped": 0, "scrolls": 0, "small": 0, "shrunk figures": 0, "notes": 0, "explorers": 0,
              "live": 0, "remote requests": 0}
    report = {}
    print(f"{'deck':42s} {'slides':>6s} {'clipped':>7s} {'scrolls':>7s} {'<24px':>6s} {'shrunk':>6s} {'notes':>6s} "
          f"{'words max':>9s} "
          f"{'explorers live':>14s}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        for deck in decks:
            rows = measure(browser, deck)
            report[deck.name] = rows
            explorers, live, remote = live_explorers(browser, deck)
            counts = [len(rows), sum(r["overflow"] > 2 for r in rows), sum(bool(r["scrolls"]) for r in rows),
                      sum((r["smallest"] or MIN_FONT) < MIN_FONT for r in rows),
                      sum(r["figure"] is not None and r["figure"] < 0.99 for r in rows), sum(r["notes"] for r in rows),
                      explorers, live, len(remote)]
            for key, n in zip(totals, counts, strict=True):
                totals[key] += n
            print(f"{deck.name:42s} {counts[0]:6d} {counts[1]:7d} {counts[2]:7d} {counts[3]:6d} {counts[4]:6d} "
                  f"{counts[5]:6d} "
                  f"{max((r['words'] for r in rows), default=0):9d} {f'{live} of {explorers}':>14s}", flush=True)
            for url in remote[:3]:
                print(f"    request off the machine: {url}")
            if args.slides:
                for r in rows:
                    if failures(r):
                        print(f"    slide {r['h']}.{r['v']} {r['title']!r}: {', '.join(failures(r))}, "
                              f"{r['words']} words")
        browser.close()
    print("total: " + ", ".join(f"{v} {k}" for k, v in totals.items()))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    bad = any(totals[k] for k in ("clipped", "scrolls", "small", "shrunk figures", "remote requests"))
    return 1 if bad or totals["live"] < totals["explorers"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
