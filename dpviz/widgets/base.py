"""The shape every dpviz explorer shares: controls, one call into the core, one in-place redraw.

A subclass provides

* ``_build_controls() -> dict[str, ipywidgets.Widget]`` (value widgets; buttons go in ``self.buttons``),
* ``_compute(**values)`` -> a result object, by calling *one* function of
  ``dpviz.experiments`` (no maths in the widget),
* ``_figure(result) -> plotly.graph_objects.Figure`` by calling *one* function of ``dpviz.plots``,
* optionally ``_figure_spec(result) -> (traces, layout)``, the same figure as plain dicts (one function
  of ``dpviz.plots``): later redraws then send only what changed
  (:func:`dpviz.plots.bands.patch_figure`) instead of building and diffing a plotly figure,
* optionally ``_after_draw(result)`` to refresh side panels (ledgers, tables).

Every control is *guarded*: a value it cannot show (out of range, of the wrong type, not one of its options,
NaN) is refused before ipywidgets would clip or coerce it -- from Python or from the browser -- and the
explorer's message names the control, the value and what is allowed; the control, the result and the figure
keep their last good state, and nothing is raised into the caller.

A lecture can give the student goals to reach with the controls (:meth:`Explorer.add_goal`, e.g. "find the
epsilon at which the 90 % band is +-5"): the explorer checks each goal after every redraw and says when it is
reached.  The test of a goal comes from :mod:`dpviz.exercises` (the widget only shows it).

The base class wires every control's ``value`` to :meth:`update`, which
computes and copies the new figure into ``self.figure`` (a plotly
``FigureWidget``) in one ``batch_update``.  If the computation raises, the
error is shown in ``self.message`` and the last good result and figure stay:
the kernel never sees the exception.
"""

from __future__ import annotations

import html
import math
import numbers
import time
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go
import traitlets

from dpviz.plots.bands import patch_figure, sync_figure
from dpviz.widgets.accessibility import TEXT_COLOURS, make_accessible

__all__ = ["Explorer", "BUSY_CLASS", "LOG10_CLASS", "log_slider", "int_slider", "seed_box", "control_range",
           "next_values"]

_USER_ERRORS = (ValueError, TypeError, ArithmeticError)
#: CSS class of an explorer's box while an update runs.
BUSY_CLASS = "dpviz-busy"
#: CSS class of a base-10 log slider (the app's page template then gives its handle aria values in value units).
LOG10_CLASS = "dpviz-log10"
# The header's "updating..." note: hidden, shown 200 ms into an update (a CSS delay: quick moves never flash it).
_BUSY_STYLE = ("<style>.dpviz-busy-note{visibility:hidden;color:#0072B2;font-size:90%}"
               f".{BUSY_CLASS} .dpviz-busy-note{{animation:dpviz-busy 0s linear 0.2s both}}"
               "@keyframes dpviz-busy{from{visibility:hidden}to{visibility:visible}}</style>")


def log_slider(value: float, lo_exp: float, hi_exp: float, label: str, step: float = 0.01) -> widgets.FloatLogSlider:
    """A base-10 log slider from ``10**lo_exp`` to ``10**hi_exp`` with a descriptive label.

    Parameters
    ----------
    value : float
        Starting value.
    lo_exp, hi_exp : float
        Base-10 exponents of the smallest and largest value.
    label : str
        Description shown beside the slider.
    step : float, default 0.01
        Step of the exponent.

    Returns
    -------
    ipywidgets.FloatLogSlider
        The slider (it updates on release, not while dragging).
    """
    return widgets.FloatLogSlider(value=value, base=10, min=lo_exp, max=hi_exp, step=step, description=label,
                                  continuous_update=False, readout_format=".3g",
                                  style={"description_width": "initial"}, layout=widgets.Layout(width="420px"))


