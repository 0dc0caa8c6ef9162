"""What a student types into a slider's readout: checked by the kernel, refused with a message, never clipped.

ipywidgets lets a student type into the number beside a slider, then clamps what was typed into the slider's range
in the browser (ten times the maximum silently becomes the maximum) and ignores text typed beside a choice slider
(the junk stays on screen while the value does not change).  :func:`guard_readouts` appends to an explorer's box
one invisible ``_ReadoutGuard`` widget whose front-end code catches a typed readout (Enter, or leaving it) before
ipywidgets does, puts the shown value back and sends the text to the kernel; there :func:`parse_typed` reads it
and the control's guard (:func:`dpviz.widgets.controls.guard_control`) accepts it or refuses it with the
explorer's message naming the control, the value and the range.  The guard also gives every readout a role and a
name for screen readers ("textbox", "epsilon: type a value and press Enter").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets

from dpviz.widgets.accessibility import EXPLORER_CLASS
from dpviz.widgets.controls import short_value

__all__ = ["parse_typed", "guard_readouts", "TYPED_CLASS_PREFIX"]

#: A control whose readout is guarded carries the class ``TYPED_CLASS_PREFIX + name``.
TYPED_CLASS_PREFIX = "dpviz-typed-"

_SLIDERS = (widgets.FloatSlider, widgets.IntSlider, widgets.FloatLogSlider, widgets.FloatRangeSlider,
            widgets.IntRangeSlider, widgets.SelectionSlider)
# separators of a range readout ("0.25 – 0.75"); a hyphen only between two numbers, so "-1 - 2" reads (-1, 2)
_RANGE_SEPARATOR = re.compile(r"\s*(?:–|—|\bto\b|,|(?<=[\d.])\s*-\s*(?=[-+\d.]))\s*")


def _number(text: str, integer: bool) -> float | int:
    cleaned = text.strip().replace("\u2212", "-").replace("_", "")
    if re.fullmatch(r"[-+]?\d{1,3}(,\d{3})+(\.\d*)?", cleaned):   # 20,000 as the readout prints it
        cleaned = cleaned.replace(",", "")
    try:
        value = float(cleaned)
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a number") from None
    if integer:
        if not value.is_integer():
            raise ValueError(f"{text.strip()!r} is not a whole number")
        return int(value)
    return value


def parse_typed(widget: widgets.Widget, text: str) -> Any:
    """The value a student means by ``text`` typed into ``widget``'s readout; the range is not checked here.

    Parameters
    ----------
    widget : ipywidgets.Widget
        A slider: float, int, log, range or choice (``SelectionSlider``).
    text : str
        What was typed: a number ("0.5", "1e-3", "20,000"), two numbers for a range slider ("0.25 – 0.75"), or
        one of a choice slider's labels.

    Returns
    -------
    object
        The value to give the control (a float, an int, a pair, or the option's value).

    Raises
    ------
    ValueError
        If the text is not a number (a whole number for an int slider), not two numbers for a range slider, or
        not one of a choice slider's labels.
    TypeError
        If ``widget`` is not a slider.

    Examples
    --------
    >>> parse_typed(widgets.FloatSlider(), " 2.5e-1 ")
    0.25
    >>> parse_typed(widgets.IntRangeSlider(min=0, max=100), "3 – 40")
    (3, 40)
    >>> parse_typed(widgets.SelectionSlider(options=[("low", 1), ("high", 2)]), "high")
    2
    >>> parse_typed(widgets.IntRangeSlider(), "40 – 3")
    Traceback (most recent call last):
    ...
    ValueError: '40 – 3' has its low end above its high end
    >>> parse_typed(widgets.IntSlider(), "2.5")
    Traceback (most recent call last):
    ...
    ValueError: '2.5' is not a whole number
    """
    if not isinstance(widget, _SLIDERS):
        raise TypeError(f"widget must be one of {[c.__name__ for c in _SLIDERS]}, got {type(widget).__name__}")
    if isinstance(widget, widgets.SelectionSlider):
        options = [o if isinstance(o, tuple) else (str(o), o) for o in widget.options]
        for label, value in options:
            if str(label) == text.strip():
                return value
        raise ValueError(f"{text.strip()!r} is not one of the choices {[str(label) for label, _ in options]}")
    integer = isinstance(widget, (widgets.IntSlider, widgets.IntRangeSlider))
    if isinstance(widget, (widgets.FloatRangeSlider, widgets.IntRangeSlider)):
        parts = [p for p in _RANGE_SEPARATOR.split(text.strip()) if p]
        if len(parts) != 2:
            raise ValueError(f"{text.strip()!r} is not two numbers, low – high")
        low, high = (_number(p, integer) for p in parts)
        if low > high:
            raise ValueError(f"{text.strip()!r} has its low end above its high end")
        return low, high
    return _number(text, integer)


_ESM = """
const PREFIX = '@PREFIX@';
function controlOf(node) {
  const box = node.closest('[class*="' + PREFIX + '"]');
  if (!box) return null;
  for (const c of box.classList) if (c.startsWith(PREFIX)) return c.slice(PREFIX.length);
  return null;
}
function nameReadouts(root) {
  for (const r of root.querySelectorAll('.widget-readout')) {
    const name = controlOf(r);
    if (!name) continue;
    const box = r.closest('.widget-slider, .widget-hslider, .widget-vslider, .jupyter-widgets');
    const label = box && box.querySelector('.widget-label');
    const text = ((label && label.textContent.trim()) || name) + ': type a value and press Enter';
    if (r.getAttribute('role') !== 'textbox') r.setAttribute('role', 'textbox');
    if (r.getAttribute('aria-label') !== text) r.setAttribute('aria-label', text);
  }
}
export default {
  render({ model, el }) {
    let observer = null, frame = 0, root = null;
    const before = new WeakMap();   // a readout's text before the student's first key since the last commit
    const readoutOf = (e) => {
      const t = e.target;
      return t && t.classList && t.classList.contains('widget-readout') && controlOf(t) ? t : null;
    };
    const commit = (r) => {
      const shown = before.get(r), typed = r.textContent.trim();
      before.delete(r);
      if (shown === undefined || typed === shown) return;   // nothing typed since the last commit
      r.textContent = shown;            // the control shows its value until the kernel accepts the new one
      model.send({ typed: controlOf(r), text: typed, shown: shown });
    };
    // the text before the student's first edit (not at focus: the kernel may redraw the readout meanwhile)
    const onInput = (e) => { const r = readoutOf(e); if (r && !before.has(r)) before.set(r, r.textContent.trim()); };
    const onKey = (e) => {
      const r = readoutOf(e);
      if (!r || e.isComposing) return;
      if (e.key === 'Enter') { e.preventDefault(); e.stopPropagation(); commit(r); }
      else if (e.key === 'Escape') {
        e.stopPropagation();
        if (before.has(r)) { r.textContent = before.get(r); before.delete(r); }
      }
    };
    const onBlur = (e) => { const r = readoutOf(e); if (r) { e.stopPropagation(); commit(r); } };
    const attach = () => {
      root = el.closest('.@CLS@');
      if (!root) { frame = requestAnimationFrame(attach); return; }
      nameReadouts(root);
      let queued = false;   // one scan per frame, however many nodes a redraw touched
      observer = new MutationObserver(() => {
        if (queued) return;
        queued = true;
        requestAnimationFrame(() => { queued = false; nameReadouts(root); });
      });
      observer.observe(root, { childList: true, subtree: true });
      root.addEventListener('beforeinput', onInput, true);
      root.addEventListener('keydown', onKey, true);
      root.addEventListener('blur', onBlur, true);
    };
    attach();
    return () => {
      cancelAnimationFrame(frame);
      if (observer) observer.disconnect();
      if (root) {
        root.removeEventListener('beforeinput', onInput, true);
        root.removeEventListener('keydown', onKey, true);
        root.removeEventListener('blur', onBlur, true);
      }
    };
  }
};
"""


class _ReadoutGuard(anywidget.AnyWidget):
    """An invisible widget that sends typed readouts of its explorer box to the kernel (see the module docstring)."""

    _esm = _ESM.replace("@PREFIX@", TYPED_CLASS_PREFIX).replace("@CLS@", EXPLORER_CLASS)
    _css = ".dpviz-readout-guard { display: none; }"


def guard_readouts(box: widgets.Box, controls: Mapping[str, widgets.Widget],
                   refused: Callable[[str], None]) -> widgets.Box:
    """Route what is typed into the readouts of ``controls`` through the kernel.

    Each slider among ``controls`` gets the class ``TYPED_CLASS_PREFIX + name``; ``box`` gets one more (invisible)
    child, the guard.  Typed text is read by :func:`parse_typed` and assigned to the control, whose own guard
    refuses a value out of range; text that is not a value is refused here.  Both refusals go to ``refused``.

    Parameters
    ----------
    box : ipywidgets.Box
        The explorer's outer box, carrying the class :data:`~dpviz.widgets.accessibility.EXPLORER_CLASS`.
    controls : Mapping[str, ipywidgets.Widget]
        The explorer's controls by name (other widgets than sliders are left alone).
    refused : callable
        Called with the message when typed text is refused (the explorer shows it).

    Returns
    -------
    ipywidgets.Box
        The same box, with the guard appended.

    Examples
    --------
    >>> messages = []
    >>> slider = widgets.FloatSlider(value=1.0, min=0.0, max=2.0)
    >>> box = guard_readouts(widgets.VBox([slider]), {"x": slider}, messages.append)
    >>> box.children[-1].handle_typed("x", "1.5"); slider.value
    1.5
    >>> box.children[-1].handle_typed("x", "one"); messages
    ["x: 'one' is not a number; x stays at 1.5"]
    """
    guard = _ReadoutGuard(layout=widgets.Layout(display="none"))
    guard.add_class("dpviz-readout-guard")
    typed = {name: w for name, w in controls.items() if isinstance(w, _SLIDERS)}
    for name, w in typed.items():
        w.add_class(TYPED_CLASS_PREFIX + name)

    def handle_typed(name: str, text: str, shown: str | None = None) -> None:
        widget = typed.get(name)
        if widget is None:
            return
        current = widget.label if isinstance(widget, widgets.SelectionSlider) else widget.value
        try:
            value = parse_typed(widget, str(text))
            if shown is not None and isinstance(widget, (widgets.FloatRangeSlider, widgets.IntRangeSlider)):
                # an end the student left as shown keeps its exact value (the readout rounds 1/3 to 0.33)
                old = [p for p in _RANGE_SEPARATOR.split(str(shown).strip()) if p]
                new = [p for p in _RANGE_SEPARATOR.split(str(text).strip()) if p]
                if len(old) == 2:
                    kept = tuple(current[i] if new[i] == old[i] else value[i] for i in range(2))
                    value = kept if kept[0] <= kept[1] else value   # (both ends as typed if keeping one crosses)
            widget.value = value      # a guarded control refuses an out-of-range value with its own message
        except (ValueError, TypeError, traitlets.TraitError) as exc:
            refused(f"{name}: {exc}; {name} stays at {short_value(current)}")

    guard.handle_typed = handle_typed

    def on_message(_widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and isinstance(content.get("typed"), str):
            shown = content.get("shown")
            handle_typed(content["typed"], str(content.get("text", "")), shown if isinstance(shown, str) else None)

    guard.on_msg(on_message)
    box.children = (*box.children, guard)
    return box
