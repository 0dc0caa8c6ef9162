"""A page that is left frees its kernel: visits do not pile kernels up on the course server.

Voila posts ``/voila/api/shutdown/<kernel id>`` when a page unloads, with the ``_xsrf`` cookie's value; Voila never
set that cookie on its streamed pages, so the server refused every request (403 '_xsrf' argument missing) and kept
each visitor's kernel: 34 kernels, 3.5 GB after about 20 visits.  Here a page is opened and left several times;
once the server is quiet again, it runs no more kernels than before (its preheated pool refilled, the visitors'
kernels gone).

A shutdown request that never arrives (a laptop put to sleep, a killed browser) is covered by culling: a kernel
nobody is connected to is shut down after ``cull_idle_timeout`` idle seconds, the pool's waiting kernels excepted
(app/voila_pool.py).  The second test blocks the request and checks the kernels go all the same.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from .conftest import serve_app
from .explorer_state import wait_until_idle

VISITS = 4


def _kernels_of(server_pid: int) -> set[int]:
    """Process ids of the ipykernel processes the server started (its children, read from /proc)."""
    kernels = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (proc / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == server_pid and b"ipykernel" in cmdline:
            kernels.add(int(proc.name))
    return kernels


def _settled_count(server_pid: int, timeout: float = 120.0) -> int:
    """The server's kernel count once it has not changed for 5 s (pool refills and shutdowns finished)."""
    deadline = time.monotonic() + timeout
    last, since = len(_kernels_of(server_pid)), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = len(_kernels_of(server_pid))
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= 5.0:
            break
    return last


def test_leaving_a_page_shuts_its_kernel_down(browser, voila_server):
    base, token, _, server_pid = voila_server
    before = _settled_count(server_pid)
    for _ in range(VISITS):
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/voila/render/privacy_loss.ipynb?token={token}", timeout=180_000)
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
        wait_until_idle(page)
        assert "_xsrf=" in page.evaluate("() => document.cookie"), "the page has no _xsrf cookie to post"
        page.goto("about:blank")              # as a student leaving the page: its unload handlers run
        page.close()
    after = _settled_count(server_pid)
    assert after <= before, (f"{VISITS} visits left {after - before} more kernels running ({before} before, "
                             f"{after} after): leaving a page did not shut its kernel down")


def _kernel_ids_running(server_pid: int) -> set[str]:
    """Ids of the kernels the server runs, read from their command lines (``... -f .../kernel-<id>.json``)."""
    ids = set()
    for pid in _kernels_of(server_pid):
        try:
            cmdline = (Path("/proc") / str(pid) / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        match = re.search(r"kernel-([0-9a-f-]{36})\.json", cmdline)
        if match:
            ids.add(match.group(1))
    return ids


def test_kernels_of_pages_that_never_said_goodbye_are_culled(browser, tmp_path):
    # culling every 2 s after 10 idle s: the app's voila.json says 300 s, the mechanism is the same; the kernels
    # followed are the visited pages' own (the pool fills one kernel at a time meanwhile: counts would mislead)
    options = ("--StaggeredPoolKernelManager.cull_idle_timeout=10", "--StaggeredPoolKernelManager.cull_interval=2")
    with serve_app(tmp_path, *options) as (base, token, _, server_pid):
        visited, pages = [], []
        for _ in range(2):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.route("**/voila/api/shutdown/**", lambda route: route.abort())   # the goodbye is lost
            page.goto(f"{base}/voila/render/privacy_loss.ipynb?token={token}", timeout=180_000)
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
            wait_until_idle(page)
            kernel_id = page.evaluate("() => window.jupyterapp.widgetManager.kernel.id")
            assert kernel_id in _kernel_ids_running(server_pid)
            visited.append(kernel_id)
            pages.append(page)
        time.sleep(14)                          # longer than the timeout: a connected page keeps its kernel
        for page, kernel_id in zip(pages, visited, strict=True):
            status = page.evaluate("() => window.jupyterapp.widgetManager.kernel.status")
            assert status == "idle" and kernel_id in _kernel_ids_running(server_pid), \
                f"the open page's kernel was culled (its status: {status})"
            page.close()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and set(visited) & _kernel_ids_running(server_pid):
            time.sleep(1)
        left = set(visited) & _kernel_ids_running(server_pid)
        assert not left, f"{len(left)} kernels of closed pages were never culled"
        # the pool's kernel was spared: a new visitor still gets the page
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/voila/render/privacy_loss.ipynb?token={token}", timeout=180_000)
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
        page.close()
