"""The explorers' plotly figure widget: plotly's ``FigureWidget`` without the browser's report of plotly.js defaults.

After every update sent from Python, plotly's browser side diffs each trace's full data (every default plotly.js
filled in) against the data it was given and sends the difference back as ``_js2py_traceDeltas``: 100-200 kB per
move of the comparison explorer. The kernel then echoed it to the browser (ipywidgets 8 ``echo_update``) and merged
it into the Python-side defaults, after which ipywidgets compared the report (its typed arrays arrive as numpy
arrays) with ``==`` and raised ``ValueError`` (plotly 7.1, ipywidgets 8.1). Measured in the course app, that was
180 ms of kernel time after every move, during which the next move waited, and an error message sent to the page.
The explorers never read plotly's defaults in Python, so :class:`ExplorerFigure` does not sync that property: the
kernel still decodes the report but sets nothing, echoes nothing and raises nothing (the browser still computes and
sends it). ``on_edits_completed`` callbacks, which wait for that report, never run; they did not in plotly 7
either (its browser side sends the layout report under a misspelt name, so the layout edit never completes).

Second, after every update plotly works out which objects of the changed properties have ``on_change`` callbacks,
parsing every changed path again: about a third of the comparison explorer's 10 ms patch. :class:`ExplorerFigure`
first checks whether any object of the figure has such a callback (0.05 ms) and does that work only if one does.
Third, the browser side itself: :class:`ExplorerFigure` ships plotly's own widget bundle (the ES module anywidget
loads) with two methods made to return at once, ``_sendTraceDeltas`` and ``_sendLayoutDelta``, the ones that compute
and send that report. In the course app they ran between plotly.js's update and its last redraw of the plot, so a
student waited for them on every move: merging every trace's full data with plotly.js's defaults, diffing it and
sending 100 kB to a kernel that discards it (:func:`lean_bundle`). If a plotly release renames them, the bundle is
shipped unchanged and only that saving is lost (a test pins the version this was checked on).

Fourth, the bundle is loaded once per page, and early. anywidget compiles a widget's ES module from its ``_esm``
text, once per widget: 1.3-2.1 s of the browser's main thread for these 4.9 MB, after the kernel had built the
explorer, so a student waited for it on every explorer. Here the bundle travels once per kernel, as the text of a
:class:`PlotlyLoader` that is never displayed; the browser starts compiling it as soon as the loader exists, and
an :class:`ExplorerFigure`'s own ``_esm`` (``explorer_figure.js``) is a few lines that return at once and start
plotly's model and views when that module is ready (anywidget allows a model two seconds to start, and drops every
later message of a model that took longer: the module takes the figure's messages past that gate and asks the
kernel for the figure whole if it missed an update). The loader is made by :func:`preload_plotly`, which runs
when this module is imported in a kernel (so a lecture that imports its explorer in its first cell has the
bundle compiled while its other cells run) and before every figure.

Fifth, in the kernel: plotly checks each property path of an update against the figure's property tree before
applying it, about 0.2 ms a path (20 paths a move of the hierarchy explorer: 8 of its 12 ms). An
:class:`ExplorerFigure` applies updates (from Python, and the browser's zoom and legend clicks) as plotly does,
but remembers the paths plotly accepted (:func:`_checked_path`).

Everything else is plotly's own.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import re
from pathlib import Path
from typing import Any

import anywidget
import plotly
import plotly.graph_objects as go
from plotly.basedatatypes import BaseFigure, Undefined
from traitlets import Dict, Unicode

__all__ = ["ExplorerFigure", "PlotlyLoader", "preload_plotly", "lean_bundle", "QUIET_METHODS"]

#: The methods of plotly's browser-side figure view that compute and send the report of plotly.js defaults.
QUIET_METHODS = ("_sendTraceDeltas", "_sendLayoutDelta")


@functools.cache
def lean_bundle() -> str:
    """plotly's widget bundle (``plotly/package_data/widgetbundle.js``) with :data:`QUIET_METHODS` returning at once.

    Each method is located by its definition (``name(arg){``), which must occur exactly once in the bundle, and
    ``return;`` is inserted as its first statement; every call site is left as it is.  If either definition is
    not found exactly once (a plotly release that renamed or inlined it), the bundle is returned unchanged.

    Returns
    -------
    str
        The ES module's source text (about 4.9 MB).

    Examples
    --------
    >>> src = lean_bundle()
    >>> "_sendTraceDeltas(ne){return;" in src, len(src) > 1_000_000
    (True, True)
    """
    source = (Path(plotly.__file__).parent / "package_data" / "widgetbundle.js").read_text(encoding="utf-8")
    return _quiet(source, QUIET_METHODS)


def _quiet(source: str, methods: tuple[str, ...]) -> str:
    """``source`` with ``return;`` first in each method definition ``name(arg){`` of ``methods``; ``source``
    unchanged unless every definition occurs exactly once."""
    out = source
    for method in methods:
        # a definition, not a call (``this.name(x)``) or a longer name; the check is made on each match, since a
        # look-behind in the pattern makes the regex scan the 4.9 MB bundle 25 times slower (155 ms a method)
        found = [m for m in re.finditer(rf"{re.escape(method)}\(([\w$]+)\)\{{", out)
                 if m.start() == 0 or not (out[m.start() - 1].isalnum() or out[m.start() - 1] in "_$.")]
        if len(found) != 1:
            return source
        end = found[0].end()
        out = out[:end] + "return;" + out[end:]
    return out


@functools.cache
def _slot() -> str:
    """The page-wide key under which the browser keeps the bundle's module URL: one per bundle text, so kernels
    with different plotly versions in one JupyterLab page each get their own."""
    return "dpviz.plotly." + hashlib.sha256(lean_bundle().encode()).hexdigest()[:16]


# Both sides get the same slot: a promise of the bundle's blob URL, made by whichever side runs first and resolved
# by the loader.  One URL per page means one module: the browser compiles and evaluates it once.
_SLOT_JS = """const slot = (globalThis[Symbol.for("{key}")] ??= {{}});
slot.url ??= new Promise((resolve) => {{ slot.resolve = resolve; }});
"""

_LOADER_JS = _SLOT_JS + """export default {{
  initialize({{ model }}) {{
    if (slot.loading) return;
    slot.loading = true;
    const url = URL.createObjectURL(new Blob([model.get("_source")], {{ type: "text/javascript" }}));
    slot.resolve(url);
    import(url).catch((error) => console.error("dpviz: the plotly widget bundle failed to load", error));
  }},
}};
"""

#: A figure's own module (``explorer_figure.js`` beside this file, where its comments say why each part is there):
#: it returns at once and starts plotly's model and views once the loader's bundle is compiled, takes the figure's
#: comm messages from anywidget's two-second gate, and asks the kernel for the figure whole if it missed an update.
#: Its whole-line comments stay in the file: the page gets the code.
_FIGURE_JS = "\n".join(line for line in Path(__file__).with_name("explorer_figure.js").read_text(encoding="utf-8")
                       .splitlines() if not line.lstrip().startswith("//")) + "\n"


class PlotlyLoader(anywidget.AnyWidget):
    """A widget that is never displayed: it carries :func:`lean_bundle` to the browser, which starts compiling it
    at once, and every :class:`ExplorerFigure` of the page then uses that one module.

    Use :func:`preload_plotly` rather than making one: a kernel needs a single loader.

    Examples
    --------
    >>> loader = PlotlyLoader()
    >>> len(loader._source) == len(lean_bundle()), "initialize" in loader._esm
    (True, True)
    """

    _esm = _LOADER_JS.format(key=_slot())
    _source = Unicode(lean_bundle()).tag(sync=True)


_loader: PlotlyLoader | None = None


def preload_plotly() -> PlotlyLoader:
    """The kernel's :class:`PlotlyLoader`, made (and so sent to the browser) the first time, or again if it was
    closed.

    Returns
    -------
    PlotlyLoader
        The loader every :class:`ExplorerFigure` of this kernel relies on.

    Examples
    --------
    >>> preload_plotly() is preload_plotly()
    True
    """
    global _loader
    if _loader is None or _loader.comm is None:
        _loader = PlotlyLoader()
    return _loader


class ExplorerFigure(go.FigureWidget):
    """A ``plotly.graph_objects.FigureWidget`` that ignores the browser's trace-defaults report.

    Parameters
    ----------
    data, layout, frames, skip_invalid, **kwargs
        As for ``plotly.graph_objects.FigureWidget``: a figure (or its traces), its layout and frames, and
        whether to drop invalid properties instead of raising.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> fig = ExplorerFigure(go.Figure(data=[go.Scatter(y=[1.0, 2.0])]))
    >>> "_js2py_traceDeltas" in fig.keys, fig.data[0].y
    (False, (1.0, 2.0))
    """

    # plotly's bundle without the browser-side report, loaded once per page by the PlotlyLoader (module docstring)
    _esm = _FIGURE_JS.replace("__DPVIZ_SLOT__", _slot())

    # not synced: ipywidgets decodes the browser's message but sets (and echoes) only synced properties, so
    # plotly's observer of this property never runs
    _js2py_traceDeltas = Dict(allow_none=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        preload_plotly()   # the loader's model reaches the browser before this figure's
        super().__init__(*args, **kwargs)
        self.on_msg(self._on_page_message)

    def _on_page_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """The page's two questions about the figure it holds.

        ``resync``: its plotly model started after the kernel had changed the figure; send the current traces
        and layout whole, as plotly does when the figure is displayed.  ``check`` (with the page's two edit
        counters): the page may have lost updates (anywidget dropped them, see ``explorer_figure.js``);
        if its counters are not the kernel's, send the figure whole as for ``resync``, else answer ``current``.
        """
        if not isinstance(content, dict) or content.get("dpviz") not in ("resync", "check"):
            return
        if content["dpviz"] == "check" and (content.get("layout_edit_id"), content.get("trace_edit_id")) == (
                self._last_layout_edit_id, self._last_trace_edit_id):
            self.send({"dpviz": "current"})
            return
        with self.hold_sync():   # one message with what differs from the figure the page was first sent
            self._widget_layout = copy.deepcopy(self._layout_obj._props)
            self._widget_data = copy.deepcopy(self._data)
        # and the counters, so that plotly's model numbers its next answers as the kernel expects
        self.send_state(["_last_layout_edit_id", "_last_trace_edit_id"])
        self.send({"dpviz": "resynced"})   # after the state: the page draws its views once this arrives

    def _perform_plotly_relayout(self, relayout_data: dict[str, Any]) -> dict[str, Any]:
        """plotly's relayout of the Python-side layout (the changed paths and values), each path checked by
        :func:`_checked_path`."""
        changes = {}
        for key, value in relayout_data.items():
            if BaseFigure._set_in(self._layout, _checked_path(key, self.layout), value):
                changes[key] = value
        return changes

    def _perform_plotly_restyle(self, restyle_data: dict[str, Any], trace_indexes: list[int]) -> dict[str, Any]:
        """plotly's restyle of the Python-side traces (the changed paths and values; a list gives one value per
        trace, cycled, and Undefined leaves a trace as it is), each path checked by :func:`_checked_path`."""
        changes = {}
        for key, values in restyle_data.items():
            changed = False
            for k, index in enumerate(trace_indexes):
                if index >= len(self._data):
                    raise ValueError(f"trace index {index} is out of range: the figure has {len(self._data)} traces")
                value = values[k % len(values)] if isinstance(values, list) else values
                if value is not Undefined:
                    path = _checked_path(key, self.data[index])
                    changed = BaseFigure._set_in(self._data[index], path, value) or changed
            if changed:
                changes[key] = values
        return changes

    def _send_update_msg(self, restyle_data: dict[str, Any], relayout_data: dict[str, Any],
                         trace_indexes: Any = None, source_view_id: str | None = None) -> None:
        """plotly's ``Plotly.update`` message, with the two edit counters in the same comm message as the update.

        plotly sets each counter on its own: four messages with the clearing, each a separate task in the
        browser, so the update waited behind two (and behind a frame drawn between them).  The counters and the
        update are set under ``hold_sync`` and the update is cleared after it, as plotly does.  Inside an outer
        ``hold_sync`` of this figure (where plotly's own method sends only the clearing) the update is sent at
        once.
        """
        trace_indexes = self._normalize_trace_indexes(trace_indexes)
        outer = self._holding_sync
        with self.hold_sync():
            self._last_trace_edit_id += 1
            self._trace_edit_in_process = True
            self._last_layout_edit_id += 1
            self._layout_edit_in_process = True
            self._py2js_update = {   # a traitlets Dict(allow_none=True)
                "style_data": restyle_data, "layout_data": relayout_data, "style_traces": trace_indexes,
                "trace_edit_id": self._last_trace_edit_id, "layout_edit_id": self._last_layout_edit_id,
                "source_view_id": source_view_id,
            }
            if outer:   # the outer hold would send the values current at its end: the clearing only
                self.send_state(["_last_trace_edit_id", "_last_layout_edit_id", "_py2js_update"])
        self._py2js_update = None  # type: ignore[assignment]  # allow_none=True: clears it as plotly does

    def _dispatch_layout_change_callbacks(self, relayout_data: Any) -> None:
        """Call the layout's ``on_change`` callbacks of the changed paths, if the layout has any."""
        if _listened(self.layout):
            super()._dispatch_layout_change_callbacks(relayout_data)

    def _dispatch_trace_change_callbacks(self, restyle_data: Any, trace_indexes: Any) -> None:
        """Call the changed traces' ``on_change`` callbacks of the changed paths, if those traces have any."""
        if any(_listened(self.data[i]) for i in trace_indexes):
            super()._dispatch_trace_change_callbacks(restyle_data, trace_indexes)


@functools.lru_cache(maxsize=4096)
def _parsed(key: str) -> tuple[str | int, ...]:
    """plotly's parse of a property path (``"annotations[1].text"`` -> ``("annotations", 1, "text")``)."""
    return tuple(BaseFigure._str_to_dict_path(key))


#: (path, class) pairs plotly has accepted, for paths whose first part is a property of the object (``xaxis2`` is
#: one only once the layout has that subplot) and has no array index before the last part: the rest of such a path
#: is checked against property classes, so the answer is the same for every object of the class.
_ACCEPTED: set[tuple[tuple[str | int, ...], type]] = set()


def _checked_path(key: str, obj: Any) -> tuple[str | int, ...]:
    """The parsed ``key``, once plotly accepts it as a property path of ``obj`` (a trace or the layout).

    plotly checks a path by walking ``obj``'s property tree, about 0.2 ms a path and 20 paths a move of the
    hierarchy explorer.  A path plotly accepted is remembered per class when its answer cannot differ between
    objects of that class: its first part is one of ``obj``'s properties (a layout's subplot ids, ``xaxis3``,
    ``legend2``, vary with the figure: such a path is remembered only once ``obj`` has that subplot), it is not
    under ``template`` (a template's layout has subplots of its own), and it has no array index before its last
    part (``annotations[1].text`` depends on the figure's arrays).  Other paths are checked every time.

    Raises
    ------
    ValueError
        If ``key`` is not a property path of ``obj``.
    """
    path = _parsed(key)
    first = path[0]
    cacheable = (isinstance(first, str) and first in obj._valid_props and first != "template"
                 and not any(isinstance(part, int) for part in path[:-1]))
    if cacheable and (path, type(obj)) in _ACCEPTED:
        return path
    if not BaseFigure._is_key_path_compatible(path, obj):
        raise ValueError(f"invalid property path {key!r} for {type(obj).__name__}")
    if cacheable:
        _ACCEPTED.add((path, type(obj)))
    return path


def _in_kernel() -> bool:
    """Whether this Python runs in a Jupyter kernel (where a widget reaches a browser)."""
    import sys

    shell = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
    return getattr(shell, "kernel", None) is not None


if _in_kernel():
    preload_plotly()   # start the browser's compile now, while the notebook's next cells run


def _listened(obj: Any) -> bool:
    """Whether ``obj`` (a plotly layout or trace) or any of its sub-objects has an ``on_change`` callback."""
    if obj._change_callbacks:
        return True
    if any(child is not None and _listened(child) for child in obj._compound_props.values()):
        return True
    return any(_listened(child) for group in obj._compound_array_props.values() for child in group or ())
