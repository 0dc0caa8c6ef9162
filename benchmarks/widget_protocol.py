"""A front end's side of the Jupyter kernel and widget protocols, as pure functions (``benchmarks/classroom.py``).

A classroom student driven "through the kernel protocol" talks to its kernel over the single-user server's
websocket (``/api/kernels/<id>/channels``) exactly as JupyterLab 4 or Voila 0.5's page does -- in the
``v1.kernel.websocket.jupyter.org`` wire format they negotiate, in which the server passes the kernel's frames
through without parsing them (the older JSON format is decoded too): it executes the page's code cells, receives
every widget model the kernel opens (ipywidgets' message protocol 2.1: a ``comm_open`` with target
``jupyter.widget`` carrying ``state`` and ``buffer_paths``), and moves a slider by sending the ``update`` a browser
sends.  Nothing here does I/O.

References: the Jupyter messaging spec (https://jupyter-client.readthedocs.io/en/stable/messaging.html) and
ipywidgets' ``packages/schema/messages.md`` (protocol 2.1.0).
"""

from __future__ import annotations

import json
import struct
import uuid
from datetime import datetime, timezone
from typing import Any

__all__ = ["message", "execute_request", "comm_update", "encode_v1", "decode_v1", "decode_frame", "put_buffers",
           "WidgetModels", "MAIN_CONTROL_CLASS", "V1_PROTOCOL"]

#: The websocket subprotocol of JupyterLab 4 / Voila 0.5 (jupyter_server passes its frames through unparsed).
V1_PROTOCOL = "v1.kernel.websocket.jupyter.org"

#: The CSS class an explorer puts on the control a student moves first (``dpviz.widgets.base``).
MAIN_CONTROL_CLASS = "dpviz-main-control"
#: The plotly FigureWidget's messages to its view: a state change of one of these carries a redraw.
PY2JS = ("_py2js_update", "_py2js_restyle", "_py2js_relayout", "_py2js_addTraces", "_py2js_deleteTraces",
         "_py2js_moveTraces", "_py2js_removeLayoutProps", "_py2js_removeTraceProps", "_py2js_animate")


def message(msg_type: str, content: dict[str, Any], session: str, channel: str = "shell",
            username: str = "student") -> dict[str, Any]:
    """A kernel message as the websocket's JSON format carries it (header, content, channel)."""
    header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session, "username": username,
              "date": datetime.now(timezone.utc).isoformat(), "version": "5.3"}
    return {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": channel,
            "buffers": []}


