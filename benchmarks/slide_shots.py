"""Screenshots of chosen slides, as a projector shows them (1280×720, headless Chromium).

``python -m benchmarks.slide_shots OUT_DIR DECK#H.V [DECK#H.V ...]``

``DECK`` is a file name in ``build/slides`` (``make slides``), ``H.V`` reveal.js's slide indices (as
``python -m benchmarks.slides_fit --slides`` prints them). Writes ``OUT_DIR/<deck stem>-H-V.png``; an explorer slide
is taken once its exported page has drawn its figure (within 60 s).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.browser.slide_measure import SHOW, open_deck

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        for spec in argv[1:]:
            name, _, index = spec.partition("#")
            h, v = (int(i) for i in index.split("."))
            page = open_deck(browser, ROOT / "build" / "slides" / name)
            page.evaluate("Reveal.configure({transition: 'none', backgroundTransition: 'none'})")
            k = page.evaluate("([h, v]) => Reveal.getSlides().findIndex(s => { const i = Reveal.getIndices(s); "
                              "return i.h === h && (i.v || 0) === v; })", [h, v])
            if k < 0:
                print(f"{spec}: no such slide", file=sys.stderr)
                return 1
            page.evaluate(SHOW, k)
            if page.evaluate("k => !!Reveal.getSlides()[k].querySelector('iframe.dpviz-explorer')", k):
                for _ in range(120):
                    if any(f.query_selector(".main-svg") for f in page.frames if f != page.main_frame):
                        break
                    page.wait_for_timeout(500)
                page.wait_for_timeout(1000)
            target = out / f"{name.removesuffix('.slides.html')}-{h}-{v}.png"
            page.screenshot(path=str(target))
            print(target)
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
