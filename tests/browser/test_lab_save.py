"""A committed lecture opened in JupyterLab is not marked modified, and saving it leaves the file byte for byte."""

from __future__ import annotations

import os
import secrets
import shutil
import sys
import time
from pathlib import Path

import pytest

from tools.local_server import free_port, running

ROOT = Path(__file__).resolve().parents[2]
LECTURES = ["01_laplace_mechanism.ipynb", "03_hierarchies.ipynb"]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a free localhost port over a copy of the lectures; yield (url template, served folder)."""
    work = tmp_path_factory.mktemp("lab")
    for name in LECTURES:
        shutil.copy(ROOT / "notebooks" / name, work / name)
    port, token = free_port(), secrets.token_hex(16)
    argv = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}", "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--ServerApp.allow_root=True"]
    with running(argv, f"http://127.0.0.1:{port}/api/status?token={token}", work.parent / "lab.log",
                 cwd=work, env={**os.environ, "PYTHONPATH": str(ROOT)}):
        yield f"http://127.0.0.1:{port}/lab/tree/{{name}}?token={token}&reset", work


@pytest.mark.parametrize("name", LECTURES)
def test_lecture_opens_unmodified_and_saves_unchanged(browser, lab, name):
    url, served = lab
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url.format(name=name), timeout=120_000)
    page.wait_for_function("() => window.jupyterapp && document.querySelector('.jp-Notebook')", timeout=120_000)
    # once the kernel is idle JupyterLab has written what it learnt from it (language_info) into the model
    page.wait_for_function("() => { const k = document.querySelector('.jp-Notebook-ExecutionIndicator');"
                           " return k && k.getAttribute('data-status') === 'idle'; }", timeout=120_000)
    page.wait_for_timeout(1000)
    dirty = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
    saved_at = (served / name).stat().st_mtime_ns
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    deadline = time.monotonic() + 30
    while (served / name).stat().st_mtime_ns == saved_at:
        assert time.monotonic() < deadline, f"{name}: JupyterLab did not save within 30 s"
        time.sleep(0.2)
    time.sleep(0.5)
    page.close()
    assert not dirty, f"{name} opened already marked modified"
    assert (served / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes(), \
        f"{name}: saving in JupyterLab rewrote it (run python -m tools.course normalise on it)"
