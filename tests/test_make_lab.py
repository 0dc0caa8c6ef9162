"""`make lab`, the README's first command, starts JupyterLab on the lecture notebooks (here as it runs in CI).

The server is started through make itself, on a free localhost port with a temporary token (JUPYTER_TOKEN),
asked for the first lecture over its REST API, and stopped (the whole process group) even when the test fails.
"""

from __future__ import annotations

import json
import os
import secrets
import time
import urllib.error
import urllib.request
from pathlib import Path

from tools.local_server import free_port, make_target

ROOT = Path(__file__).resolve().parents[1]


def test_make_lab_serves_the_lecture_notebooks(tmp_path):
    port, token = free_port(), secrets.token_hex(16)
    log_path = tmp_path / "lab.log"
    with make_target("lab", port, log_path, ROOT, env={**os.environ, "JUPYTER_TOKEN": token}) as proc:
        url = f"http://127.0.0.1:{port}/api/contents/01_laplace_mechanism.ipynb?content=0&token={token}"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    model = json.load(resp)
                break
            except (OSError, urllib.error.URLError):
                assert proc.poll() is None, f"make lab exited with {proc.returncode}:\n{log_path.read_text()}"
                assert time.monotonic() < deadline, f"make lab did not serve in 120 s:\n{log_path.read_text()}"
                time.sleep(0.5)
        assert model["type"] == "notebook" and model["name"] == "01_laplace_mechanism.ipynb"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=10) as resp:
            assert resp.status == 200 and b"JupyterLab" in resp.read()
        # JupyterLab's settings as make lab installs them: no news toast over the explorers, no update check
        settings = f"http://127.0.0.1:{port}/lab/api/settings/@jupyterlab/apputils-extension:notification?token={token}"
        with urllib.request.urlopen(settings, timeout=10) as resp:
            defaults = {k: v.get("default") for k, v in json.load(resp)["schema"]["properties"].items()}
        assert defaults["fetchNews"] == "false" and defaults["checkForUpdates"] is False, defaults   # overrides.json
    assert f"http://localhost:{port}/lab" in log_path.read_text()  # make lab prints the URL
