"""Mutation check of the privacy-critical lines: every mutant must be killed by the unit tests.

Each mutant changes one privacy-critical line (a noise calibration, a sensitivity, a budget split, the
accountant, constrained inference) in a throw-away copy of the package and runs the unit tests that guard
that topic. A mutant that survives means a privacy bug the tests would not notice.

The mutants are curated rather than generated: a generator (mutmut, cosmic-ray) mutates every line of a
module, most of them not privacy-critical, and takes hours on this suite; these are the lines where a wrong
constant is a wrong guarantee. Each mutant names the exact source text it replaces, so a refactor that moves
or rewrites the line makes the run fail loudly ("text not found") instead of silently testing nothing.

Usage: ``python -m benchmarks.mutation [NAME-SUBSTRING ...]`` (``make mutation``).  Exit status 1 if a
mutant survives or its text is not found.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutant:
    """One privacy-critical change and the tests expected to catch it."""

    name: str
    path: str  # relative to the repository root
    original: str  # exact source text, must occur exactly once
    mutated: str
    tests: tuple[str, ...]




def _load() -> tuple[Mutant, ...]:
    from benchmarks.mutants import MUTANTS as listed

    return tuple(listed)


def run(mutants: tuple[Mutant, ...], python: str = sys.executable) -> list[tuple[Mutant, str, float]]:
    """Apply each mutant in a copy of the repository and run its tests; return (mutant, verdict, seconds)."""
    results = []
    with tempfile.TemporaryDirectory(prefix="dpviz-mutation-") as tmp:
        work = Path(tmp)
        for part in ("dpviz", "tests", "pyproject.toml"):
            src = ROOT / part
            if src.is_dir():
                shutil.copytree(src, work / part, ignore=shutil.ignore_patterns("__pycache__", "browser"))
            else:
                shutil.copy2(src, work / part)
        env = {**os.environ, "PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
        for m in mutants:
            target = work / m.path
            text = target.read_text()
            if text.count(m.original) != 1:
                results.append((m, f"TEXT FOUND {text.count(m.original)} TIMES", 0.0))
                continue
            target.write_text(text.replace(m.original, m.mutated))
            t0 = time.perf_counter()
            proc = subprocess.run(
                [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *m.tests],
                cwd=work, env=env, capture_output=True, text=True,
            )
            seconds = time.perf_counter() - t0
            target.write_text(text)
            if proc.returncode == 1:
                verdict = "killed"
            elif proc.returncode == 0:
                verdict = "SURVIVED"
            else:  # 2-5: interrupted, internal error, usage error, no tests: the run proves nothing
                verdict = f"ERROR (pytest exit {proc.returncode})"
            results.append((m, verdict, seconds))
            print(f"{verdict:<10} {seconds:6.1f} s  {m.name}", flush=True)
    return results


def main(argv: list[str]) -> int:
    mutants = _load()
    if argv:
        mutants = tuple(m for m in mutants if any(a.lower() in m.name.lower() for a in argv))
    print(f"{len(mutants)} mutants of privacy-critical lines")
    results = run(mutants)
    killed = sum(v == "killed" for _, v, _ in results)
    print(f"mutation score: {killed}/{len(results)} killed")
    for m, v, _ in results:
        if v != "killed":
            print(f"  {v}: {m.name} ({m.path})")
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
