"""The names of the sum-query configurations: algorithms, threshold methods and the NOT DP label.

References
----------
- [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
  Summation Queries for Numerical Attributes under Differential Privacy."
  TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

__all__ = ["ALGORITHMS", "THRESHOLD_METHODS", "NOT_DP"]

#: The algorithms of [WPKM19] Table 1.
ALGORITHMS = ("sqm", "identity", "workload", "timm", "tamm")
#: Ways to choose the truncation threshold.
THRESHOLD_METHODS = ("svt", "recursive", "oracle", "none")
#: Label carried by everything that uses the non-private oracle threshold.
NOT_DP = "NOT differentially private"

#: Display names of the algorithms (used in labels and accountant rows).
_NAMES = {"sqm": "SQM", "identity": "Identity", "workload": "Workload", "timm": "TiMM", "tamm": "TaMM"}