def int_slider(value: int, lo: int, hi: int, label: str, step: int = 1) -> widgets.IntSlider:
    """An integer slider with a descriptive label.

    Parameters
    ----------
    value : int
        Starting value.
    lo, hi : int
        Smallest and largest value.
    label : str
        Description shown beside the slider.
    step : int, default 1
        Step between values.

    Returns
    -------
    ipywidgets.IntSlider
        The slider (it updates on release, not while dragging).
    """
    return widgets.IntSlider(value=value, min=lo, max=hi, step=step, description=label, continuous_update=False,
                             style={"description_width": "initial"}, layout=widgets.Layout(width="420px"))


def seed_box(value: int = 0) -> widgets.BoundedIntText:
    """The random seed control (every explorer is reproducible from its seed).

    Parameters
    ----------
    value : int, default 0
        Starting seed, in ``[0, 2**31 - 1]``.

    Returns
    -------
    ipywidgets.BoundedIntText
        The seed box.
    """
    return widgets.BoundedIntText(value=value, min=0, max=2**31 - 1, description="seed",
                                  style={"description_width": "initial"}, layout=widgets.Layout(width="160px"))


def control_range(widget: widgets.Widget) -> tuple[float, float] | None:
    """``(low, high)`` of the values a bounded control can show (a log slider's in value units), else None.

    Parameters
    ----------
    widget : ipywidgets.Widget
        A control.

    Returns
    -------
    tuple of float or None
        The bounds, or None for an unbounded control (text box, toggle buttons).
    """
    if isinstance(widget, widgets.FloatLogSlider):
        return widget.base ** widget.min, widget.base ** widget.max
    lo, hi = getattr(widget, "min", None), getattr(widget, "max", None)
    return None if lo is None or hi is None else (lo, hi)


def next_values(widget: widgets.Widget, steps: int = 2) -> list[Any]:
    """The values a student reaches next with ``widget``: up to ``steps`` keyboard steps down and up (nearest
    first), or the neighbouring options of a dropdown; [] for other controls.

    A log slider's steps are steps of its exponent, as in the browser.

    Parameters
    ----------
    widget : ipywidgets.Widget
        A control.
    steps : int, default 2
        How many steps each way.

    Returns
    -------
    list
        The values, nearest first, inside the control's range.

    Examples
    --------
    >>> next_values(widgets.IntSlider(value=3, min=0, max=4))
    [2, 4, 1]
    >>> [round(v, 4) for v in next_values(log_slider(0.1, -3, 1, "epsilon"), steps=1)]
    [0.0977, 0.1023]
    """
    out: list[Any] = []
    if isinstance(widget, widgets.Dropdown):
        values = [v for _, v in widget.options] if widget.options and isinstance(widget.options[0], tuple) else list(
            widget.options)
        if widget.value in values:
            i = values.index(widget.value)
            out = [values[j] for k in range(1, steps + 1) for j in (i - k, i + k) if 0 <= j < len(values)]
        return out
    if isinstance(widget, widgets.FloatLogSlider):
        e = math.log(widget.value, widget.base)
        position = round((e - widget.min) / widget.step)
        for k in range(1, steps + 1):
            for j in (position - k, position + k):
                exponent = widget.min + j * widget.step
                if widget.min - 1e-9 <= exponent <= widget.max + 1e-9:
                    out.append(widget.base ** exponent)
        return out
    if isinstance(widget, (widgets.IntSlider, widgets.FloatSlider, widgets.BoundedIntText)):
        step = getattr(widget, "step", 1) or 1
        for k in range(1, steps + 1):
            out += [v for v in (widget.value - k * step, widget.value + k * step) if widget.min <= v <= widget.max]
    return out


_INT_WIDGETS = (widgets.IntSlider, widgets.BoundedIntText, widgets.IntText, widgets.IntRangeSlider)
_FLOAT_WIDGETS = (widgets.FloatSlider, widgets.FloatLogSlider, widgets.BoundedFloatText, widgets.FloatText,
                  widgets.FloatRangeSlider)
