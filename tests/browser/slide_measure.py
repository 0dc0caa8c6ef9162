"""Measure a reveal.js slide deck as a projector shows it: every slide at 1280×720 in Chromium.

Used by tests/browser/test_slides_fit.py (every deck ``tools.slides`` writes must fit) and by
``benchmarks/slides_fit.py`` (the table per deck). For every slide (reveal.js ``Reveal.getSlides()``, shown in turn
with ``Reveal.slide``, once MathJax has typeset it) :func:`measure` returns:

* ``overflow``: how far the slide's content reaches beyond the visible slide area (its bounding boxes against the
  slide's own box after reveal.js scales it), in screen pixels; a slide is *clipped* if this exceeds 2 px;
* ``smallest``: the smallest rendered font size among its visible text, in screen pixels (computed font size times
  reveal.js's scale; a formula counts at its base size, not its sub- and superscripts');
* ``scrolls``: whether any element on it scrolls; ``words`` of visible text; ``notes``: whether it has speaker notes.

:func:`open_deck` opens a deck and makes reveal.js scriptable (also for tests that present it as a lecturer does).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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


#: Show slide k, then wait until MathJax has typeset what it shows and the browser has laid it out.
SHOW = """async (k) => {
    const i = Reveal.getIndices(Reveal.getSlides()[k]);
    Reveal.slide(i.h, i.v);
    if (window.MathJax && MathJax.Hub) await new Promise(done => MathJax.Hub.Queue(done));
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""


def open_deck(browser, deck: Path, on_request: Callable | None = None):  # noqa: ANN201 - a Playwright page
    """A new 1280×720 page of Playwright's ``browser`` showing ``deck``, with reveal.js ready as ``window.Reveal``;
    ``on_request`` (if given) sees every request the page makes, from the first."""
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    if on_request is not None:
        page.on("request", on_request)
    page.goto(deck.resolve().as_uri())
    # the decks load reveal.js through require.js, so it is an AMD module, not a global
    page.evaluate("""() => new Promise(done => require(["lib/reveal.js/dist/reveal.js"], R => {
        window.Reveal = R; done(); }))""")
    page.wait_for_function("Reveal.isReady && Reveal.isReady()", timeout=120_000)
    return page


def measure(browser, deck: Path) -> list[dict]:
    """Every slide of ``deck`` (a file written by ``tools.slides``), measured in a new page of Playwright's
    ``browser`` at 1280×720 (see the module docstring)."""
    page = open_deck(browser, deck)
    try:
        page.evaluate("Reveal.configure({transition: 'none', backgroundTransition: 'none'})")
        rows = []
        for k in range(page.evaluate("Reveal.getSlides().length")):
            page.evaluate(SHOW, k)
            rows.append(page.evaluate(MEASURE, k))
        return rows
    finally:
        page.close()


def failures(row: dict) -> list[str]:
    """What a measured slide breaks: clipped (> 2 px), scrolling, text under 24 px."""
    out = []
    if row["overflow"] > 2:
        out.append(f"clipped by {row['overflow']:.0f} px")
    if row["scrolls"]:
        out.append("scrolls")
    if (row["smallest"] or MIN_FONT) < MIN_FONT:
        out.append(f"text at {row['smallest']:.1f} px")
    return out
