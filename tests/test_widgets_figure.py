"""ExplorerFigure: the kernel sets, merges and echoes nothing of the browser's report of plotly.js defaults."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz.widgets import LaplaceExplorer
from dpviz.widgets.figure_widget import ExplorerFigure


def _report(fig: go.FigureWidget) -> dict:
    """What plotly's browser side sends after an update: each trace's defaults; typed arrays arrive as numpy arrays
    (plotly's deserializer)."""
    return {"_js2py_traceDeltas": {
        "trace_deltas": [{"uid": t.uid, "x": np.arange(len(t.y)), "error_y": {"array": np.zeros(len(t.y))}}
                         for t in fig.data],
        "trace_edit_id": fig._last_trace_edit_id}}


def _figure(cls: type) -> go.FigureWidget:
    return cls(go.Figure(data=[go.Scatter(y=np.array([1.0, 2.0, 3.0]), marker=dict(color=np.array([1, 2, 3])))]))


def test_plotly_figurewidget_merges_the_report_and_fails_on_array_properties() -> None:
    # the behaviour ExplorerFigure exists for: if plotly fixes it, this test says the subclass can go
    fig = _figure(go.FigureWidget)
    fig.plotly_update(restyle_data={"y": [np.array([3.0, 2.0, 1.0])]}, trace_indexes=[0])
    with pytest.raises(ValueError, match="truth value of an array"):
        fig.set_state(_report(fig))


def test_explorer_figure_drops_the_report_and_keeps_its_data() -> None:
    fig = _figure(ExplorerFigure)
    fig.plotly_update(restyle_data={"y": [np.array([3.0, 2.0, 1.0])]}, trace_indexes=[0])
    fig.set_state(_report(fig))   # no error, nothing merged
    assert "_js2py_traceDeltas" not in fig.keys
    assert not fig._js2py_traceDeltas
    assert fig.data[0].y.tolist() == [3.0, 2.0, 1.0] and fig.data[0].marker.color.tolist() == [1, 2, 3]
    # what the browser sends on a legend click or zoom still reaches Python
    fig.set_state({"_js2py_relayout": {"relayout_data": {"xaxis.range": [0, 1]}, "source_view_id": "v"}})
    assert tuple(fig.layout.xaxis.range) == (0, 1)


def test_explorers_draw_into_an_explorer_figure() -> None:
    e = LaplaceExplorer()
    assert isinstance(e.figure, ExplorerFigure)
    before = [t.y.tolist() if t.y is not None else None for t in e.figure.data]
    e.controls["epsilon"].value = 0.5
    assert [t.y.tolist() if t.y is not None else None for t in e.figure.data] != before


@pytest.mark.parametrize("cls", [go.FigureWidget, ExplorerFigure])
def test_on_change_callbacks_still_run_on_updates_from_python(cls: type) -> None:
    """ExplorerFigure skips plotly's callback dispatch only when nothing listens: a callback on a layout
    sub-object or on a trace's marker is called exactly as by plotly's own FigureWidget."""
    fig = _figure(cls)
    fig.update_layout(xaxis=dict(range=[0, 1]))
    seen: list[str] = []
    fig.layout.xaxis.on_change(lambda obj, rng: seen.append(f"range {list(rng)}"), "range")
    fig.data[0].marker.on_change(lambda obj, colour: seen.append(f"colour {[int(c) for c in colour]}"), "color")
    fig.plotly_update(restyle_data={"marker.color": [np.array([3, 2, 1])]}, relayout_data={"xaxis.range": [0, 5]},
                      trace_indexes=[0])
    assert seen == ["colour [3, 2, 1]", "range [0, 5]"] or seen == ["range [0, 5]", "colour [3, 2, 1]"]


def test_explorer_figure_skips_the_dispatch_when_nothing_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(go.FigureWidget, "_dispatch_layout_change_callbacks", lambda *a: calls.append("layout"))
    monkeypatch.setattr(go.FigureWidget, "_dispatch_trace_change_callbacks", lambda *a: calls.append("trace"))
    fig = _figure(ExplorerFigure)
    fig.plotly_update(restyle_data={"y": [np.array([3.0, 2.0, 1.0])]}, relayout_data={"title.text": "t"},
                      trace_indexes=[0])
    assert calls == [] and fig.data[0].y.tolist() == [3.0, 2.0, 1.0] and fig.layout.title.text == "t"


def test_the_shipped_bundle_is_plotlys_with_only_the_report_methods_returning_at_once() -> None:
    """lean_bundle() differs from plotly's widgetbundle.js by exactly one ``return;`` at the start of each report
    method, and the report is computed nowhere else (plotly 7.1, the version this was measured on)."""
    from pathlib import Path

    import plotly

    from dpviz.widgets.figure_widget import QUIET_METHODS, lean_bundle, preload_plotly

    stock = (Path(plotly.__file__).parent / "package_data" / "widgetbundle.js").read_text(encoding="utf-8")
    lean = lean_bundle()
    assert preload_plotly()._source == lean
    if plotly.__version__ != "7.1.0":
        pytest.skip(f"the bundle's method names were checked on plotly 7.1.0, not {plotly.__version__}")
    for method in QUIET_METHODS:
        assert lean.count(f"{method}(ne){{return;") == 1, method
    assert lean.replace("){return;", "){") == stock
    assert len(lean) == len(stock) + len("return;") * len(QUIET_METHODS)
    assert "_js2py_traceDeltas" in stock and lean.count('model.set("_js2py_traceDeltas"') == 1   # in the quiet one


def test_a_bundle_without_the_methods_is_shipped_unchanged() -> None:
    from dpviz.widgets.figure_widget import _quiet

    source = "class V{_sendTraceDeltas(a){send(a)}x(){this._sendTraceDeltas(1)}}"
    quieted = "class V{_sendTraceDeltas(a){return;send(a)}x(){this._sendTraceDeltas(1)}}"   # the call site kept
    assert _quiet(source, ("_sendTraceDeltas",)) == quieted
    assert _quiet(source, ("_sendTraceDeltas", "_sendLayoutDelta")) == source   # one missing: nothing changed
    assert _quiet(source + source, ("_sendTraceDeltas",)) == source + source    # defined twice: nothing changed


def test_the_bundle_travels_once_per_kernel_and_every_figure_waits_for_it() -> None:
    """A figure's own module is a few dozen lines that import the loader's module (the slot, the way past anywidget's
    gate, the resync, the loading note, the live region: 5.5 kB against the 4.9 MB bundle), and its ``initialize``
    awaits nothing; one loader per kernel, made before the first figure (so its model reaches the browser first) and
    made again if it was closed."""
    from dpviz.widgets import figure_widget as fw

    first = ExplorerFigure()
    loader = fw.preload_plotly()
    initialize = first._esm.split("initialize(ctx) {")[1].split("async render(ctx) {")[0]
    assert len(first._esm) < 6000 and "import(url)" in first._esm and initialize and "await" not in initialize
    assert len(loader._source) > 1_000_000 and "initialize" in loader._esm and "createObjectURL" in loader._esm
    assert ExplorerFigure()._esm == first._esm and fw.preload_plotly() is loader   # one loader, however many figures
    # both sides name the same page-wide slot, one per bundle text
    slot = f'Symbol.for("{fw._slot()}")'
    assert slot in first._esm and slot in loader._esm
    loader.close()
    again = ExplorerFigure()
    assert fw.preload_plotly() is not loader and fw.preload_plotly().comm is not None and again._esm == first._esm


def test_a_page_that_started_late_gets_the_whole_current_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    """The browser's plotly model may start after the kernel changed the figure (a slow machine compiles the
    bundle for tens of seconds); it then asks for the figure whole, and gets the traces and layout as they are now,
    not as they were when the figure was made."""
    fig = ExplorerFigure(go.Figure(data=[go.Scatter(y=[1.0, 2.0])], layout={"title": {"text": "epsilon = 1"}}))
    sent: list[object] = []
    monkeypatch.setattr(fig, "send_state", lambda key=None: sent.append(sorted(key)))
    monkeypatch.setattr(fig, "send", lambda content, buffers=None: sent.append(content))
    with fig.batch_update():
        fig.data[0].y = (5.0, 6.0, 7.0)
        fig.layout.title.text = "epsilon = 0.5"
    assert fig._widget_data[0]["y"] != (5.0, 6.0, 7.0)      # plotly keeps the state it first displayed
    fig._on_page_message(fig, {"dpviz": "resync"}, [])
    counters = ["_last_layout_edit_id", "_last_trace_edit_id"]
    # the state, the edit counters plotly's model numbers its answers by, then the answer
    assert sent[-3:] == [["_widget_data", "_widget_layout"], counters, {"dpviz": "resynced"}]
    assert list(fig._widget_data[0]["y"]) == [5.0, 6.0, 7.0]
    assert fig._widget_layout["title"]["text"] == "epsilon = 0.5"
    count = len(sent)
    fig._on_page_message(fig, {"something": "else"}, [])    # other messages are not ours
    assert len(sent) == count


def test_a_page_that_may_have_lost_updates_gets_the_figure_only_if_its_counters_are_behind(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """anywidget drops the messages of a figure whose module started late; the page then sends the edit counters
    its model holds.  Behind the kernel's: the figure whole and "resynced"; equal: only "current"."""
    fig = ExplorerFigure(go.Figure(data=[go.Scatter(y=[1.0, 2.0])], layout={"title": {"text": "epsilon = 1"}}))
    sent: list[object] = []
    monkeypatch.setattr(fig, "send_state", lambda key=None: sent.append(sorted(key)))
    monkeypatch.setattr(fig, "send", lambda content, buffers=None: sent.append(content))
    page_counters = {"layout_edit_id": fig._last_layout_edit_id, "trace_edit_id": fig._last_trace_edit_id}
    fig._on_page_message(fig, {"dpviz": "check", **page_counters}, [])
    assert sent == [{"dpviz": "current"}]
    with fig.batch_update():                                  # an update the page never got
        fig.data[0].y = (5.0, 6.0)
        fig.layout.title.text = "epsilon = 0.5"
    assert (fig._last_layout_edit_id, fig._last_trace_edit_id) != tuple(page_counters.values())
    sent.clear()
    fig._on_page_message(fig, {"dpviz": "check", **page_counters}, [])
    assert sent[0] == ["_widget_data", "_widget_layout"] and sent[-1] == {"dpviz": "resynced"}
    assert fig._widget_layout["title"]["text"] == "epsilon = 0.5" and list(fig._widget_data[0]["y"]) == [5.0, 6.0]
    sent.clear()
    fig._on_page_message(fig, {"dpviz": "check"}, [])         # a page that sends no counters is behind
    assert sent[-1] == {"dpviz": "resynced"}


def test_the_loader_is_made_before_the_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpviz.widgets import figure_widget as fw

    opened: list[str] = []
    monkeypatch.setattr(fw, "_loader", None)
    original = fw.PlotlyLoader.__init__

    def record(self: object, *args: object, **kwargs: object) -> None:
        opened.append("loader")
        original(self, *args, **kwargs)

    monkeypatch.setattr(fw.PlotlyLoader, "__init__", record)
    monkeypatch.setattr(go.FigureWidget, "__init__", lambda self, *a, **k: opened.append("figure"))
    ExplorerFigure()
    ExplorerFigure()
    assert opened == ["loader", "figure", "figure"]


def _two_panel() -> go.Figure:
    return go.Figure(data=[go.Scatter(y=np.array([1.0, 2.0]), ), go.Bar(y=np.array([3.0, 4.0]), xaxis="x2")],
                     layout={"annotations": [{"text": "a"}, {"text": "b"}], "xaxis2": {"domain": [0.5, 1]}})


def test_updates_leave_the_figure_and_send_the_message_plotly_would() -> None:
    """ExplorerFigure's restyle and relayout (each path checked once per class) against plotly's own, on the same
    sequence of updates: the same figure afterwards and the same messages to the browser."""
    from plotly.basedatatypes import Undefined

    updates = [
        ({"y": [np.array([5.0, 6.0]), Undefined], "marker.color": ["red", "blue"]}, {"title.text": "t"}, [0, 1]),
        ({"y": [np.array([5.0, 6.0])], "error_y.array": [np.array([0.1, 0.2])]},
         {"annotations[1].text": "c", "xaxis2.range": [0, 3]}, [1]),
        ({"y": [np.array([5.0, 6.0])]}, {"annotations[0].text": "a"}, [0]),                          # nothing changed
        ({"marker.color": "green"}, {"yaxis.title.text": "count", "title.text": None}, [0, 1]),      # one for all
    ]
    figures: list[str] = []
    messages: list[list[str]] = []
    for cls in (go.FigureWidget, ExplorerFigure):
        fig = cls(_two_panel())
        sent: list[str] = []
        fig._send_update_msg = lambda sent=sent, **kw: sent.append(repr(kw))
        for restyle, relayout, traces in updates:
            fig.plotly_update(restyle_data=restyle, relayout_data=relayout, trace_indexes=traces)
        state = fig.to_plotly_json()
        figures.append(repr(([{k: v for k, v in t.items() if k != "uid"} for t in state["data"]], state["layout"])))
        messages.append(sent)
    assert figures[0] == figures[1]
    assert messages[0] == messages[1] and len(messages[1]) == 3   # the third update changed nothing: no message


def test_a_bad_path_or_trace_index_is_refused_every_time() -> None:
    from dpviz.widgets import figure_widget as fw

    fw._ACCEPTED.clear()   # what earlier tests taught the cache must not matter here
    fig = ExplorerFigure(_two_panel())
    fig.plotly_update(restyle_data={"marker.color": ["red"]}, trace_indexes=[0])   # accepted, and remembered
    for _ in range(2):
        with pytest.raises(ValueError, match="'marker.colour'"):
            fig.plotly_update(restyle_data={"marker.colour": ["red"]}, trace_indexes=[0])
        with pytest.raises(ValueError, match="'xaxis.rnage'"):
            fig.plotly_relayout({"xaxis.rnage": [0, 1]})
        with pytest.raises(ValueError, match="trace index 5"):
            fig.plotly_update(restyle_data={"y": [np.ones(2)]}, trace_indexes=[5])
    # a path through an array element is checked against this figure's array each time
    with pytest.raises(ValueError, match=r"'annotations\[7\].text'"):
        fig.plotly_relayout({"annotations[7].text": "x"})
    fig.plotly_relayout({"annotations[1].text": "z"})
    assert [a.text for a in fig.layout.annotations] == ["a", "z"]


def test_a_subplot_accepted_on_one_figure_is_still_refused_on_a_figure_without_it() -> None:
    """A layout's subplot ids (xaxis3, legend2) and its template's are properties of that figure, not of the
    Layout class: plotly refuses xaxis3.range on a figure without xaxis3, and so must ExplorerFigure after it
    accepted the path on another figure."""
    cases = (("xaxis3.range", [0, 1], {"xaxis3": {"domain": [0, 1]}}), ("legend2.x", 0.5, {"legend2": {"y": 0.5}}),
             ("template.layout.xaxis2.color", "red", {"template": {"layout": {"xaxis2": {"color": "blue"}}}}))
    for path, value, layout in cases:
        for cls in (go.FigureWidget, ExplorerFigure):
            has = cls(go.Figure(layout=layout))
            has.plotly_relayout({path: value})
            lacks = cls(go.Figure())
            with pytest.raises(ValueError, match="(?i)invalid property path"):
                lacks.plotly_relayout({path: value})


def _wire(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """Capture every ``update`` comm message a widget sends: its state, with the binary buffers (numpy arrays)
    as bytes at their paths."""
    import ipywidgets

    sent: list[dict] = []
    original = ipywidgets.Widget._send

    def capture(self, msg, buffers=None):
        if msg.get("method") == "update":
            blobs = {repr(path): bytes(b) for path, b in zip(msg.get("buffer_paths", []), buffers or [], strict=True)}
            sent.append({"state": dict(msg["state"]), "buffers": blobs})
        return original(self, msg, buffers)
    monkeypatch.setattr(ipywidgets.Widget, "_send", capture)
    return sent


def test_an_update_reaches_the_browser_in_one_message_with_the_state_plotly_sends(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On the wire: plotly's FigureWidget sends each edit counter, the update and its clearing as four comm
    messages; ExplorerFigure sends the counters with the update (one message) and then the clearing.  The states
    sent (array values included), merged in order, and the figures' edit bookkeeping are the same for both."""
    sent = _wire(monkeypatch)
    merged: list[dict] = []
    per_update: list[list[list[str]]] = []
    bookkeeping = []
    for cls in (go.FigureWidget, ExplorerFigure):
        fig = cls(_two_panel())
        state: dict = {}
        keys: list[list[str]] = []
        for k in range(2):
            sent.clear()
            fig.plotly_update(restyle_data={"y": [np.array([5.0, 6.0 + k])]},
                              relayout_data={"title.text": f"t{k}"}, trace_indexes=[0])
            keys.append([sorted(m["state"]) for m in sent])
            for m in sent:
                if m["state"].get("_py2js_update") is not None:
                    state["update"] = (repr(m["state"]["_py2js_update"]), m["buffers"])
                state.update({key: v for key, v in m["state"].items() if key != "_py2js_update"})
            state.setdefault("updates", []).append(state.get("update"))
        merged.append(state)
        per_update.append(keys)
        bookkeeping.append((fig._last_trace_edit_id, fig._last_layout_edit_id, fig._trace_edit_in_process,
                            fig._layout_edit_in_process))
    assert merged[0] == merged[1] and merged[1]["update"][1]   # the arrays travelled, as bytes, the same
    assert bookkeeping[0] == bookkeeping[1] == (2, 2, True, True)
    assert per_update[0][1] == [["_last_trace_edit_id"], ["_last_layout_edit_id"], ["_py2js_update"],
                                ["_py2js_update"]]
    assert per_update[1][1] == [["_last_layout_edit_id", "_last_trace_edit_id", "_py2js_update"], ["_py2js_update"]]


def test_an_update_inside_an_outer_hold_sync_still_reaches_the_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under an outer ``hold_sync`` plotly's FigureWidget sends only the cleared update at the end of the hold
    (the update is lost); ExplorerFigure sends the update at once."""
    sent = _wire(monkeypatch)
    updates = []
    for cls in (go.FigureWidget, ExplorerFigure):
        fig = cls(_two_panel())
        sent.clear()
        with fig.hold_sync():
            fig.plotly_update(restyle_data={"y": [np.array([7.0, 8.0])]}, relayout_data={}, trace_indexes=[0])
        updates.append([m["state"]["_py2js_update"] is not None for m in sent if "_py2js_update" in m["state"]])
    assert updates[0] == [False]             # plotly: lost
    assert updates[1] == [True, False]       # sent, then cleared