_FLAG_WIDGETS = (widgets.Checkbox, widgets.ToggleButton)


def _check_kind(name: str, widget: widgets.Widget, value: Any) -> None:
    """Refuse a starting value of the wrong kind: ipywidgets would round 2.5 to 2, read 1 as True, or accept NaN."""
    parts = value if isinstance(widget, (widgets.FloatRangeSlider, widgets.IntRangeSlider)) else (value,)
    if isinstance(widget, (widgets.FloatRangeSlider, widgets.IntRangeSlider)) and (
            not isinstance(value, (tuple, list)) or len(value) != 2):
        raise TypeError(f"{name} must be a pair (low, high), got {value!r}")
    if isinstance(widget, _INT_WIDGETS):
        for v in parts:
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"{name} must be an integer, got {v!r} ({type(v).__name__})")
    elif isinstance(widget, _FLOAT_WIDGETS):
        for v in parts:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"{name} must be a number, got {v!r} ({type(v).__name__})")
            if not math.isfinite(float(v)):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
    elif isinstance(widget, _FLAG_WIDGETS):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    elif isinstance(widget, (widgets.Dropdown, widgets.RadioButtons, widgets.ToggleButtons, widgets.Select,
                             widgets.SelectionSlider)):
        allowed = [o[1] if isinstance(o, tuple) else o for o in widget.options]
        if not any(value == a and isinstance(value, bool) == isinstance(a, bool) for a in allowed):
            raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def _check_value(name: str, widget: widgets.Widget, value: Any) -> None:
    """Raise a named ValueError/TypeError if ``widget`` cannot show ``value`` as it is (no clipping, no casting)."""
    _check_kind(name, widget, value)
    bounds = control_range(widget)
    if bounds is not None:
        lo, hi = bounds
        parts = value if isinstance(widget, (widgets.FloatRangeSlider, widgets.IntRangeSlider)) else (value,)
        for v in parts:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"{name} must be a number, got {v!r} ({type(v).__name__})")
            if not math.isfinite(float(v)):
                raise ValueError(f"{name} must be a finite number in [{lo:g}, {hi:g}], got {v!r}")
            if not (lo * (1 - 1e-12) - 1e-300 <= float(v) <= hi * (1 + 1e-12) + 1e-300):
                raise ValueError(f"{name} = {v!r} is outside this explorer's range [{lo:g}, {hi:g}]")


class _Guarded:
    """Mixin of a guarded control (see the module docstring): a refused value never reaches the trait.

    Both Python assignments (``__setattr__``) and the browser's updates (``set_trait``, through which
    ipywidgets applies a front-end change) are checked; a refused browser value is answered by sending the
    kept value back, so the control shows what the explorer uses.
    """

    _dpviz_name: str
    _dpviz_refused: Callable[[str], None]

    def _dpviz_accepts(self, value: Any) -> bool:
        try:
            _check_value(self._dpviz_name, self, value)
        except (TypeError, ValueError) as exc:
            self._dpviz_refused(f"{exc}; {self._dpviz_name} stays at {_short(self.value)}")  # type: ignore[attr-defined]
            return False
        return True

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "value" and "_dpviz_name" in self.__dict__ and not self._dpviz_accepts(value):
            return
        super().__setattr__(name, value)

    def set_trait(self, name: str, value: Any) -> None:
        if name == "value" and "_dpviz_name" in self.__dict__ and not self._dpviz_accepts(value):
            self.send_state("value")   # type: ignore[attr-defined]
            return
        super().set_trait(name, value)  # type: ignore[misc]


_GUARDED: dict[type, type] = {}


