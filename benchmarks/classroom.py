"""A class on one server, measured: a real JupyterHub on localhost and N simulated students (``make classroom``).

For each N (default 5, 10, 20, 30) the script starts JupyterHub (configurable-http-proxy from npm, the
``simple`` local-process spawner, the ``dummy`` authenticator -- for this benchmark only, never for a class),
then N students, each a headless chromium context, log in (logins staggered by ``--stagger`` seconds), wait
for their server, open an explorer page of the course app (Voila, served by their own single-user server) and
move its main slider ``--moves`` times.  Per N it reports:

* time to first figure: from the explorer page's URL being requested (the student's server running) to the plotly
  figure drawn with data (median, p95); the login-to-server time is reported beside it;
* slider-to-figure latency: from the key press on the main slider to the figure's data changing (median, p95);
* resident memory per student: each kernel's RSS and USS (psutil), and each single-user server's RSS;
* failures: any student who did not reach a figure or whose slider did not redraw (none allowed: exit status 1).

Loopback only; every process is the script's child and is stopped at the end, even on failure.
Usage: ``python -m benchmarks.classroom [--students 5 10 20 30] [--page laplace] [--moves 3] [--stagger 1.0]``.
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
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: Where ``make classroom`` installs configurable-http-proxy from the npm registry.
PROXY = ROOT / "build" / "classroom" / "node_modules" / ".bin" / "configurable-http-proxy"
PLOT_DATA_JS = """() => JSON.stringify(Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(p => (p.data || []).map(t => [t.x, t.y])))"""


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
    retries: int = 0


def _config(work: Path, port: int, proxy_api: int, hub_port: int) -> Path:
    homes = work / "home"
    env = {"PYTHONPATH": str(SOURCE), "PATH": f"{BIN}:{os.environ.get('PATH', '')}"}
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
c.Spawner.default_url = "/tree"
c.Spawner.environment = {json.dumps(env)}
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.JupyterHub.concurrent_spawn_limit = 100
c.ConfigurableHTTPProxy.command = ["{PROXY}"]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api}"
c.ConfigurableHTTPProxy.auth_token = "{secrets.token_hex(16)}"
c.JupyterHub.cleanup_servers = True
"""
    path = work / "jupyterhub_config.py"
    path.write_text(text)
    return path


def _start_hub(work: Path, students: int) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    config = _config(work, port, _free_port(), _free_port())
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
    """RSS/USS (MB) of every kernel and single-user server under the hub, and of the hub + proxy."""
    out: dict[str, list[float]] = {"kernel_rss": [], "kernel_uss": [], "server_rss": [], "hub_rss": []}
    procs = [psutil.Process(hub.pid)] + psutil.Process(hub.pid).children(recursive=True)
    for p in procs:
        try:
            cmd = " ".join(p.cmdline())
            info = p.memory_full_info()
        except psutil.Error:
            continue
        if "ipykernel" in cmd:
            out["kernel_rss"].append(info.rss / 2**20)
            out["kernel_uss"].append(info.uss / 2**20)
        elif "jupyterhub-singleuser" in cmd:
            out["server_rss"].append(info.rss / 2**20)
        else:
            out["hub_rss"].append(info.rss / 2**20)
    return out


async def _student(browser: Any, base: str, s: Student, page_name: str, moves: int, delay: float,
                   timeout_s: float) -> None:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    await asyncio.sleep(delay)
    context = await browser.new_context(viewport={"width": 1280, "height": 1400})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    try:
        t0 = time.perf_counter()
        await page.goto(f"{base}/hub/login", timeout=timeout_s * 1e3)
        await page.fill("input[name=username]", s.name)
        await page.fill("input[name=password]", "benchmark-only")
        await page.click("input[type=submit], button[type=submit]")
        await page.wait_for_url(f"**/user/{s.name}/**", timeout=timeout_s * 1e3)
        s.login_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        await page.goto(f"{base}/user/{s.name}/voila/render/{page_name}.ipynb", timeout=timeout_s * 1e3)
        await page.wait_for_function("() => { const p = document.querySelector('.js-plotly-plot');"
                                     " return p && p.data && p.data.length > 0; }", timeout=timeout_s * 1e3)
        s.first_figure_s = time.perf_counter() - t1
        handle = page.locator(".dpviz-main-control .noUi-handle").first
        for _ in range(moves):
            await asyncio.sleep(1.0)   # a student reads the figure before the next move
            # compare in the page (a polled function embedding the whole plot data as a literal crashed pages)
            await page.evaluate(f"() => {{ window.__dpvizBefore = ({PLOT_DATA_JS})(); }}")
            changed = f"() => ({PLOT_DATA_JS})() !== window.__dpvizBefore"
            for attempt in range(3):   # a key press sent while the page is still busy can be lost: press again
                await handle.focus()
                t2 = time.perf_counter()
                await page.keyboard.press("ArrowLeft")
                try:
                    await page.wait_for_function(changed, timeout=(timeout_s if attempt == 2 else 60) * 1e3,
                                                 polling=50)
                    break
                except PlaywrightTimeout:
                    s.retries += 1
                    if attempt == 2:
                        raise
            s.moves_ms.append((time.perf_counter() - t2) * 1e3)
        shown = page.locator(".dpviz-error")
        if await shown.count():
            s.error = f"explorer error: {await shown.first.inner_text()}"
        elif errors:
            s.error = "; ".join(errors)
    except Exception as exc:  # noqa: BLE001 - a failed student is reported, not raised
        s.error = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    finally:
        await context.close()


