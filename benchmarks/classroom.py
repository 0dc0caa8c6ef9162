"""A class on one server, measured: a real JupyterHub on localhost and N simulated students (``make classroom``).

For each N (default 5, 10, 20, 30) the script starts JupyterHub (configurable-http-proxy from npm, the
``simple`` local-process spawner, the ``dummy`` authenticator -- for this benchmark only, never for a class) and N
students, started ``--stagger`` seconds apart.  Each asks the hub for its server, opens the Laplace explorer page of
the course app through it and moves the explorer's main slider ``--moves`` times, one arrow-key step each, a
second apart.  Two drivers (``--driver``):

* ``kernel`` (default): each student is a front end speaking the kernel and widget protocols over the hub's proxy
  (``benchmarks/classroom_kernel.py``): it starts a kernel through its server, runs the page's code cells (what Voila
  runs), receives the widget models and sends the slider's ``update`` a browser sends.  This measures the server
  side -- hub, proxy, single-user servers, kernels -- for 30 students on 2 cores; the browser's own drawing cost is
  ``make bench-browser``'s.
* ``browser``: each student is a headless chromium context logging in and opening the Voila page
  (``benchmarks/classroom_browser.py``); for small N (every renderer shares the same 2 cores).

Per N it reports login -> server (the spawn), time to first figure (kernel: from the kernel-start request to the
figure's model arriving with data; browser: from the page request to the figure drawn), slider-to-figure latency
(from the move sent to the figure's redraw arriving), RSS/USS and CPU seconds of each student's kernel and
single-user server (psutil, measured with every kernel alive after its moves), and failures: a student that did not
reach a figure, a move that did not redraw exactly once, an error shown by the explorer, or not finishing within
``--limit`` seconds (none allowed: exit status 1).

Loopback only; every process is the script's child and is stopped at the end, also on failure, SIGTERM or Ctrl-C.
Usage: ``python -m benchmarks.classroom [--students 5 10 20 30] [--driver kernel] [--moves 10] [--stagger 1]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import psutil

ROOT = Path(__file__).resolve().parents[1]
#: The dpviz the students' kernels import (``--source``; default this checkout).
SOURCE = ROOT
BIN = Path(sys.executable).parent
#: Where ``make classroom`` installs configurable-http-proxy from the npm registry.
PROXY = ROOT / "build" / "classroom" / "node_modules" / ".bin" / "configurable-http-proxy"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Student:
    """What one simulated student saw."""

    name: str
    login_s: float = float("nan")
    first_figure_s: float = float("nan")
    moves_ms: list[float] = field(default_factory=list)
    error: str = ""
    #: what the driver leaves open until memory is measured (its websocket, its browser context)
    close: Any = None
    kernel_id: str = ""
    figure_comm: str | None = None
    #: the step the student is at (for a student stopped by the run's limit) and what a stalled page showed
    stage: str = ""
    notes: list[str] = field(default_factory=list)


def _config(work: Path, port: int, proxy_api: int, hub_port: int, api_token: str) -> Path:
    homes = work / "home"
    # JUPYTER_PATH: the course app's Voila template (app/share), as `make app` serves it; without it Voila's page
    # never renders (TemplateNotFound in the server's log, the browser waits for ever)
    # PYTHONPATH also holds app/: its voila.json names the kernel pool class in app/voila_pool.py, which `make app`
    # imports from its working folder; a single-user server's console script does not (ModuleNotFoundError: the
    # Voila extension failed to load and no page ever started a kernel)
    env = {"PYTHONPATH": os.pathsep.join([str(SOURCE), str(ROOT / "app")]),
           "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
           "JUPYTER_PATH": str(ROOT / "app" / "share")}
    text = f"""
