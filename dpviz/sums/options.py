"""The names of the sum-query configurations: algorithms, threshold methods and the NOT DP label.

References
----------
- [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
  Summation Queries for Numerical Attributes under Differential Privacy."
  TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dpviz.validation import check_choice

__all__ = ["ALGORITHMS", "THRESHOLD_METHODS", "NOT_DP", "MAX_RUNS"]

#: The algorithms of [WPKM19] Table 1.
ALGORITHMS = ("sqm", "identity", "workload", "timm", "tamm")
#: Ways to choose the truncation threshold.
THRESHOLD_METHODS = ("svt", "recursive", "oracle", "none")
#: Label carried by everything that uses the non-private oracle threshold.
NOT_DP = "NOT differentially private"
#: Most independent runs (each with its own threshold search and isotonic fit, a Python-level step) one call
#: simulates: 10**5 runs took about 1.4 s, 10**6 about 19 s.
MAX_RUNS = 2**17

#: Display names of the algorithms (used in labels and accountant rows).
_NAMES = {"sqm": "SQM", "identity": "Identity", "workload": "Workload", "timm": "TiMM", "tamm": "TaMM"}


def _check_names(name: str, values: Any, allowed: Iterable[str]) -> list[str]:
    """A non-empty collection of option names, each one of ``allowed`` (a lone string is refused, not split)."""
    options = tuple(allowed)
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a list of names from {options}, got {values!r}")
    out = [check_choice(f"{name}[{i}]", v, options) for i, v in enumerate(values)]
    if not out:
        raise ValueError(f"{name} must name at least one of {options}, got none")
    return out