def _guard(name: str, widget: widgets.Widget, refused: Callable[[str], None]) -> None:
    """Make ``widget`` a guarded control named ``name`` whose refusals go to ``refused(message)``."""
    cls = type(widget)
    if cls not in _GUARDED:
        _GUARDED[cls] = type(f"Guarded{cls.__name__}", (_Guarded, cls), {})
    widget.__class__ = _GUARDED[cls]
    widget.__dict__["_dpviz_name"] = name
    widget.__dict__["_dpviz_refused"] = refused
    bounds = control_range(widget)
    if bounds is not None and isinstance(widget, (widgets.BoundedFloatText, widgets.BoundedIntText)):
        widget.tooltip = f"{name}: from {bounds[0]:g} to {bounds[1]:g}"   # a text box does not show its range


def _set_initial(name: str, widget: widgets.Widget, value: Any) -> None:
    """Set a control's starting value, refusing (not clipping) one the control cannot show.

    ipywidgets' bounded sliders silently clip an out-of-range value; an explorer
    built with ``epsilon=-1`` must say so instead of running at the slider's minimum.
    """
    _check_value(name, widget, value)
    try:
        widget.value = value
    except traitlets.TraitError as exc:
        options = getattr(widget, "options", None)
        allowed = f"; allowed: {[o[1] if isinstance(o, tuple) else o for o in options]}" if options else ""
        raise ValueError(f"{name} = {value!r} is not a value this control accepts{allowed}") from exc