c = get_config()  # noqa
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.JupyterHub.db_url = "sqlite:///{work}/hub.sqlite"
c.JupyterHub.cookie_secret_file = "{work}/cookie_secret"
c.JupyterHub.pid_file = "{work}/hub.pid"
c.JupyterHub.authenticator_class = "dummy"          # any name, any password: for this benchmark only
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"               # local processes as this user, home in {homes}/<name>
c.SimpleLocalProcessSpawner.home_dir_template = "{homes}/{{username}}"
c.Spawner.cmd = ["{BIN / 'jupyterhub-singleuser'}"]
c.Spawner.args = {json.dumps(["--allow-root"] if os.geteuid() == 0 else [])}   # containers and CI machines run as root
c.Spawner.default_url = "/api"                      # a cheap page to land on after the login
c.Spawner.environment = {json.dumps(env)}
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.JupyterHub.concurrent_spawn_limit = 100
c.ConfigurableHTTPProxy.command = ["{PROXY}"]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api}"
c.ConfigurableHTTPProxy.auth_token = "{secrets.token_hex(16)}"
c.JupyterHub.cleanup_servers = True
# the kernel-protocol driver asks the hub for servers and user tokens as an admin service (benchmark only)
c.JupyterHub.services = [{{"name": "classroom", "api_token": "{api_token}"}}]
c.JupyterHub.load_roles = [{{"name": "classroom-driver", "services": ["classroom"],
                            "scopes": ["admin:users", "admin:servers", "tokens", "access:servers"]}}]
