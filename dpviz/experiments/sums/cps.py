"""The CPS income problem the lecture and the explorer use, and their default parameters.

References
----------
- [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
  Summation Queries for Numerical Attributes under Differential Privacy."
  TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

from dpviz import sums
from dpviz.validation import check_int, check_positive

__all__ = ["DEFAULTS", "cps_problem"]

#: Parameters used by the lecture and the explorer (ours: the paper does not state its values).
DEFAULTS = dict(epsilon=1.0, ratio=0.999, rho=0.1, beta=1e-3, growth=1.1, floor=1.0)

_PROBLEMS: dict[tuple[int, float], sums.SumProblem] = {}


def cps_problem(m: int = 100, width: float = 1000.0) -> sums.SumProblem:
    """The CPS income prefix-sum problem: ``m`` evenly spaced queries on bins of ``width`` dollars up to $1M.

    Default: $1,000 bins (:func:`dpviz.sums.cps_income_bins`) and the 100
    thresholds $10k, $20k, ..., $1M of the paper's Example 1.  The explorer
    uses ``width=10_000`` (100 bins, one per query) to stay interactive.
    Cached per ``(m, width)``.

    Parameters
    ----------
    m : int
        Number of queries; must divide the number of bins ``1e6 / width``.
    width : float
        Bin width in dollars (> 0, dividing $1,000,000).

    Returns
    -------
    dpviz.sums.SumProblem
        The vectorised CPS incomes with the m prefix queries.

    Raises
    ------
    ValueError
        If ``width`` does not divide $1M or ``m`` does not divide the number of bins.
    TypeError
        If ``m`` is not an integer.
    """
    from dpviz.datasets import load

    width = check_positive("width", width)
    bins = sums.uniform_bins(width, 1_000_000.0)
    m = check_int("m", m, minimum=1, maximum=bins.size)
    if bins.size % m:
        raise ValueError(f"m must divide the number of bins ({bins.size}), got {m}")
    key = (m, width)
    if key not in _PROBLEMS:
        step = bins.size // m
        _PROBLEMS[key] = sums.prepare(load("CPS", column="income"), bins[step - 1::step], bins)
    return _PROBLEMS[key]
