"""Every slide of every deck ``make slides`` writes fits a projector: at 1280×720 nothing is clipped, nothing
scrolls and no text is under 24 px (tests/browser/slide_measure.py measures each slide in Chromium)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools import course

from .slide_measure import failures, measure, open_deck

ROOT = Path(__file__).resolve().parents[2]
#: reveal.js, MathJax 2, require.js and jQuery from the npm registry (`make slides-deps`, which `make test` runs).
LIB = ROOT / "build" / "slides" / "lib"


@pytest.fixture(scope="module")
def decks_folder(tmp_path_factory) -> Path:
    if not (LIB / "reveal.js" / "dist" / "reveal.js").exists():
        msg = f"{LIB} has no reveal.js: run `make slides-deps` (npm)"
        if os.environ.get("CI"):
            pytest.fail(msg + " -- browser tests never skip in CI")
        pytest.skip(msg)
    from dpviz.export import explorer_names
    from tools import slides

    out = tmp_path_factory.mktemp("slides")
    (out / "lib").symlink_to(LIB, target_is_directory=True)
    # the explorers' slides embed their exported pages in a fixed 1200×540 frame; what the frame holds does not
    # change the slide's layout, so a blank page stands in for `make exports` here
    (out / "exports").mkdir()
    for name in explorer_names():
        (out / "exports" / f"{name}.html").write_text(f"<!doctype html><title>{name}</title><body></body>")
    slides.write_decks(out, exports="exports")
    return out


def _deck_names() -> list[str]:
    import nbformat

    from tools import slides

    names = []
    for path in course.lectures():
        parts = slides.units(nbformat.read(path, as_version=4))
        names += [slides.deck_stem(path, k, len(parts)) for k in range(1, len(parts) + 1)]
    return names


@pytest.mark.parametrize("deck", _deck_names())
def test_every_slide_fits_a_projector(deck: str, decks_folder: Path, browser):
    rows = measure(browser, decks_folder / f"{deck}.slides.html")
    assert len(rows) > 3
    bad = [f"slide {r['h']}.{r['v']} {r['title']!r}: {', '.join(failures(r))}" for r in rows if failures(r)]
    assert not bad, f"{len(bad)} of {len(rows)} slides do not fit 1280×720:\n  " + "\n  ".join(bad)
    assert any(r["notes"] for r in rows), "no speaker notes in the deck"


def test_a_formula_is_shown_once_when_the_lecturer_moves_to_its_slide(decks_folder: Path, browser):
    """With reveal.js's transitions on, as a lecturer presents, MathJax 2 left its fast preview visible beside each
    re-rendered formula ("D'D' is DD"); the decks' styles hide it."""
    page = open_deck(browser, decks_folder / "00_what_dp_promises.unit1.slides.html")
    slides_with_maths = page.evaluate("""() => Reveal.getSlides().filter(s => s.querySelector('.MathJax_Preview'))
        .map(s => Reveal.getIndices(s))""")
    assert len(slides_with_maths) >= 3
    for index in slides_with_maths[2::4][:3]:     # jumps, as a lecturer skipping ahead does
        page.evaluate("i => Reveal.slide(i.h, i.v)", index)
        page.wait_for_timeout(2500)                      # the transition, then MathJax's re-render of the slide
        shown_twice = page.evaluate("""() => Array.from(Reveal.getCurrentSlide().querySelectorAll('.MathJax_Preview'))
            .filter(e => e.getBoundingClientRect().width > 1).length""")
        assert shown_twice == 0, f"slide {index}: {shown_twice} formulas shown twice"
    page.close()
