"""Output codes shared by SVT, GPTT and the attack, and the label every GPTT object carries."""

from __future__ import annotations

__all__ = ["ABOVE", "BELOW", "HALTED", "NOT_DP"]

#: Output codes of :func:`dpviz.svt.sparse_vector` and :func:`dpviz.svt.gptt`: ABOVE (1), BELOW (0), HALTED (-1).
ABOVE, BELOW, HALTED = 1, 0, -1
#: The label every GPTT object, docstring and figure carries.
NOT_DP = "NOT differentially private"