"""
    path = work / "jupyterhub_config.py"
    path.write_text(text)
    return path


def _start_hub(work: Path, students: int, api_token: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    config = _config(work, port, _free_port(), _free_port(), api_token)
    for k in range(students):
        home = work / "home" / f"student{k:02d}"
        shutil.copytree(ROOT / "app", home, dirs_exist_ok=True)
    log = open(work / "hub.log", "w")
    proc = subprocess.Popen([str(BIN / "jupyterhub"), "-f", str(config)], cwd=work, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            env={**os.environ, "PATH": f"{PROXY.parent}:{BIN}:{os.environ.get('PATH', '')}"})
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{base}/hub/login", timeout=2)
            return proc, base
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"jupyterhub did not start; log:\n{(work / 'hub.log').read_text()[-3000:]}") \
                    from None
            time.sleep(0.5)


def _stop(proc: subprocess.Popen) -> None:
    """Stop the hub; then any process it started that is left (proxy, single-user servers, kernels: the spawner
    starts each server in a session of its own, so they are found as the hub's descendants, not by session)."""
    session = proc.pid
    try:
        descendants = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for p in descendants:
        try:
            p.kill()
        except psutil.Error:
            pass
    for p in psutil.process_iter(["pid"]):
        try:
            if os.getsid(p.pid) == session:
                p.kill()
        except (ProcessLookupError, psutil.Error):
            pass


def _memory(hub: subprocess.Popen) -> dict[str, list[float]]:
    """RSS/USS (MB) and CPU seconds of every kernel and single-user server under the hub, and of the hub + proxy."""
    out: dict[str, list[float]] = {"kernel_rss": [], "kernel_uss": [], "server_rss": [], "server_uss": [],
                                   "hub_rss": [], "kernel_cpu": [], "server_cpu": [], "hub_cpu": []}
    procs = [psutil.Process(hub.pid)] + psutil.Process(hub.pid).children(recursive=True)
    for p in procs:
        try:
            cmd = " ".join(p.cmdline())
            info = p.memory_full_info()
            cpu = p.cpu_times()
        except psutil.Error:
            continue
        seconds = cpu.user + cpu.system
        if "ipykernel" in cmd:
            out["kernel_rss"].append(info.rss / 2**20)
            out["kernel_uss"].append(info.uss / 2**20)
            out["kernel_cpu"].append(seconds)
        elif "jupyterhub-singleuser" in cmd:
            out["server_rss"].append(info.rss / 2**20)
            out["server_uss"].append(info.uss / 2**20)
            out["server_cpu"].append(seconds)
        else:
            out["hub_rss"].append(info.rss / 2**20)
            out["hub_cpu"].append(seconds)
    return out


async def _class(base: str, api_token: str, n: int, page_name: str, moves: int, stagger: float, limit_s: float,
                 driver: str, hub: subprocess.Popen) -> tuple[list[Student], dict[str, list[float]]]:
    """Run the students (each started ``stagger`` s after the previous), all within ``limit_s`` seconds; measure
    memory with every kernel alive; then close what they left open."""
    students = [Student(f"student{k:02d}") for k in range(n)]
    browser = None
    if driver == "browser":
        from benchmarks.classroom_browser import browser_student, open_browser

        playwright, browser = await open_browser()

        def run(s: Student) -> Any:
            return browser_student(browser, base, s, page_name, moves)
    else:
        from benchmarks.classroom_kernel import kernel_student, page_code

        cells = page_code(ROOT / "app" / f"{page_name}.ipynb")

        def run(s: Student) -> Any:
            return kernel_student(base, api_token, s, cells, moves)

    async def later(k: int, s: Student) -> None:
        await asyncio.sleep(k * stagger)
        await run(s)

    try:
        tasks = [asyncio.ensure_future(later(k, s)) for k, s in enumerate(students)]
        _, pending = await asyncio.wait(tasks, timeout=limit_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for s in students:
            if not s.error and (len(s.moves_ms) != moves or not np.isfinite(s.first_figure_s)):
                s.error = f"not done within the {limit_s:g} s limit (at: {s.stage or 'start'})"
        memory = _memory(hub)   # every kernel still running, after its slider moves
        for s in students:
            if s.close is not None:
                try:
                    result = s.close()
                    if asyncio.iscoroutine(result):
                        await result
                except Exception:  # noqa: BLE001, S110 - closing a student's connection is best effort
                    pass
    finally:
        if browser is not None:
            await browser.close()
            await playwright.stop()
    return students, memory


def _q(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def run_class(n: int, page_name: str = "laplace", moves: int = 10, stagger: float = 1.0,
              limit_s: float = 900.0, driver: str = "kernel") -> dict[str, Any]:
    """Start a hub, run ``n`` students, stop everything; return the row of the table."""
    work = Path(tempfile.mkdtemp(prefix=f"dpviz-classroom-{n}-"))
    api_token = secrets.token_hex(32)
    load_before = os.getloadavg()
    hub, base = _start_hub(work, n, api_token)
    start = time.perf_counter()
    try:
        students, memory = asyncio.run(_class(base, api_token, n, page_name, moves, stagger, limit_s, driver,
                                              hub))
    finally:
        _stop(hub)
        if (work / "hub.log").exists():   # kept for reading the servers' errors: build/classroom/hub-<N>.log
            shutil.copy(work / "hub.log", PROXY.parents[2] / f"hub-{n}.log")
        shutil.rmtree(work, ignore_errors=True)
    failures = [f"{s.name}: {s.error}" + (f" [{'; '.join(s.notes[-6:])}]" if s.notes else "")
                for s in students if s.error]
    first = [s.first_figure_s for s in students if np.isfinite(s.first_figure_s)]
    login = [s.login_s for s in students if np.isfinite(s.login_s)]
    moves_ms = [m for s in students for m in s.moves_ms]
    return {"students": n, "page": page_name, "driver": driver, "wall_s": time.perf_counter() - start,
            "login_median_s": _q(login, 50), "login_p95_s": _q(login, 95),
            "first_median_s": _q(first, 50), "first_p95_s": _q(first, 95),
            "move_median_ms": _q(moves_ms, 50), "move_p95_ms": _q(moves_ms, 95), "moves": len(moves_ms),
            "kernel_rss_mb": _q(memory["kernel_rss"], 50), "kernel_rss_max_mb": max(memory["kernel_rss"], default=0),
            "kernel_uss_mb": _q(memory["kernel_uss"], 50), "kernels": len(memory["kernel_rss"]),
            "server_rss_mb": _q(memory["server_rss"], 50), "server_uss_mb": _q(memory["server_uss"], 50),
            "servers": len(memory["server_rss"]), "hub_rss_mb": sum(memory["hub_rss"]),
            "kernel_cpu_s": _q(memory["kernel_cpu"], 50), "server_cpu_s": _q(memory["server_cpu"], 50),
            "hub_cpu_s": sum(memory["hub_cpu"]), "failures": failures, "load_before": load_before,
            "load": os.getloadavg()}


HEADER = ("| students | login→server median / p95 (s) | first figure median / p95 (s) | slider→figure median / p95 "
          "(ms) | kernel RSS median / max (MB) | kernel USS (MB) | server RSS / USS (MB) | kernel / server CPU (s) "
          "| failures |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def table_row(r: dict[str, Any]) -> str:
    """One markdown row of the classroom table."""
    return (f"| {r['students']} | {r['login_median_s']:.1f} / {r['login_p95_s']:.1f} | "
            f"{r['first_median_s']:.1f} / {r['first_p95_s']:.1f} | {r['move_median_ms']:.0f} / "
            f"{r['move_p95_ms']:.0f} | {r['kernel_rss_mb']:.0f} / {r['kernel_rss_max_mb']:.0f} | "
            f"{r['kernel_uss_mb']:.0f} | {r['server_rss_mb']:.0f} / {r['server_uss_mb']:.0f} | "
            f"{r['kernel_cpu_s']:.1f} / {r['server_cpu_s']:.1f} | {len(r['failures'])} |")


def _load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{x:.1f}" for x in load)


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(f"stopped by signal {signum}")   # so that every hub is stopped in its ``finally``


def main(argv: list[str] | None = None) -> int:
    """Run the classes and print the table; exit 1 if any student failed."""
    signal.signal(signal.SIGTERM, _terminate)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[5, 10, 20, 30])
    parser.add_argument("--page", default="laplace", help="course app page (app/<page>.ipynb)")
    parser.add_argument("--driver", choices=("kernel", "browser"), default="kernel",
                        help="students through the kernel protocol (default) or in headless chromium (small N)")
    parser.add_argument("--moves", type=int, default=10, help="slider moves per student")
    parser.add_argument("--stagger", type=float, default=1.0, help="seconds between two students' logins")
    parser.add_argument("--limit", type=float, default=900.0, help="wall-clock limit per N (s): late = failed")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--source", type=Path, default=ROOT, help="folder holding the dpviz the kernels import")
    args = parser.parse_args(argv)
    global SOURCE
    SOURCE = args.source.resolve()
    if not PROXY.exists():
        print(f"{PROXY} missing: run `make classroom` (it installs configurable-http-proxy with npm)", file=sys.stderr)
        return 2
    if any(not 1 <= n <= 40 for n in args.students):
        print("--students: each N must be in [1, 40] (loopback load test on one machine)", file=sys.stderr)
        return 2
    if not 1 <= args.moves <= 100 or not 0 <= args.stagger <= 60 or not 10 <= args.limit <= 3600:
        print("--moves must be in [1, 100], --stagger in [0, 60] s, --limit in [10, 3600] s", file=sys.stderr)
        return 2
    rows = []
    for n in args.students:
        r = run_class(n, args.page, args.moves, args.stagger, args.limit, args.driver)
        rows.append(r)
        print(f"N={n}: wall {r['wall_s']:.0f} s, load (1/5/15 min) before {_load(r['load_before'])}, after "
              f"{_load(r['load'])}; {r['kernels']} kernels, {r['servers']} servers, hub+proxy RSS "
              f"{r['hub_rss_mb']:.0f} MB, CPU {r['hub_cpu_s']:.0f} s; failures: {r['failures'] or 'none'}",
              flush=True)
    print(f"\ndriver {args.driver}, page app/{args.page}.ipynb, {args.moves} slider moves per student, logins "
          f"{args.stagger:g} s apart, {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GB\n")
    print(HEADER)
    for r in rows:
        print(table_row(r))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 1 if any(r["failures"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
