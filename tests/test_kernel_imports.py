"""What a student's kernel pays for an explorer: the Laplace explorer's kernel imports no scipy.stats, optimize,
sparse nor matplotlib (benchmarks/classroom.py: they cost each kernel about 60 MB and seconds of start-up), and the
scipy-free code that replaced them gives scipy's numbers bit for bit."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from scipy import special, stats

from dpviz.mechanisms import laplace_quantile, laplace_scale, randomized_response_probability

HEAVY = ("scipy.stats", "scipy.optimize", "scipy.sparse", "scipy.linalg", "matplotlib")


def test_laplace_explorer_kernel_imports_nothing_heavy() -> None:
    code = ("import sys; from dpviz.widgets import LaplaceExplorer; LaplaceExplorer(seed=0); "
            f"print([m for m in {HEAVY!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_laplace_quantile_is_scipys_bit_for_bit() -> None:
    q = np.concatenate([np.random.default_rng(0).random(10_000), [1e-300, 0.05, 0.5, 0.95, 1 - 1e-16]])
    for sensitivity, epsilon in ((1.0, 1.0), (1.0, 0.37), (3.0, 0.01), (1e-5, 10.0)):
        b = laplace_scale(sensitivity, epsilon)   # the calibrated scale (sensitivity / epsilon, rounded up)
        assert b in (sensitivity / epsilon, np.nextafter(sensitivity / epsilon, np.inf))
        assert np.array_equal(laplace_quantile(q, sensitivity, epsilon), stats.laplace.ppf(q, scale=b))


def test_lazily_imported_special_still_answers() -> None:
    assert randomized_response_probability(1.0) == float(special.expit(1.0))


def test_a_lectures_imports_load_no_optimiser_or_statistics() -> None:
    """Lecture 03's imports and its exercises module pay for neither scipy.optimize (one root, found when asked)
    nor scipy.stats (only the privacy check of the exercises audits with it): about 0.9 s before its first
    explorer appeared in JupyterLab."""
    code = ("import sys; from dpviz import hierarchy, mechanisms, wavelet, sensitivity; "
            "from dpviz.experiments import hierarchy as E; from dpviz.exercises import lecture01, lecture03; "
            "print([m for m in ('scipy.optimize', 'scipy.stats') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
