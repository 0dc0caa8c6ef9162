"""A server on localhost for the length of a ``with`` block: the browser tests' and benchmarks' Voila and Lab.

``free_port()`` picks a free port on 127.0.0.1; ``running(argv, probe_url, log_path)`` starts the command
(output to ``log_path``), waits until ``probe_url`` answers, yields the process and stops it (terminate, then
kill) when the block ends, also when the block raises; ``make_target(target, port, log_path, cwd)`` does the same
for a Makefile target, whose whole process group it stops.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["free_port", "running", "make_target"]


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running(argv: list[str], probe_url: str, log_path: Path, *, start_timeout: float = 600,
            stop_timeout: float = 20, **popen: Any) -> Iterator[subprocess.Popen]:
    """Run ``argv`` until the block ends, once ``probe_url`` answers; RuntimeError with the log if it never does.

    A server that exits is reported at once; one still starting gets ``start_timeout`` seconds (ten minutes: on a
    machine running 8 busy processes beside Chromium, Voila took over two to answer its first request)."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, **popen)
        try:
            deadline = time.monotonic() + start_timeout
            while True:
                try:
                    urllib.request.urlopen(probe_url, timeout=2)
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"{argv[2] if len(argv) > 2 else argv[0]} did not start; log:\n"
                                           f"{Path(log_path).read_text()[-4000:]}") from None
                    time.sleep(0.2)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=stop_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextlib.contextmanager
def make_target(target: str, port: int, log_path: Path, cwd: Path, env: dict[str, str] | None = None
                ) -> Iterator[subprocess.Popen]:
    """Run ``make <target> PORT=<port>`` (a README command) in a process group of its own until the block ends,
    then stop the whole group -- make, its shell and the server -- with SIGTERM, then SIGKILL after 20 s."""
    import os
    import signal

    with open(log_path, "w") as log:
        proc = subprocess.Popen(["make", "--no-print-directory", target, f"PORT={port}"], cwd=cwd, env=env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield proc
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
