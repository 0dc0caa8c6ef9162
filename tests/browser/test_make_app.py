"""``make app`` as the README says to run it: the Makefile's own command serves the landing page and every explorer.

The other browser tests start Voila with an absolute path; the Makefile passed ``.``, which jupyter_core 5.9 refuses
(``abs_root=PosixPath('.') is not absolute``), so every page of ``make app`` answered HTTP 500 and nothing noticed.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from pathlib import Path

from tools.local_server import free_port, make_target

from .test_app import PAGES

ROOT = Path(__file__).resolve().parents[2]


def _status(url: str, timeout: float) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            resp.read()
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_make_app_answers_200_on_every_page(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}/voila/render"
    log = tmp_path / "make-app.log"
    with make_target("app", port, log, ROOT) as proc:
        deadline = time.monotonic() + 180
        while True:                           # the server is up once anything answers on the port
            try:
                first = _status(f"{base}/index.ipynb", timeout=120)
                break
            except OSError:
                assert proc.poll() is None, f"make app exited ({proc.returncode}):\n{log.read_text()[-3000:]}"
                assert time.monotonic() < deadline, f"make app never answered:\n{log.read_text()[-3000:]}"
                time.sleep(0.5)
        statuses = {"index": first} | {name: _status(f"{base}/{name}.ipynb", timeout=180) for name in PAGES}
        bad = {page: code for page, code in statuses.items() if code != 200}
        assert not bad, f"make app: pages that did not answer 200: {bad}\n{log.read_text()[-3000:]}"
