"""An explorer's figure and side-panel text at every grid value of its main control, deduplicated."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets

from dpviz.export.grid import GRID_SIZE, grid_values

__all__ = ["Snapshot", "explorer_names", "make_explorer", "snapshot", "control_label"]


def explorer_names() -> list[str]:
    """The explorers that can be exported: every name of ``dpviz.widgets.__all__`` but the base class.

    Returns
    -------
    list of str
        The explorers' class names.
    """
    import dpviz.widgets

    return [n for n in dpviz.widgets.__all__ if n != "Explorer"]


def make_explorer(name: str, **values: Any) -> Any:
    """A fresh explorer ``name`` (as in ``dpviz.widgets.__all__``) at its default controls, updated by ``values``.

    Parameters
    ----------
    name : str
        The explorer's class name, e.g. ``"LaplaceExplorer"``.
    **values
        Control values, e.g. ``epsilon=0.5``.

    Returns
    -------
    dpviz.widgets.base.Explorer
        The explorer.

    Raises
    ------
    ValueError
        If ``name`` is not an explorer of ``dpviz.widgets``.
    """
    import dpviz.widgets

    names = explorer_names()
    if not isinstance(name, str) or name not in names:
        raise ValueError(f"explorer_name must be one of {names}, got {name!r}")
    return getattr(dpviz.widgets, name)(**values)


def control_label(widget: widgets.Widget, name: str) -> str:
    """The label a control shows (its description), else its name.

    Parameters
    ----------
    widget : ipywidgets.Widget
        The control.
    name : str
        Its name among the explorer's controls.

    Returns
    -------
    str
        The label.
    """
    return str(getattr(widget, "description", "") or name)


def _format(value: Any) -> str:
    """A value as the page shows it: 4 significant digits for floats, also inside a pair (a range slider's)."""
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_format(v) for v in value) + ")"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


@dataclass
class Snapshot:
    """Everything an exported page shows: one frame per grid value, the pieces they share stored once.

    Attributes
    ----------
    name, title : str
        The explorer's class name and title.
    control, label : str
        The main control's name and its label.
    values : list
        The grid values.
    labels : list of str
        The grid values as the page shows them.
    start : int
        The frame shown first (the grid value nearest the control's default).
    fixed : dict
        The other controls' values (as shown), fixed in every frame.
    pieces : list of str
        JSON texts (a trace, or one top-level layout entry), each stored once.
    frames : list of dict
        Per grid value: ``data`` (piece indices of the traces), ``layout`` (key -> piece index) and
        ``panels`` (the side panels' and the message's HTML).
    """

    name: str
    title: str
    control: str
    label: str
    values: list[Any]
    labels: list[str]
    start: int
    fixed: dict[str, str]
    pieces: list[str] = field(default_factory=list)
    frames: list[dict[str, Any]] = field(default_factory=list)

    def figure(self, k: int) -> dict[str, Any]:
        """Frame ``k``'s figure as plotly JSON (``{"data": [...], "layout": {...}}``; arrays base64-encoded).

        Parameters
        ----------
        k : int
            Index of the grid value.

        Returns
        -------
        dict
            The figure.
        """
        frame = self.frames[k]
        return {"data": [json.loads(self.pieces[i]) for i in frame["data"]],
                "layout": {key: json.loads(self.pieces[i]) for key, i in frame["layout"].items()}}


def _panels(explorer: Any) -> list[str]:
    """The HTML the explorer shows beside its figure: the message, then every HTML side panel."""
    shown = [explorer.message.value]
    shown += [w.value for w in explorer._side_panels() if isinstance(w, widgets.HTML)]
    return shown


def snapshot(name: str, size: int = GRID_SIZE, **values: Any) -> Snapshot:
    """Run explorer ``name`` at every grid value of its main control and record what it shows.

    One explorer, started at the first grid value, moves along the grid as a student would; at each value the
    recorded figure is the explorer's own (its ``FigureWidget``, serialised by plotly) and the panels its own HTML.

    Parameters
    ----------
    name : str
        The explorer's class name (``dpviz.widgets.__all__``).
    size : int, default GRID_SIZE
        Largest number of grid values.
    **values
        Other control values to fix (default: the explorer's defaults).

    Returns
    -------
    Snapshot
        The frames.

    Raises
    ------
    ValueError
        If ``name`` is unknown or the explorer refuses a grid value.
    """
    explorer = make_explorer(name, **values)
    control = explorer.main_control
    widget = explorer.controls[control]
    grid = grid_values(widget, size)
    default = widget.value
    start = min(range(len(grid)), key=lambda k: abs(grid[k] - default)
                if isinstance(default, (int, float)) else grid[k] != default)
    fixed = {control_label(w, n): _format(w.value) for n, w in explorer.controls.items() if n != control}
    if grid[0] != default:
        # walk from the first grid value, so every value is computed as a fresh explorer computes it: an explorer
        # that caches results (and says what came from its cache) would otherwise find its default cached
        explorer = make_explorer(name, **{**values, control: grid[0]})
        widget = explorer.controls[control]
    snap = Snapshot(name=name, title=explorer.title, control=control, label=control_label(widget, control),
                    values=grid, labels=[_format(v) for v in grid], start=start, fixed=fixed)
    index: dict[str, int] = {}

    def piece(obj: Any) -> int:
        text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
        if text not in index:
            index[text] = len(snap.pieces)
            snap.pieces.append(text)
        return index[text]

    for value in grid:
        widget.value = value
        if explorer.values[control] != value or explorer.result is None or "dpviz-error" in explorer.message.value:
            raise ValueError(f"{name} refused {control} = {value!r}: {explorer.message_text}")
        fig = json.loads(explorer.figure.to_json())
        snap.frames.append({"data": [piece(t) for t in fig.get("data", [])],
                            "layout": {k: piece(v) for k, v in fig.get("layout", {}).items()},
                            "panels": _panels(explorer)})
    return snap
