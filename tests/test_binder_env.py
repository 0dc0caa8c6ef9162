"""Build binder/requirements.txt into a fresh virtual environment, run binder/postBuild, execute a lecture there.

A dependency missing from binder/ makes the notebook fail here, as it would on
Binder.  The environment is cached in .cache/ under a hash of the Binder files,
so only a change to them rebuilds it; postBuild (which installs this checkout's dpviz) runs every time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "01_laplace_mechanism.ipynb"


def _env_dir() -> Path:
    h = hashlib.sha256()
    for f in ("binder/requirements.txt", "binder/postBuild", "pyproject.toml"):
        h.update((ROOT / f).read_bytes())
    return ROOT / ".cache" / f"binder-venv-{h.hexdigest()[:12]}"


@pytest.fixture(scope="module")
def binder_env() -> Path:
    env = _env_dir()
    if not (env / ".complete").exists():
        shutil.rmtree(env, ignore_errors=True)
        for old in (ROOT / ".cache").glob("binder-venv-*"):
            shutil.rmtree(old, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        pip = [str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run(pip + ["-r", str(ROOT / "binder" / "requirements.txt")], check=True)
        (env / ".complete").touch()
    # postBuild runs from the repository root with the environment's python first on PATH, as on Binder; it runs
    # on every test run (a few seconds), so the cached environment always holds the dpviz of this checkout
    path = f"{env / 'bin'}{os.pathsep}{os.environ['PATH']}"
    subprocess.run(["bash", "binder/postBuild"], cwd=ROOT, check=True, env={**os.environ, "PATH": path})
    return env


def _texts(nb: dict) -> list[str]:
    """Each code cell's printed text, its stream outputs joined: the kernel splits one cell's prints into
    messages by timing (a slow lazy import between two prints makes two), which is not a difference a reader sees."""
    texts = ["".join("".join(o.get("text", "")) for o in c["outputs"] if o["output_type"] == "stream")
             for c in nb["cells"] if c["cell_type"] == "code"]
    return [t for t in texts if t]


def test_lecture_runs_in_the_binder_environment_as_committed(binder_env, tmp_path):
    probe = subprocess.run([str(binder_env / "bin" / "python"), "-c", "import dpviz, sys; print(dpviz.__file__)"],
                           capture_output=True, text=True, check=True, cwd=tmp_path)
    assert str(binder_env) in probe.stdout, "postBuild did not install dpviz into the Binder environment"
    settings = binder_env / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert json.loads(settings.read_text())["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    out = tmp_path / "executed.ipynb"
    subprocess.run([str(binder_env / "bin" / "jupyter"), "nbconvert", "--to", "notebook", "--execute",
                    "--ExecutePreprocessor.timeout=120", f"--output={out}", str(NOTEBOOK)],
                   check=True, cwd=tmp_path, capture_output=True)
    executed, committed = json.loads(out.read_text()), json.loads(NOTEBOOK.read_text())
    errors = [o for c in executed["cells"] if c["cell_type"] == "code" for o in c["outputs"]
              if o["output_type"] == "error"]
    assert not errors, errors
    assert _texts(executed) == _texts(committed)
