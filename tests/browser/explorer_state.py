"""What a browser test reads from an explorer page: whether it is idle, the main control's value, the figure's.

*Idle* is a state, not a time: the kernel reports ``idle`` and no widget model has a message in flight or
buffered (ipywidgets throttles a model to one unanswered message and buffers later changes until the kernel
answers), on three consecutive animation frames -- so every move the page made has been computed and every
redraw the kernel sent has been applied.  The tests wait on that instead of sleeping.

The figure's *stated* parameter is read from its title, where every explorer names the value its main control
set (``epsilon = 0.977``); the control's value is read from the slider's readout, what the student sees beside
it.  Both are compared at the significant digits the coarser of the two shows.
"""

from __future__ import annotations

import math
import re

#: Per page: the pattern of the main control's value in the figure title (group 1 is the number).
TITLE_PARAMETER = {
    "privacy_loss": r"ε = ([0-9.e+-]+);",
    "laplace": r"epsilon = ([0-9.e+-]+),",
    "composition": r"budget epsilon = ([0-9.e+-]+),",
    "subsampling": r"rate p = ([0-9.e+-]+):",
    "composition_bounds": r"at k = ([0-9,]+)",
    "hierarchies": r"\bb = ([0-9]+),",
    "matrix_mechanism": r"epsilon = ([0-9.e+-]+),",
    "sum_queries": r"\bp = ([0-9.e+-]+),",
    "gptt_attack": r"at epsilon = ([0-9.e+-]+) ",
    "audit": r"\bn = ([0-9,]+) per dataset",
    "comparison": r"epsilon = ([0-9.e+-]+)",
    "selection": r"ε = ([0-9.e+-]+)",
}

IDLE_JS = """() => {
    const app = window.jupyterapp, wm = app && app.widgetManager;
    let idle = !!(wm && wm.kernel && wm.kernel.status === 'idle' && window.voila_finish !== undefined);
    if (idle) {
        for (const m of (wm._modelsSync || new Map()).values()) {
            if (m._pending_msgs > 0 || (m._msg_buffer !== null && m._msg_buffer !== undefined)) { idle = false; break; }
        }
    }
    window.__dpvizIdleFrames = idle ? (window.__dpvizIdleFrames || 0) + 1 : 0;
    return window.__dpvizIdleFrames >= 3;
}"""

STATE_JS = """() => {
    const p = document.querySelector('.js-plotly-plot');
    const r = document.querySelector('.dpviz-main-control .widget-readout');
    const t = p && p.layout && p.layout.title;
    return {title: t ? (typeof t === 'string' ? t : (t.text || '')) : '', readout: r ? r.textContent.trim() : null};
}"""


def wait_until_idle(page, timeout_ms: float = 120_000) -> None:
    """Wait until the kernel and every widget model of ``page`` are idle (see the module docstring)."""
    page.evaluate("() => { window.__dpvizIdleFrames = 0; }")
    page.wait_for_function(IDLE_JS, polling="raf", timeout=timeout_ms)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _significant(text: str) -> int:
    """Significant digits a number as printed shows ("0.0117" -> 3, "1.00" -> 3, "20,000" -> 5, "1e-06" -> 1)."""
    mantissa = re.split(r"[eE]", text.replace(",", ""))[0].lstrip("+-")
    digits = mantissa.replace(".", "").lstrip("0")
    return max(len(digits), 1)


def same_shown_value(a: str, b: str) -> bool:
    """Whether two printed numbers agree at the significant digits the coarser one shows."""
    x, y = _number(a), _number(b)
    if x == y:
        return True
    if x == 0 or y == 0 or not (math.isfinite(x) and math.isfinite(y)):
        return False
    digits = min(_significant(a), _significant(b))
    return float(f"{x:.{digits}g}") == float(f"{y:.{digits}g}")


def shown_pair(page, name: str) -> tuple[str, str | None, str]:
    """(control readout, the figure's stated value or None if the title does not state it, the title)."""
    state = page.evaluate(STATE_JS)
    found = re.search(TITLE_PARAMETER[name], state["title"])
    return state["readout"], (found.group(1).rstrip(".") if found else None), state["title"]
