"""The classroom driver's front-end side of the kernel/widget protocols (benchmarks/widget_protocol.py), checked
against the other end: jupyter_server's own binary framing and ipywidgets' own buffer splitting, and a real
explorer's widget messages captured from a kernel-less comm."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from ipywidgets.widgets.widget import _remove_buffers
from jupyter_server.services.kernels.connection.base import (
    deserialize_msg_from_ws_v1,
    serialize_binary_message,
    serialize_msg_to_ws_v1,
)

from benchmarks.widget_protocol import WidgetModels, comm_update, decode_frame, decode_v1, encode_v1, put_buffers


def _msg(msg_type: str, content: dict, buffers: list | None = None) -> dict:
    return {"header": {"msg_id": "1", "msg_type": msg_type}, "parent_header": {}, "metadata": {},
            "content": content, "channel": "iopub", "buffers": buffers or []}


def test_binary_frame_is_jupyter_servers() -> None:
    bufs = [np.arange(5, dtype=float).tobytes(), b"", b"\x00\x01\x02"]
    msg = _msg("comm_msg", {"comm_id": "c", "data": {"x": [1, 2]}}, bufs)
    frame = serialize_binary_message(copy.deepcopy(msg))
    got = decode_frame(frame)
    assert got["buffers"] == bufs
    assert got["content"] == msg["content"] and got["header"] == msg["header"]


def test_v1_frames_are_jupyter_servers_both_ways() -> None:
    """The server packs the kernel's zmq parts into a v1 frame; we decode it. We encode; the server splits it."""
    bufs = [np.arange(4, dtype=np.float32).tobytes(), b"xyz"]
    msg = _msg("comm_msg", {"comm_id": "c", "data": {"method": "update", "state": {"value": 0.5}}}, bufs)
    zmq_parts = [json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata", "content")] + bufs
    got = decode_v1(serialize_msg_to_ws_v1(zmq_parts, "iopub"))
    assert got["channel"] == "iopub" and got["buffers"] == bufs
    assert {k: got[k] for k in ("header", "parent_header", "metadata", "content")} == \
        {k: msg[k] for k in ("header", "parent_header", "metadata", "content")}
    channel, parts = deserialize_msg_from_ws_v1(encode_v1({**msg, "channel": "shell"}))
    assert channel == "shell" and parts == zmq_parts
    with pytest.raises(ValueError, match="too short"):
        decode_v1(b"\x01")
    with pytest.raises(ValueError, match="announces"):
        decode_v1((2).to_bytes(8, "little") + b"\x00" * 16)


def test_text_frame_and_bad_frames() -> None:
    assert decode_frame('{"content": {}, "header": {}}')["buffers"] == []
    with pytest.raises(ValueError, match="too short"):
        decode_frame(b"\x00")
    with pytest.raises(ValueError, match="announces"):
        decode_frame(b"\x00\x00\x00\x09abcd")


def test_put_buffers_inverts_ipywidgets_remove_buffers() -> None:
    a, b = np.arange(3.0), np.ones(2, dtype=np.float32)
    state = {"data": [{"x": {"buffer": memoryview(a)}}, {"y": {"buffer": memoryview(b)}}], "n": 1}
    stripped, paths, buffers = _remove_buffers(state)
    back = put_buffers(copy.deepcopy(stripped), paths, [bytes(x) for x in buffers])
    assert back["data"][0]["x"]["buffer"] == a.tobytes() and back["data"][1]["y"]["buffer"] == b.tobytes()
    assert back["n"] == 1
    with pytest.raises(ValueError, match="buffer paths"):
        put_buffers({}, [["a"]], [])


def test_an_explorers_messages_give_its_slider_and_figure() -> None:
    """Capture what a LaplaceExplorer sends to its front end (ipywidgets' comm layer, no kernel), feed it to
    WidgetModels, move the slider as a browser does, and see the figure's redraw arrive."""
    import ipywidgets as widgets

    sent: list[dict] = []

    class Comm:   # what ipywidgets needs of a comm: it records what a kernel would send
        def __init__(self, target_name: str = "", data: dict | None = None, metadata: dict | None = None,
                     buffers: list | None = None, comm_id: str | None = None, **kwargs: object) -> None:
            self.comm_id = comm_id or f"comm{len(sent)}"
            self.kernel = object()
            sent.append(_msg("comm_open", {"comm_id": self.comm_id, "target_name": target_name, "data": data},
                             [bytes(b) for b in buffers or []]))

        def send(self, data: dict | None = None, metadata: dict | None = None, buffers: list | None = None) -> None:
            sent.append(_msg("comm_msg", {"comm_id": self.comm_id, "data": data}, [bytes(b) for b in buffers or []]))

        def on_msg(self, callback: object) -> None:
            self.handler = callback

        def close(self, *args: object, **kwargs: object) -> None:
            pass

    old = widgets.widget.comm.create_comm
    widgets.widget.comm.create_comm = Comm
    try:
        from dpviz.widgets import LaplaceExplorer

        explorer = LaplaceExplorer(seed=0)
        models = WidgetModels()
        for m in sent:
            models.receive(m)
        slider, figure = models.main_control(), models.figure()
        assert slider is not None and figure is not None
        assert models.states[slider]["_model_name"] == "FloatLogSliderModel"
        before = models.redraws.get(figure, 0)
        widget = explorer.controls["epsilon"]
        assert widget.model_id == slider
        update = comm_update(slider, {"value": 0.5}, "session")
        n = len(sent)
        widget._handle_msg({"content": update["content"], "buffers": []})   # as ipykernel delivers it
        for m in sent[n:]:
            models.receive(m)
        assert explorer.controls["epsilon"].value == 0.5 and explorer.result.epsilon == 0.5
        assert models.redraws[figure] == before + 1 and models.redraw_changes_data(figure)
    finally:
        widgets.widget.comm.create_comm = old
        for w in list(widgets.widget._instances.values()):
            w.close()