def execute_request(code: str, session: str) -> dict[str, Any]:
    """An ``execute_request`` of ``code`` (silent=False, as a page runs its cells)."""
    return message("execute_request", {"code": code, "silent": False, "store_history": False,
                                       "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
                   session)


def comm_update(comm_id: str, state: dict[str, Any], session: str) -> dict[str, Any]:
    """The ``comm_msg`` a browser sends when the student moves a control: ``{"method": "update", ...}``."""
    return message("comm_msg", {"comm_id": comm_id, "data": {"method": "update", "state": state,
                                                              "buffer_paths": []}}, session)


def encode_v1(msg: dict[str, Any]) -> bytes:
    """A message as a v1 binary frame: a little-endian uint64 count ``n`` of offsets, the ``n`` uint64 offsets,
    then the channel name and the JSON header, parent header, metadata, content, and the binary buffers."""
    parts = [json.dumps(msg[k]).encode("utf8") for k in ("header", "parent_header", "metadata", "content")]
    parts += [bytes(b) for b in msg.get("buffers", [])]
    channel = msg["channel"].encode("utf8")
    offsets = [8 * (len(parts) + 3)]
    for part in (channel, *parts):
        offsets.append(offsets[-1] + len(part))
    head = struct.pack(f"<{len(offsets) + 1}Q", len(offsets), *offsets)
    return b"".join([head, channel, *parts])


def decode_v1(frame: bytes) -> dict[str, Any]:
    """A v1 binary frame (:func:`encode_v1`) -> the message, its channel in ``msg["channel"]``."""
    if len(frame) < 8:
        raise ValueError(f"v1 frame of {len(frame)} bytes: too short for its offset count")
    n = struct.unpack_from("<Q", frame, 0)[0]
    if n < 6 or 8 * (n + 1) > len(frame):
        raise ValueError(f"v1 frame announces {n} offsets but holds {len(frame)} bytes (at least 6 needed)")
    offsets = list(struct.unpack_from(f"<{n}Q", frame, 8))
    if offsets != sorted(offsets) or offsets[0] != 8 * (n + 1) or offsets[-1] > len(frame):
        raise ValueError(f"v1 frame offsets {offsets} do not follow its header")
    parts = [bytes(frame[offsets[k]:offsets[k + 1]]) for k in range(n - 1)]
    msg: dict[str, Any] = {"channel": parts[0].decode("utf8")}
    for key, part in zip(("header", "parent_header", "metadata", "content"), parts[1:5], strict=True):
        msg[key] = json.loads(part.decode("utf8"))
    msg["buffers"] = parts[5:]
    return msg


def decode_frame(frame: str | bytes) -> dict[str, Any]:
    """One websocket frame of the legacy (no subprotocol) format -> the message, its buffers in ``msg["buffers"]``.

    A text frame is the message as JSON; a binary frame is jupyter_server's layout: a big-endian uint32 count
    ``n``, ``n`` uint32 offsets, then the JSON message at the first offset and the buffers at the others.
    """
    if isinstance(frame, str):
        msg = json.loads(frame)
        msg.setdefault("buffers", [])
        return msg
    if len(frame) < 4:
        raise ValueError(f"binary frame of {len(frame)} bytes: too short for its buffer count")
    n = struct.unpack_from("!I", frame, 0)[0]
    if n < 1 or 4 * (n + 1) > len(frame):
        raise ValueError(f"binary frame announces {n} parts but holds {len(frame)} bytes")
    offsets = list(struct.unpack_from(f"!{n}I", frame, 4)) + [len(frame)]
    if offsets != sorted(offsets) or offsets[0] < 4 * (n + 1):
        raise ValueError(f"binary frame offsets {offsets[:-1]} are not increasing after the header")
    parts = [frame[offsets[k]:offsets[k + 1]] for k in range(n)]
    msg = json.loads(bytes(parts[0]).decode("utf8"))
    msg["buffers"] = [bytes(p) for p in parts[1:]]
    return msg


def put_buffers(state: dict[str, Any], buffer_paths: list[list[Any]], buffers: list[bytes]) -> dict[str, Any]:
    """Put each binary buffer into ``state`` at its path (ipywidgets' ``put_buffers``), in place; returns state."""
    if len(buffer_paths) != len(buffers):
        raise ValueError(f"{len(buffer_paths)} buffer paths for {len(buffers)} buffers")
    for path, buf in zip(buffer_paths, buffers, strict=True):
        if not path:
            raise ValueError("a buffer path must not be empty")
        node: Any = state
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = buf
    return state


class WidgetModels:
    """The widget models a front end holds, built from the kernel's ``jupyter.widget`` comm messages.

    :meth:`receive` takes every iopub message; it returns the comm id of the model a message changed (opened or
    updated), else None.
    """

    def __init__(self) -> None:
        self.states: dict[str, dict[str, Any]] = {}
        #: per comm id, the ``_py2js_*`` redraw messages received (not the ``None`` that follows each).
        self.redraws: dict[str, int] = {}
        #: per comm id, the last redraw's message (``{"_py2js_update": {"style_data": ..., ...}}``).
        self.last_redraw: dict[str, dict[str, Any]] = {}

    def receive(self, msg: dict[str, Any]) -> str | None:
        """Apply one iopub message; the id of the model it opened or changed, else None."""
        kind = msg.get("header", {}).get("msg_type") or msg.get("msg_type")
        content = msg.get("content", {})
        if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
            data = content.get("data", {})
            state = put_buffers(dict(data.get("state", {})), data.get("buffer_paths", []), msg.get("buffers", []))
            self.states[content["comm_id"]] = state
            return content["comm_id"]
        if kind == "comm_msg" and content.get("comm_id") in self.states:
            data = content.get("data", {})
            if data.get("method") not in ("update", "echo_update"):
                return None
            state = put_buffers(dict(data.get("state", {})), data.get("buffer_paths", []), msg.get("buffers", []))
            comm_id = content["comm_id"]
            if any(state.get(k) for k in PY2JS):
                self.redraws[comm_id] = self.redraws.get(comm_id, 0) + 1
                self.last_redraw[comm_id] = {k: state[k] for k in PY2JS if state.get(k)}
            self.states[comm_id].update(state)
            return comm_id
        return None

    def redraw_changes_data(self, comm_id: str) -> bool:
        """Whether the last redraw of figure ``comm_id`` carried new trace or layout values (not an empty edit)."""
        keys = ("style_data", "restyle_data", "layout_data", "relayout_data", "data")
        return any(payload.get(k) for payload in self.last_redraw.get(comm_id, {}).values() for k in keys)

    def find(self, *, dom_class: str | None = None, has: str | None = None) -> str | None:
        """The comm id of the first model whose ``_dom_classes`` holds ``dom_class`` / whose state has key ``has``."""
        for comm_id, state in self.states.items():
            if dom_class is not None and dom_class not in state.get("_dom_classes", ()):
                continue
            if has is not None and not state.get(has):
                continue
            return comm_id
        return None

    def main_control(self) -> str | None:
        """The comm id of the explorer's main control (its ``dpviz-main-control`` CSS class)."""
        return self.find(dom_class=MAIN_CONTROL_CLASS)

    def figure(self) -> str | None:
        """The comm id of the plotly FigureWidget drawn with data (its ``_widget_data`` holds traces)."""
        return self.find(has="_widget_data")
