"""Real-browser fixtures: Debian's chromium driven by Playwright, against a Voila server on localhost.

The server is started on a free port with a random token and torn down even
when a test fails.  Without /usr/bin/chromium the tests are skipped with a
message, except under CI (CI=true), where a missing browser is a failure.

Every page a test opens through the ``browser`` fixture (``new_page`` or ``new_context().new_page``) is watched:
a console error or warning, an uncaught page error, or a request to an address that is not this machine fails
the test (:class:`PageRules`), whatever the test itself checks.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tools.local_server import free_port, running

from .explorer_state import TITLE_PARAMETER, wait_until_idle

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = ROOT / "tests" / "browser" / "screenshots"
#: Flags for headless chromium on a machine without network access or GPU (as root).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


#: What counts as this machine: a request anywhere else fails the test.
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
LOCAL_SCHEMES = {"data", "blob", "about", "chrome-extension"}


def is_local(url: str) -> bool:
    """Whether ``url`` stays on this machine (localhost, a file on this disk, or an in-page data:/blob:/about: URL)."""
    parts = urlparse(url)
    if parts.scheme == "file":                   # file:///path is this disk; file://host/path is a network share
        return not parts.hostname or parts.hostname in LOCAL_HOSTS
    return parts.scheme in LOCAL_SCHEMES or parts.hostname in LOCAL_HOSTS


class PageRules:
    """Collect what no page may do: log a console error or warning, throw, or request a non-local address."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def watch(self, page) -> None:
        def on_console(msg) -> None:
            if msg.type in ("error", "warning"):
                self.problems.append(f"console {msg.type} on {page.url}: {msg.text[:300]}")

        def on_request(req) -> None:
            if not is_local(req.url):
                self.problems.append(f"request to a non-local address from {page.url}: {req.url}")

        page.on("console", on_console)
        page.on("pageerror", lambda exc: self.problems.append(f"page error on {page.url}: {exc}"))
        page.on("request", on_request)

    def take(self) -> list[str]:
        """The problems seen so far, forgetting them."""
        out, self.problems = self.problems, []
        return out


RULES = PageRules()


class WatchedBrowser:
    """A Playwright browser whose every new page is watched by :data:`RULES`."""

    def __init__(self, browser) -> None:
        self._browser = browser

    def new_page(self, **kwargs):
        page = self._browser.new_page(**kwargs)
        RULES.watch(page)
        return page

    def new_context(self, **kwargs):
        context = self._browser.new_context(**kwargs)
        context.on("page", RULES.watch)
        return context

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


@pytest.fixture
def page_rules() -> PageRules:
    """The rules' collector (this module may be imported under two names; the fixture gives the live one)."""
    return RULES


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Fail a test whose pages broke a rule of :class:`PageRules` (also when the test's own checks passed)."""
    result = yield
    problems = RULES.take()
    if problems:
        raise AssertionError(f"{len(problems)} browser rule violation(s):\n  " + "\n  ".join(problems))
    return result


@pytest.fixture(scope="package")
def chromium_path() -> str:
    if not os.path.exists(CHROMIUM):
        msg = f"{CHROMIUM} not found: install Debian's chromium (make test does it with apt-get where it can)"
        if os.environ.get("CI"):
            pytest.fail(msg + " -- browser tests never skip in CI")
        pytest.skip(msg)
    return CHROMIUM


@pytest.fixture(scope="package")
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    print(f"\nbrowser screenshots are saved in {SCREENSHOTS}")
    return SCREENSHOTS


@contextlib.contextmanager
def serve_app(work: Path, *options: str) -> Iterator[tuple[str, str, Path, int]]:
    """Serve a copy of app/ (in ``work``) with Voila and extra command-line ``options``; yield (base_url, token,
    log path, the server's process id)."""
    shutil.copytree(ROOT / "app", work / "app")
    port, token = free_port(), secrets.token_hex(16)
    # as `make app` serves it: app/voila.json from the working directory, the page template from app/share
    argv = [sys.executable, "-m", "voila", str(work / "app"), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
            f"--Voila.token={token}", *options]
    env = {**os.environ, "JUPYTER_PATH": os.pathsep.join(filter(None, [str(work / "app" / "share"),
                                                                      os.environ.get("JUPYTER_PATH")]))}
    base = f"http://127.0.0.1:{port}"
    with running(argv, f"{base}/?token={token}", work / "voila.log", stop_timeout=15,
                 cwd=work / "app", env=env) as proc:
        yield base, token, work / "voila.log", proc.pid


@pytest.fixture(scope="package")
def voila_server(tmp_path_factory):
    """Serve app/ with Voila on a free localhost port and a temporary token; yield (base_url, token, log path,
    the server's process id)."""
    with serve_app(tmp_path_factory.mktemp("voila-app")) as server:
        yield server


@pytest.fixture(scope="package")
def voila_app(voila_server):
    """(base_url, token) of the app's Voila server (app/voila.json: one preheated kernel per page)."""
    return voila_server[:2]


@pytest.fixture(scope="package")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        try:
            yield WatchedBrowser(b)
        finally:
            b.close()


def pytest_terminal_summary(terminalreporter):
    """Say where the screenshots are (fixture output is captured, a summary line is not)."""
    if SCREENSHOTS.exists() and any(SCREENSHOTS.glob("*.png")):
        shots = sorted(p.name for p in SCREENSHOTS.glob("*.png"))
        terminalreporter.write_line(f"browser screenshots ({len(shots)}) are in {SCREENSHOTS}: {', '.join(shots)}")


@pytest.fixture(scope="package", params=list(TITLE_PARAMETER))
def explorer_page(request, browser, voila_app):
    """``(name, page)``: one explorer page of the app, loaded and idle, shared by every test that takes it
    (pytest runs the tests of one page together, so each page loads once for all of them)."""
    base, token = voila_app
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{base}/voila/render/{request.param}.ipynb?token={token}", timeout=180_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=180_000)
    wait_until_idle(page)
    yield request.param, page
    page.close()
