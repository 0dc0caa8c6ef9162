"""What an explorer needs for keyboard and screen-reader users that ipywidgets does not give it.

ipywidgets renders a slider's handle as ``<div role="slider">`` with no accessible name (its description is a
sibling ``<label>`` that is not tied to the handle), so a screen reader announces "slider, 1" without saying
which; and a focused handle or button shows no outline.  :func:`make_accessible` appends to an explorer's box
one invisible ``_ControlNames`` widget whose front-end code names every slider handle in that box after its
label (``aria-label``), keeps doing so as controls re-render, and gives every focusable control in the box a
visible focus outline.  Text colours of messages are chosen for contrast on white (:data:`TEXT_COLOURS`).
"""

from __future__ import annotations

import anywidget
import ipywidgets as widgets

__all__ = ["make_accessible", "TEXT_COLOURS", "EXPLORER_CLASS"]

#: The CSS class of an explorer's outer box (the scope of ``_ControlNames``).
EXPLORER_CLASS = "dpviz-explorer"

#: Colours for text on white with a contrast ratio >= 4.5 (WCAG AA): the palette's vermillion (#D55E00, 3.9:1)
#: darkened for error text, its blue (#0072B2, 5.2:1) kept for notes.
TEXT_COLOURS = {"error": "#B24E00", "info": "#0072B2", "pending": "#555555"}

_ESM = """
function nameHandles(root) {
  for (const handle of root.querySelectorAll('[role="slider"]')) {
    const box = handle.closest('.widget-slider, .widget-hslider, .widget-vslider, .jupyter-widgets');
    const label = box && box.querySelector('.widget-label');
    const text = label ? label.textContent.trim() : '';
    const name = text || (box && box.getAttribute('title')) || 'slider';
    const lower = handle.classList.contains('noUi-handle-upper') ? ' (upper end)'
                : (box && box.querySelector('.noUi-handle-upper') ? ' (lower end)' : '');
    if (handle.getAttribute('aria-label') !== name + lower) handle.setAttribute('aria-label', name + lower);
  }
}
export default {
  render({ el }) {
    let observer = null, frame = 0;
    const attach = () => {
      const root = el.closest('.@CLS@');
      if (!root) { frame = requestAnimationFrame(attach); return; }
      nameHandles(root);
      observer = new MutationObserver(() => nameHandles(root));
      observer.observe(root, { childList: true, subtree: true });
    };
    attach();
    return () => { cancelAnimationFrame(frame); if (observer) observer.disconnect(); };
  }
};
""".replace("@CLS@", EXPLORER_CLASS)

# The class is repeated to outrank ipywidgets' ``.widget-text input[type="number"] {outline: none !important}``.
_CSS = """
.@CLS@.@CLS@.@CLS@ :focus-visible, .@CLS@.@CLS@.@CLS@ .noUi-handle:focus {
  outline: 3px solid #0072B2 !important; outline-offset: 2px;
}
.@CLS@ .dpviz-control-names { display: none; }
""".replace("@CLS@", EXPLORER_CLASS)


class _ControlNames(anywidget.AnyWidget):
    """An invisible widget naming the slider handles of the explorer box it sits in (see the module docstring)."""

    _esm = _ESM
    _css = _CSS


def make_accessible(box: widgets.Box) -> widgets.Box:
    """Mark ``box`` as an explorer and append the ``_ControlNames`` widget that names its sliders.

    Parameters
    ----------
    box : ipywidgets.Box
        An explorer's outer box (title, controls, message, figure, side panels).

    Returns
    -------
    ipywidgets.Box
        The same box, with the class :data:`EXPLORER_CLASS` and one more (invisible) child.
    """
    names = _ControlNames(layout=widgets.Layout(display="none"))
    names.add_class("dpviz-control-names")
    box.add_class(EXPLORER_CLASS)
    box.children = (*box.children, names)
    return box
