"""A classroom student driven through the kernel protocol over the hub (``benchmarks/classroom.py``, the default).

The student asks the hub for its server (the REST API a login triggers), starts a kernel through that server
(``/user/<name>/api/kernels``, with a token the hub issued for that user), opens the kernel's websocket through the
proxy, runs the course-app page's code cells (what Voila runs for ``app/<page>.ipynb``), holds every widget model the
kernel opens as a front end does, and moves the explorer's main slider by sending the ``update`` a browser sends.
What a browser adds on top -- parsing the models in JavaScript, plotly.js drawing -- is measured by
``make bench-browser``; 30 headless browsers on 2 cores would measure the browsers, not the server.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import uuid
from pathlib import Path
from typing import Any

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from benchmarks.widget_protocol import (
    V1_PROTOCOL,
    WidgetModels,
    comm_update,
    decode_frame,
    decode_v1,
    encode_v1,
    execute_request,
    message,
)

__all__ = ["page_code", "kernel_student"]

#: Seconds between two polls of the hub for a spawning server (the login -> server time's resolution).
POLL_S = 0.25
#: Seconds a student looks at the figure before the next slider move (as the browser students do).
THINK_S = 1.0


def page_code(page: Path) -> list[str]:
    """The code cells of a course-app page, in order (what Voila executes)."""
    cells = json.loads(page.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


async def _fetch(url: str, token: str, method: str = "GET", body: Any = None) -> Any:
    request = HTTPRequest(url, method=method, headers={"Authorization": f"token {token}"},
                          body=None if body is None and method == "GET" else json.dumps(body or {}),
                          request_timeout=600, connect_timeout=600)
    response = await AsyncHTTPClient().fetch(request)
    return json.loads(response.body) if response.body else None


class _Kernel:
    """One websocket to a kernel: send messages, read them until a condition holds, keep the widget models."""

    def __init__(self, ws: WebSocketClientConnection, session: str) -> None:
        self.ws, self.session = ws, session
        self.v1 = ws.selected_subprotocol == V1_PROTOCOL
        self.models = WidgetModels()
        self.replies: dict[str, dict[str, Any]] = {}   # shell replies by parent msg_id
        self.idle: set[str] = set()                     # parent msg_ids whose iopub status went idle
        self.figure_at = math.nan                       # perf_counter when a figure model first arrived
        self.redraw_at: list[float] = []                # perf_counter of each figure redraw

    def send(self, msg: dict[str, Any]) -> str:
        self.ws.write_message(encode_v1(msg) if self.v1 else json.dumps(msg), binary=self.v1)
        return str(msg["header"]["msg_id"])

    async def read_until(self, done: Any) -> None:
        """Read and apply messages until ``done()`` is true (the caller bounds the wait)."""
        while not done():
            frame = await self.ws.read_message()
            if frame is None:
                raise ConnectionError("the kernel's websocket closed")
            now = time.perf_counter()
            msg = decode_v1(frame) if self.v1 and isinstance(frame, bytes) else decode_frame(frame)
            parent = msg.get("parent_header", {}).get("msg_id", "")
            kind = msg.get("header", {}).get("msg_type", "")
            if msg.get("channel") == "shell":
                self.replies[parent] = msg
            elif kind == "status" and msg["content"].get("execution_state") == "idle":
                self.idle.add(parent)
            figure = self.models.figure()
            redraws = self.models.redraws.get(figure, 0) if figure else 0
            changed = self.models.receive(msg)
            if changed is not None and math.isnan(self.figure_at) and self.models.figure() is not None:
                self.figure_at = now
            if figure is not None and self.models.redraws.get(figure, 0) > redraws:
                self.redraw_at.append(now)

    async def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send a shell request; wait for its reply (a ``comm_msg`` has none) and for the kernel to go idle on
        it; return the reply (``{}`` for a ``comm_msg``)."""
        msg_id = self.send(msg)
        replied = msg["header"]["msg_type"] == "comm_msg"
        await self.read_until(lambda: (replied or msg_id in self.replies) and msg_id in self.idle)
        return self.replies.get(msg_id, {})

    def shown_error(self) -> str:
        """The explorer's error message, if it shows one (its ``dpviz-message`` HTML widget)."""
        comm = self.models.find(dom_class="dpviz-message")
        text = str(self.models.states[comm].get("value", "")) if comm else ""
        return text if "dpviz-error" in text else ""


