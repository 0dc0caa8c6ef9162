"""Do the slide decks fit a projector? Every slide of ``build/slides/*.slides.html`` (``make slides``) at 1280×720.

``python -m benchmarks.slides_fit [DECK ...]``

Each deck is opened in headless Chromium (``/usr/bin/chromium``) at 1280×720. For every slide (reveal.js
``Reveal.getSlides()``, shown in turn with ``Reveal.slide``) it measures:

* **overflow**: how far the slide's content reaches beyond the visible slide area (its bounding boxes against
  the slide's own box after reveal.js scales it), in screen pixels; a slide is *clipped* if this exceeds 2 px;
* **smallest text**: the smallest rendered font size among its visible text, in screen pixels (computed font
  size times reveal.js's scale; a formula counts at its base size, not its sub- and superscripts'); a slide is
  *small* if this is under 24 px;
* **words** of visible text and whether the slide has speaker notes.

Prints one line per deck and the totals; ``--slides`` prints every failing slide. Reads files only: no server.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT, MIN_FONT = 1280, 720, 24.0

MEASURE = """(k) => {
    const scale = Reveal.getScale();
    const slide = Reveal.getSlides()[k];
    const idx = Reveal.getIndices(slide);
    const box = document.querySelector('.reveal .slides').getBoundingClientRect();
    let bottom = box.top, right = box.left, smallest = Infinity, words = 0;
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode, text = node.textContent.trim();
      const el = node.parentElement;
      if (!text || !el || el.closest('aside.notes') || el.closest('script, style')) continue;
      // a formula is judged by its base size (its container's), not by its sub- and superscripts
      const maths = el.closest('.MathJax_CHTML, .MathJax, mjx-container, .MJXc-display');
      if (maths) { smallest = Math.min(smallest, parseFloat(getComputedStyle(maths).fontSize) * scale); continue; }
      const range = document.createRange(); range.selectNodeContents(node);
      const rects = Array.from(range.getClientRects()).filter(r => r.width > 0 && r.height > 0);
      if (!rects.length) continue;
      words += text.split(/\\s+/).length;
      smallest = Math.min(smallest, parseFloat(getComputedStyle(el).fontSize) * scale);
      for (const r of rects) { bottom = Math.max(bottom, r.bottom); right = Math.max(right, r.right); }
    }
    for (const el of slide.querySelectorAll('img, svg, iframe, canvas, mjx-container, .MathJax_Display')) {
      if (el.closest('aside.notes')) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0) { bottom = Math.max(bottom, r.bottom); right = Math.max(right, r.right); }
    }
    const scrolls = Array.from(slide.querySelectorAll('*')).some(
        e => e.scrollHeight > e.clientHeight + 2 && ['auto', 'scroll'].includes(getComputedStyle(e).overflowY));
    return {index: k, h: idx.h, v: idx.v, overflow: Math.max(bottom - box.bottom, right - box.right, 0),
              smallest: smallest === Infinity ? null : smallest, words: words, scrolls: scrolls,
              notes: !!slide.querySelector('aside.notes'),
              title: (slide.querySelector('h1, h2, h3') || {textContent: ''}).textContent.trim().slice(0, 50)};
}"""


def measure(deck: Path) -> list[dict]:
    """Every slide of ``deck``, measured (see the module docstring)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.goto(deck.resolve().as_uri())
        # the decks load reveal.js through require.js, so it is an AMD module, not a global
        page.evaluate("""() => new Promise(done => require(["lib/reveal.js/dist/reveal.js"], R => {
            window.Reveal = R; done(); }))""")
        page.wait_for_function("Reveal.isReady && Reveal.isReady()", timeout=120_000)
        page.evaluate("Reveal.configure({transition: 'none', backgroundTransition: 'none'})")
        rows = []
        for k in range(page.evaluate("Reveal.getSlides().length")):
            page.evaluate("k => { const i = Reveal.getIndices(Reveal.getSlides()[k]); Reveal.slide(i.h, i.v); }", k)
            page.wait_for_timeout(1500 if k == 0 else 150)     # MathJax typesets the slide shown
            rows.append(page.evaluate(MEASURE, k))
        browser.close()
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="*", type=Path)
    parser.add_argument("--slides", action="store_true", help="print every failing slide")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    decks = args.decks or sorted((ROOT / "build" / "slides").glob("*.slides.html"))
    if not decks:
        print("no decks: run `make slides` first", file=sys.stderr)
        return 2
    totals = {"slides": 0, "clipped": 0, "scrolls": 0, "small": 0, "notes": 0}
    report = {}
    print(f"{'deck':42s} {'slides':>6s} {'clipped':>7s} {'scrolls':>7s} {'<24px':>6s} {'notes':>6s} {'words max':>9s}")
    for deck in decks:
        rows = measure(deck)
        report[deck.name] = rows
        bad = lambda r: (r["overflow"] > 2, r["scrolls"], (r["smallest"] or 99) < MIN_FONT)  # noqa: E731
        counts = [len(rows), sum(bad(r)[0] for r in rows), sum(bad(r)[1] for r in rows),
                  sum(bad(r)[2] for r in rows), sum(r["notes"] for r in rows)]
        for key, n in zip(totals, counts, strict=True):
            totals[key] += n
        print(f"{deck.name:42s} {counts[0]:6d} {counts[1]:7d} {counts[2]:7d} {counts[3]:6d} {counts[4]:6d} "
              f"{max((r['words'] for r in rows), default=0):9d}")
        if args.slides:
            for r in rows:
                if any(bad(r)):
                    print(f"    slide {r['h']}.{r['v']} {r['title']!r}: overflow {r['overflow']:.0f} px, "
                          f"smallest text {r['smallest'] or 0:.1f} px, {r['words']} words")
    print("total: " + ", ".join(f"{v} {k}" for k, v in totals.items()))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