async def _class(base: str, n: int, page_name: str, moves: int, stagger: float, timeout_s: float,
                 hub: subprocess.Popen) -> tuple[list[Student], dict[str, list[float]]]:
    from playwright.async_api import async_playwright

    students = [Student(f"student{k:02d}") for k in range(n)]
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            await asyncio.gather(*(_student(browser, base, s, page_name, moves, k * stagger, timeout_s)
                                   for k, s in enumerate(students)))
        finally:
            memory = _memory(hub)   # every kernel still running, after its slider moves
            await browser.close()
    return students, memory


def _q(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def run_class(n: int, page_name: str = "laplace", moves: int = 3, stagger: float = 1.0,
              timeout_s: float = 300.0) -> dict[str, Any]:
    """Start a hub, run ``n`` students, stop everything; return the row of the table."""
    work = Path(tempfile.mkdtemp(prefix=f"dpviz-classroom-{n}-"))
    hub, base = _start_hub(work, n)
    start = time.perf_counter()
    try:
        students, memory = asyncio.run(_class(base, n, page_name, moves, stagger, timeout_s, hub))
    finally:
        _stop(hub)
    failures = [f"{s.name}: {s.error}" for s in students if s.error or not np.isfinite(s.first_figure_s)
                or len(s.moves_ms) != moves]
    first = [s.first_figure_s for s in students if np.isfinite(s.first_figure_s)]
    login = [s.login_s for s in students if np.isfinite(s.login_s)]
    moves_ms = [m for s in students for m in s.moves_ms]
    shutil.rmtree(work, ignore_errors=True)
    return {"students": n, "page": page_name, "wall_s": time.perf_counter() - start,
            "login_median_s": _q(login, 50), "login_p95_s": _q(login, 95),
            "first_median_s": _q(first, 50), "first_p95_s": _q(first, 95),
            "move_median_ms": _q(moves_ms, 50), "move_p95_ms": _q(moves_ms, 95), "moves": len(moves_ms),
            "kernel_rss_mb": _q(memory["kernel_rss"], 50), "kernel_rss_max_mb": max(memory["kernel_rss"], default=0),
            "kernel_uss_mb": _q(memory["kernel_uss"], 50), "kernels": len(memory["kernel_rss"]),
            "server_rss_mb": _q(memory["server_rss"], 50), "hub_rss_mb": sum(memory["hub_rss"]),
            "retries": sum(s.retries for s in students), "failures": failures, "load": os.getloadavg()}


HEADER = ("| students | login→server median / p95 (s) | first figure median / p95 (s) | slider→figure median / p95 "
          "(ms) | kernel RSS median / max (MB) | kernel USS (MB) | server RSS (MB) | failures |\n"
          "|---:|---:|---:|---:|---:|---:|---:|---:|")


def table_row(r: dict[str, Any]) -> str:
    """One markdown row of the classroom table."""
    return (f"| {r['students']} | {r['login_median_s']:.1f} / {r['login_p95_s']:.1f} | "
            f"{r['first_median_s']:.1f} / {r['first_p95_s']:.1f} | {r['move_median_ms']:.0f} / "
            f"{r['move_p95_ms']:.0f} | {r['kernel_rss_mb']:.0f} / {r['kernel_rss_max_mb']:.0f} | "
            f"{r['kernel_uss_mb']:.0f} | {r['server_rss_mb']:.0f} | {len(r['failures'])} |")


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(f"stopped by signal {signum}")   # so that every hub is stopped in its ``finally``


def main(argv: list[str] | None = None) -> int:
    """Run the classes and print the table; exit 1 if any student failed."""
    signal.signal(signal.SIGTERM, _terminate)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[5, 10, 20, 30])
    parser.add_argument("--page", default="laplace", help="course app page (app/<page>.ipynb)")
    parser.add_argument("--moves", type=int, default=3)
    parser.add_argument("--stagger", type=float, default=1.0, help="seconds between two students' logins")
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
    rows = []
    for n in args.students:
        r = run_class(n, args.page, args.moves, args.stagger)
        rows.append(r)
        print(f"N={n}: wall {r['wall_s']:.0f} s, load {r['load'][0]:.1f}, {r['kernels']} kernels, "
              f"{r['retries']} key presses repeated, "
              f"hub+proxy RSS {r['hub_rss_mb']:.0f} MB, failures: {r['failures'] or 'none'}", flush=True)
    print(f"\npage app/{args.page}.ipynb, {args.moves} slider moves per student, logins {args.stagger:g} s apart, "
          f"{os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GB\n")
    print(HEADER)
    for r in rows:
        print(table_row(r))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 1 if any(r["failures"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