class Explorer:
    """Base class of the dpviz explorers (see the module docstring for the contract).

    Parameters
    ----------
    **values
        Initial control values by control name, e.g. ``LaplaceExplorer(epsilon=0.5)``.

    Attributes
    ----------
    controls : dict[str, ipywidgets.Widget]
        The value controls; set ``controls[name].value`` to drive the explorer.
    figure : plotly.graph_objects.FigureWidget
        The interactive figure, updated in place.
    result
        The last successfully computed result (what the figure shows).
    message : ipywidgets.HTML
        Shows the error of the last failed update, empty otherwise.
    goals : ipywidgets.HTML
        The goal lines (:meth:`add_goal`), empty when the lecture set none.
    last_update_ms : float
        Wall time of the last update (compute + redraw), for the benchmarks.
    """

    title: str = "explorer"
    #: The control a student moves first (marked with the CSS class ``dpviz-main-control`` for browser tests).
    main_control: str = "epsilon"

    def __init__(self, **values: Any) -> None:
        self.controls: dict[str, widgets.Widget] = self._build_controls()
        self.buttons: dict[str, widgets.Button] = getattr(self, "buttons", {})
        unknown = set(values) - set(self.controls)
        if unknown:
            raise ValueError(f"unknown control(s) {sorted(unknown)}; controls are {sorted(self.controls)}")
        for name, value in values.items():
            _set_initial(name, self.controls[name], value)
        if self.main_control not in self.controls:
            raise TypeError(f"{type(self).__name__}.main_control {self.main_control!r} is not one of its controls")
        self.controls[self.main_control].add_class("dpviz-main-control")
        for w in self.controls.values():
            if isinstance(w, widgets.FloatLogSlider) and w.base == 10:
                w.add_class(LOG10_CLASS)   # the page template announces 10**position, not the exponent
        for name, w in self.controls.items():
            _guard(name, w, self._refuse)
        self.message = widgets.HTML(value="", layout=widgets.Layout(min_height="1.5em"))
        self.message.add_class("dpviz-message")
        self.goals = widgets.HTML(value="")
        self.goals.add_class("dpviz-goals")
        self._goals: list[tuple[str, Callable[[Any, dict[str, Any]], Any], str | None]] = []
        self.figure: go.FigureWidget | None = None
        self._shown: tuple[list[dict[str, Any]], dict[str, Any]] | None = None   # spec the figure shows
        self.result: Any = None
        self.last_update_ms = float("nan")
        self._updating = False
        self._good_values: dict[str, Any] | None = None
        if not self.update():
            raise ValueError(f"cannot start {type(self).__name__}: {self.message_text}")
        for w in self.controls.values():
            w.observe(self._on_change, names="value")
        self.widget = make_accessible(self._layout())

    # ---------------------------------------------------------------- to override
    def _build_controls(self) -> dict[str, widgets.Widget]:  # pragma: no cover - abstract
        """The value controls by name."""
        raise NotImplementedError

    def _compute(self, *args: Any, **values: Any) -> Any:  # pragma: no cover - abstract
        """The result for the control ``values`` (by name), from one call into ``dpviz.experiments``.

        ``*args`` keeps any keyword signature of a subclass a valid override for the type checker.
        """
        raise NotImplementedError

    def _figure(self, result: Any) -> go.Figure:  # pragma: no cover - abstract
        """The figure of ``result``, from one call into ``dpviz.plots``."""
        raise NotImplementedError

    def _figure_spec(self, result: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The figure of ``result`` as plain ``(traces, layout)`` dicts (optional; see the module docstring)."""
        raise NotImplementedError

    def _has_spec(self) -> bool:
        """Whether the subclass draws from plain-dict specs (overrides :meth:`_figure_spec`)."""
        return type(self)._figure_spec is not Explorer._figure_spec

    def _after_draw(self, result: Any) -> None:
        """Refresh side panels after a successful redraw (default: nothing)."""

    def _side_panels(self) -> list[widgets.Widget]:
        """Extra widgets shown under the figure (default: none)."""
        return []

    # ---------------------------------------------------------------- machinery
    @property
    def values(self) -> dict[str, Any]:
        """Current control values by name."""
        return {name: w.value for name, w in self.controls.items()}

    @property
    def message_text(self) -> str:
        """The message shown, without HTML markup."""
        import re

        return html.unescape(re.sub(r"<[^>]+>", "", self.message.value))

    def _on_change(self, change: dict[str, Any]) -> None:
        """Observer of every control's value: update unless the change was made quietly."""
        if not self._updating:
            self.update()

    def _refuse(self, text: str) -> None:
        """Show why a control value was refused (the control and the figure keep their last good state)."""
        self._show(text)

    def _show(self, text: str, kind: str = "error") -> None:
        """Show ``text`` in ``message`` as an error or an info note."""
        colour = TEXT_COLOURS[kind]
        self.message.value = (f'<span class="dpviz-{kind}" style="color:{colour}" role="status">'
                              f'{html.escape(text)}</span>')

    def _attempt(self, draw: Any) -> tuple[Any, Any] | None:
        """``(result, draw(result))`` from the current controls, or None with the error shown in ``message``."""
        try:
            result = self._compute(**self.values)
            return result, draw(result)
        except _USER_ERRORS as exc:
            self._show(f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - the kernel must not die on a widget callback
            self._show(f"unexpected {type(exc).__name__}: {exc} (please report this)")
        return None

    def update(self) -> bool:
        """Recompute from the current control values and redraw.

        On failure the message shows the error, ``result``/``figure`` keep their last good state and the
        controls go back to the values that produced it, so the figure always matches the controls.  While
        it runs the explorer's box carries the CSS class ``dpviz-busy`` (its header then says "updating..."
        if the update takes longer than 200 ms).

        Returns
        -------
        bool
            Whether the update succeeded.
        """
        box = getattr(self, "widget", None)
        if box is None:   # the first update, before the box exists
            return self._update()
        box.add_class(BUSY_CLASS)
        try:
            return self._update()
        finally:
            box.remove_class(BUSY_CLASS)

    def _update(self) -> bool:
        """:meth:`update` without the busy state."""
        start = time.perf_counter()
        spec = self._has_spec()
        computed = self._attempt(self._figure_spec if spec else self._figure)
        if computed is None:
            self._restore_good_values()
            return False
        result, fig = computed
        self.result = result
        if spec:
            traces, layout = fig
            if self.figure is None or not patch_figure(self.figure, traces, layout, self._shown):
                fig = go.Figure(data=traces, layout=layout)
            self._shown = (traces, layout)
        if self.figure is None:
            # the first figure is built whole: the browser view is created from this state
            self.figure = go.FigureWidget(fig)
        elif isinstance(fig, go.Figure):   # not patched: copy what differs
            sync_figure(self.figure, fig)
        self.message.value = ""
        self._good_values = self.values
        self._after_draw(result)
        if self._goals:
            self._check_goals()
        self.last_update_ms = (time.perf_counter() - start) * 1e3
        return True

    def add_goal(self, text: str, test: Callable[[Any, dict[str, Any]], Any]) -> None:
        """Give the student a goal to reach with the controls; the explorer says when it is reached.

        Parameters
        ----------
        text : str
            What to do, e.g. "find the epsilon at which 90 % of the noisy counts fall within +-5".
        test : callable
            ``test(result, values)`` after every redraw: falsy while the goal is not reached; when reached, a
            short string saying what was found (or True).  Once reached a goal stays reached.
        """
        self._goals.append((str(text), test, None))
        self._check_goals()

    @property
    def goals_reached(self) -> list[bool]:
        """Whether each goal (in the order added) has been reached."""
        return [found is not None for _, _, found in self._goals]

    def _check_goals(self) -> None:
        """Test every goal not yet reached on the current result and redraw the goal lines."""
        for k, (text, test, found) in enumerate(self._goals):
            if found is None:
                try:
                    verdict = test(self.result, self.values)
                except Exception:  # noqa: BLE001 - a goal's test must never break the explorer
                    verdict = None
                if verdict:
                    self._goals[k] = (text, test, verdict if isinstance(verdict, str) else "")
        lines = []
        for text, _, found in self._goals:
            if found is None:
                lines.append(f'<span style="color:#555">&#9744; Goal: {html.escape(text)}</span>')
            else:
                note = f" &mdash; {html.escape(found)}" if found else ""
                lines.append(f'<span style="color:#0072B2">&#10004; Goal reached: {html.escape(text)}{note}</span>')
        self.goals.value = '<div role="status">' + "<br>".join(lines) + "</div>"

    def _restore_good_values(self) -> None:
        """Put every control back at the value of the last successful update (after a refused computation)."""
        if self._good_values is None:
            return
        moved = {n: v for n, v in self._good_values.items() if self.controls[n].value != v}
        for name, value in moved.items():
            self.set_quietly(name, value)
        if moved:
            back = ", ".join(f"{n} back to {_short(v)}" for n, v in moved.items())
            self._show(f"{self.message_text}; {back}")

    def set_quietly(self, name: str, value: Any) -> None:
        """Set a control without triggering an update (to display a value the core solved for).

        Parameters
        ----------
        name : str
            The control's name.
        value : object
            Its new value.
        """
        self._updating = True
        try:
            self.controls[name].value = value
        finally:
            self._updating = False

    def _layout(self) -> widgets.Widget:
        """The explorer's box: title, controls three per row, message, figure, side panels."""
        ctrl = list(self.controls.values()) + list(self.buttons.values())
        # rows wrap on a narrow screen instead of squeezing a slider's track to nothing (seen at 1024 px)
        rows = [widgets.HBox(ctrl[i:i + 3], layout=widgets.Layout(flex_flow="row wrap"))
                for i in range(0, len(ctrl), 3)]
        header = widgets.HTML(f"{_BUSY_STYLE}<b>{html.escape(self.title)}</b> "
                              '<span class="dpviz-busy-note" role="status">&#8987; updating&hellip;</span>')
        header.add_class("dpviz-header")
        return widgets.VBox([header, *rows, self.message, self.goals, self.figure, *self._side_panels()])

    # ---------------------------------------------------------------- display
    def __repr__(self) -> str:
        vals = ", ".join(f"{k}={_short(v)}" for k, v in self.values.items())
        return f"{type(self).__name__}({vals})"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """Jupyter's display: the widget, with ``repr`` as its plain-text form."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle


def _short(v: Any) -> str:
    """A control value for ``repr``: floats to 4 significant digits."""
    return f"{v:.4g}" if isinstance(v, float) else repr(v)