async def _login(base: str, api_token: str, name: str) -> str:
    """Create the user, spawn its server, wait until it is ready; return a token for that user."""
    hub = f"{base}/hub/api/users/{name}"
    try:
        await _fetch(hub, api_token, "POST")
    except HTTPClientError as exc:
        if exc.code != 409:   # 409: the user exists already
            raise
    await _fetch(f"{hub}/server", api_token, "POST")
    while True:
        user = await _fetch(hub, api_token)
        server = user.get("servers", {}).get("", {})
        if server.get("ready"):
            break
        if not user.get("pending") and not server:
            raise RuntimeError(f"the hub stopped spawning {name}'s server")
        await asyncio.sleep(POLL_S)
    return str((await _fetch(f"{hub}/tokens", api_token, "POST", {"note": "classroom benchmark"}))["token"])


def _next_value(state: dict[str, Any], direction: int) -> tuple[float, int]:
    """The value one step (the arrow key's step) from the slider's current one, turning at the ends."""
    log = state.get("_model_name") == "FloatLogSliderModel"
    value = math.log(state["value"], state["base"]) if log else state["value"]
    if not state["min"] <= value + direction * state["step"] <= state["max"]:
        direction = -direction
    value += direction * state["step"]
    return (state["base"] ** value if log else value), direction


async def kernel_student(base: str, api_token: str, student: Any, cells: list[str], moves: int) -> None:
    """Run one student (``student`` is a ``benchmarks.classroom.Student``, filled in place); never raises."""
    ws = None
    try:
        t0 = time.perf_counter()
        student.stage = "login"
        token = await _login(base, api_token, student.name)
        student.login_s = time.perf_counter() - t0
        server = f"{base}/user/{student.name}"
        t1 = time.perf_counter()
        student.stage = "first figure"
        kernel_id = (await _fetch(f"{server}/api/kernels", token, "POST", {"name": "python3"}))["id"]
        session = uuid.uuid4().hex
        url = f"{server.replace('http', 'ws', 1)}/api/kernels/{kernel_id}/channels?session_id={session}"
        ws = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {token}"},
                                                 connect_timeout=600, request_timeout=600),
                                     max_message_size=256 * 2**20, subprotocols=[V1_PROTOCOL])
        kernel = _Kernel(ws, session)
        if not kernel.v1:
            raise RuntimeError(f"the server refused the {V1_PROTOCOL} websocket protocol the browsers use")
        await kernel.request(message("kernel_info_request", {}, session))
        for code in cells:
            reply = await kernel.request(execute_request(code, session))
            if reply["content"].get("status") != "ok":
                raise RuntimeError(f"page cell failed: {reply['content'].get('ename')}: "
                                   f"{reply['content'].get('evalue')}")
        if math.isnan(kernel.figure_at):
            raise RuntimeError("the page ran but opened no plotly figure with data")
        student.first_figure_s = kernel.figure_at - t1
        slider, figure = kernel.models.main_control(), kernel.models.figure()
        if slider is None or figure is None:
            raise RuntimeError("no control carries the dpviz-main-control class")
        direction = -1
        for k in range(moves):
            student.stage = f"move {k + 1}"
            await asyncio.sleep(THINK_S)
            value, direction = _next_value(kernel.models.states[slider], direction)
            before = len(kernel.redraw_at)
            t2 = time.perf_counter()
            await kernel.request(comm_update(slider, {"value": value}, session))
            if len(kernel.redraw_at) != before + 1 or not kernel.models.redraw_changes_data(figure):
                raise RuntimeError(f"slider to {value:.6g}: {len(kernel.redraw_at) - before} figure redraws "
                                   f"(one with new data expected)")
            if error := kernel.shown_error():
                raise RuntimeError(f"explorer error after slider to {value:.6g}: {error}")
            student.moves_ms.append((kernel.redraw_at[-1] - t2) * 1e3)
        student.kernel_id = kernel_id
        student.figure_comm = figure
    except Exception as exc:  # noqa: BLE001 - a failed student is reported, not raised
        student.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        student.close = ws.close if ws is not None else None
