"""Measure a reveal.js slide deck as a projector shows it: every slide at 1280×720 in Chromium.

Used by tests/browser/test_slides_fit.py (every deck ``tools.slides`` writes must fit) and by
``benchmarks/slides_fit.py`` (the table per deck). For every slide (reveal.js ``Reveal.getSlides()``, shown in turn
with ``Reveal.slide``, once MathJax has typeset it) :func:`measure` returns:

* ``overflow``: how far the slide's content reaches beyond the visible slide area (its bounding boxes against the
  slide's own box after reveal.js scales it), in screen pixels; a slide is *clipped* if this exceeds 2 px;
* ``smallest``: the smallest rendered font size among its visible text, in screen pixels (computed font size times
  reveal.js's scale; a formula counts at its base size, not its sub- and superscripts');
* ``figure``: the smallest ratio of a figure's shown width to its own width (None without a figure); the lectures'
  figures are drawn for the projector (``dpviz.plots.style``), so one shown below 99 % of its size is *shrunk*;
* ``bare``: whether it shows nothing but its title; a section's first slide may (a title slide), a slide below may not;
* ``scrolls``: whether any element on it scrolls; ``words`` of visible text; ``notes``: whether it has speaker notes.

:func:`open_deck` opens a deck and makes reveal.js scriptable (also for tests that present it as a lecturer does).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

WIDTH, HEIGHT, MIN_FONT = 1280, 720, 24.0

MEASURE = """(k) => {
    const scale = Reveal.getScale(), HEADINGS = 'h1, h2, h3, h4';
    const slide = Reveal.getSlides()[k];
    const idx = Reveal.getIndices(slide);
    const box = document.querySelector('.reveal .slides').getBoundingClientRect();
    let bottom = box.top, right = box.left, smallest = Infinity, words = 0, body = 0;
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode, text = node.textContent.trim();
      const el = node.parentElement;
      if (!text || !el || el.closest('aside.notes') || el.closest('script, style')) continue;
      // a formula is judged by its base size (its container's), not by its sub- and superscripts
      const maths = el.closest('.MathJax_CHTML, .MathJax, mjx-container, .MJXc-display');
      if (maths) {
        smallest = Math.min(smallest, parseFloat(getComputedStyle(maths).fontSize) * scale);
        if (!maths.closest(HEADINGS)) body += 1;
        continue;
      }
      const range = document.createRange(); range.selectNodeContents(node);
      const rects = Array.from(range.getClientRects()).filter(r => r.width > 0 && r.height > 0);
      if (!rects.length) continue;
      words += text.split(/\\s+/).length;
      if (!el.closest(HEADINGS)) body += 1;
      smallest = Math.min(smallest, parseFloat(getComputedStyle(el).fontSize) * scale);
      for (const r of rects) { bottom = Math.max(bottom, r.bottom); right = Math.max(right, r.right); }
    }
    for (const el of slide.querySelectorAll('img, svg, iframe, canvas, mjx-container, .MathJax_Display')) {
      if (el.closest('aside.notes')) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0) { bottom = Math.max(bottom, r.bottom); right = Math.max(right, r.right); }
      if (r.width > 0 && !el.closest(HEADINGS)) body += 1;
    }
    // a figure drawn for the projector reads only at its own size: the smallest shown/natural width ratio
    let figure = null;
    for (const img of slide.querySelectorAll('img')) {
      if (img.closest('aside.notes') || !img.naturalWidth) continue;
      const ratio = img.getBoundingClientRect().width / (img.naturalWidth * scale);
      figure = figure === null ? ratio : Math.min(figure, ratio);
    }
    const scrolls = Array.from(slide.querySelectorAll('*')).some(
        e => e.scrollHeight > e.clientHeight + 2 && ['auto', 'scroll'].includes(getComputedStyle(e).overflowY));
    return {index: k, h: idx.h, v: idx.v, overflow: Math.max(bottom - box.bottom, right - box.right, 0),
              smallest: smallest === Infinity ? null : smallest, words: words, scrolls: scrolls, figure: figure,
              bare: body === 0,
              notes: !!slide.querySelector('aside.notes'),
              title: (slide.querySelector('h1, h2, h3') || {textContent: ''}).textContent.trim().slice(0, 50)};
}"""


#: Show slide k, then wait until MathJax has typeset what it shows and the browser has laid it out.
SHOW = """async (k) => {
    const i = Reveal.getIndices(Reveal.getSlides()[k]);
    Reveal.slide(i.h, i.v);
    if (window.MathJax && MathJax.Hub) await new Promise(done => MathJax.Hub.Queue(done));
    // reveal.js re-renders a slide's formulas when it is shown: wait (up to 5 s) until each has its output again
    const shown = s => s.previousElementSibling && /mjx-chtml/.test(s.previousElementSibling.className);
    for (let t = 0; t < 50; t++) {
      const scripts = Array.from(Reveal.getSlides()[k].querySelectorAll('script[type^="math/tex"]'))
          .filter(s => !s.closest('aside.notes'));           // the notes are not shown on the slide
      if (scripts.every(shown)) break;
      await new Promise(done => setTimeout(done, 100));
    }
    await Promise.all(Array.from(Reveal.getSlides()[k].querySelectorAll('img')).map(
        img => img.decode().catch(() => null)));
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
    # MathJax loads after the page and then typesets the whole deck: wait for the end of its start-up, so that no
    # formula is measured (or shown) as its hidden source
    page.wait_for_function("window.MathJax && window.MathJax.Hub && window.MathJax.Hub.Register", timeout=120_000)
    page.evaluate("() => new Promise(done => MathJax.Hub.Register.StartupHook('End', done))")
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
    """What a measured slide breaks: clipped (> 2 px), scrolling, text under 24 px, a figure shrunk, a slide below
    its section's first that shows only its title."""
    out = []
    if row["overflow"] > 2:
        out.append(f"clipped by {row['overflow']:.0f} px")
    if row["scrolls"]:
        out.append("scrolls")
    if (row["smallest"] or MIN_FONT) < MIN_FONT:
        out.append(f"text at {row['smallest']:.1f} px")
    if row.get("bare") and row["v"]:
        out.append("only a title (a slide below its section's first holds something)")
    if row.get("figure") is not None and row["figure"] < 0.99:
        out.append(f"figure shrunk to {100 * row['figure']:.0f} % of its size")
    return out
