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
import time
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.plots.bands import patch_figure, replace_figure, sync_figure
from dpviz.widgets.accessibility import TEXT_COLOURS, make_accessible
from dpviz.widgets.controls import (
    SEED_MAX,
    control_range,
    guard_control,
    int_slider,
    log_slider,
    next_values,
    seed_box,
    set_initial_value,
    short_value,
)
from dpviz.widgets.figure_widget import ExplorerFigure
from dpviz.widgets.readouts import guard_readouts

__all__ = ["Explorer", "BUSY_CLASS", "LOG10_CLASS", "log_slider", "int_slider", "seed_box", "SEED_MAX",
           "control_range", "next_values"]

_USER_ERRORS = (ValueError, TypeError, ArithmeticError)
#: CSS class of an explorer's box while an update runs.
BUSY_CLASS = "dpviz-busy"
#: CSS class of a base-10 log slider (the app's page template then gives its handle aria values in value units).
LOG10_CLASS = "dpviz-log10"
# The header's "updating..." note: hidden, shown 200 ms into an update (a CSS delay: quick moves never flash it).
_BUSY_STYLE = ("<style>.dpviz-busy-note{visibility:hidden;color:#0072B2;font-size:90%}"
               f".{BUSY_CLASS} .dpviz-busy-note{{animation:dpviz-busy 0s linear 0.2s both}}"
               "@keyframes dpviz-busy{from{visibility:hidden}to{visibility:visible}}</style>")


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
            set_initial_value(name, self.controls[name], value)
        if self.main_control not in self.controls:
            raise TypeError(f"{type(self).__name__}.main_control {self.main_control!r} is not one of its controls")
        self.controls[self.main_control].add_class("dpviz-main-control")
        for w in self.controls.values():
            if isinstance(w, widgets.FloatLogSlider) and w.base == 10:
                w.add_class(LOG10_CLASS)   # the page template announces 10**position, not the exponent
        for name, w in self.controls.items():
            guard_control(name, w, self._refuse)
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
        self._moved: str | None = None   # the control changed last, and whether it went up (see _ahead)
        self._up = False
        self._good_values: dict[str, Any] | None = None
        if not self.update():
            raise ValueError(f"cannot start {type(self).__name__}: {self.message_text}")
        for w in self.controls.values():
            w.observe(self._on_change, names="value")
        self.widget = guard_readouts(make_accessible(self._layout()), self.controls, self._refuse)

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
        """Observer of every control's value: note which control moved and which way, then update unless the
        change was made quietly."""
        self._moved = next((k for k, w in self.controls.items() if w is change.get("owner")), None)
        if self._moved is not None:
            old, new = self._position(self._moved, change.get("old")), self._position(self._moved, change.get("new"))
            self._up = old is not None and new is not None and new > old
        if not self._updating:
            self.update()

    def _ahead(self, name: str, steps: int = 1) -> list[Any]:
        """The values control ``name`` reaches next (:func:`next_values`); for the control moved last, those the
        way it moved first (a student presses the same arrow key again)."""
        values = next_values(self.controls[name], steps=steps)
        if name != self._moved:
            return values
        current = self._position(name, self.controls[name].value)
        if current is None:
            return values
        # stable: nearest first on each side
        return sorted(values, key=lambda v: ((self._position(name, v) or 0.0) > current) != self._up)

    def _position(self, name: str, value: Any) -> float | None:
        """Where ``value`` lies along control ``name``: the number itself, or its index among a dropdown's
        options (None for anything else), so that "which way did it move" means the same for both."""
        widget = self.controls[name]
        if isinstance(widget, widgets.Dropdown):
            values = [o[1] if isinstance(o, tuple) else o for o in widget.options]
            return float(values.index(value)) if value in values else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return None

    def _moved_first(self, groups: dict[str, list[Any]]) -> list[Any]:
        """The next moves of every control (``groups``: control name -> its next settings, nearest first) as one
        list, the last moved control's first (the others in the order given)."""
        order = sorted(groups, key=lambda name: name != self._moved)   # stable: the moved control's group first
        return [move for name in order for move in groups[name]]

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
            if self.figure is None:
                fig = go.Figure(data=traces, layout=layout)
            elif not patch_figure(self.figure, traces, layout, self._shown):
                if [t.get("type", "scatter") for t in traces] != [t.type for t in self.figure.data]:
                    replace_figure(self.figure, traces, layout)   # traces added or removed: no go.Figure first
                else:
                    fig = go.Figure(data=traces, layout=layout)
            self._shown = (traces, layout)
        if self.figure is None:
            # the first figure is built whole: the browser view is created from this state
            self.figure = ExplorerFigure(fig)
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
            back = ", ".join(f"{n} back to {short_value(v)}" for n, v in moved.items())
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

    def _control_rows(self) -> list[list[widgets.Widget]]:
        """The controls and buttons, three per row (an explorer with a group of its own overrides this)."""
        ctrl = list(self.controls.values()) + list(self.buttons.values())
        return [ctrl[i:i + 3] for i in range(0, len(ctrl), 3)]

    def _layout(self) -> widgets.Widget:
        """The explorer's box: title, control rows, message, figure, side panels."""
        # rows wrap on a narrow screen instead of squeezing a slider's track to nothing (seen at 1024 px)
        rows = [widgets.HBox(row, layout=widgets.Layout(flex_flow="row wrap")) for row in self._control_rows()]
        header = widgets.HTML(f"{_BUSY_STYLE}<b>{html.escape(self.title)}</b> "
                              '<span class="dpviz-busy-note" role="status">&#8987; updating&hellip;</span>')
        header.add_class("dpviz-header")
        return widgets.VBox([header, *rows, self.message, self.goals, self.figure, *self._side_panels()])

    def close(self) -> None:
        """Close every widget of the explorer: its controls, figure, panels and their layouts and styles.

        Each widget's comm closes, so the kernel forgets it and the page removes its views; ``del`` alone leaves
        them all registered (46 widgets for the Laplace explorer).  The page's shared plotly loader stays.
        """
        seen: set[int] = set()
        stack: list[Any] = [self.widget, *self.controls.values(), *self.buttons.values(), self.message,
                            self.goals, self.figure]
        found: list[widgets.Widget] = []
        while stack:
            w = stack.pop()
            if not isinstance(w, widgets.Widget) or id(w) in seen:
                continue
            seen.add(id(w))
            found.append(w)
            for name in w.keys:                  # children, layout, style: every widget it refers to
                value = getattr(w, name, None)
                stack.extend(value if isinstance(value, (tuple, list)) else [value])
        for w in found:
            w.close()

    # ---------------------------------------------------------------- display
    def __repr__(self) -> str:
        vals = ", ".join(f"{k}={short_value(v)}" for k, v in self.values.items())
        return f"{type(self).__name__}({vals})"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """Jupyter's display: the widget, with ``repr`` as its plain-text form."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle
