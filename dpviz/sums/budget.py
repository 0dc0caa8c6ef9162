"""The exact split of epsilon between choosing the truncation threshold and answering ([WPKM19]_ Sec. 3.2).

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

from fractions import Fraction

from dpviz.accountant import exact
from dpviz.sums.options import THRESHOLD_METHODS
from dpviz.validation import check_choice, check_epsilon, check_open_unit

__all__ = ["split_budget"]


def split_budget(epsilon: float, rho: float, truncation: str) -> tuple[Fraction, Fraction]:
    """Exact split ``(eps_threshold, eps_answers)`` of epsilon ([WPKM19] Sec. 3.2).

    ``rho * eps`` goes to a private threshold choice ("svt", "recursive") and the
    rest to the answers; "oracle" (not DP) and "none" spend nothing on the
    threshold.  The two steps compose sequentially, so the parts add up to
    ``epsilon`` exactly.

    Parameters
    ----------
    epsilon : float
        Total budget per trial (> 0).
    rho : float in (0, 1)
        Share of ``epsilon`` spent on the threshold (checked only for "svt" and "recursive").
    truncation : {"svt", "recursive", "oracle", "none"}
        How the threshold is chosen.

    Returns
    -------
    tuple of fractions.Fraction
        ``(eps_threshold, eps_answers)``, exact rationals summing to ``epsilon``.

    Raises
    ------
    ValueError
        If ``epsilon`` is not > 0, ``rho`` is outside (0, 1) (private methods), or
        ``truncation`` is not one of the threshold methods.

    Examples
    --------
    >>> split_budget(1.0, 0.25, "svt")
    (Fraction(1, 4), Fraction(3, 4))
    >>> split_budget(1.0, 0.25, "none")
    (Fraction(0, 1), Fraction(1, 1))
    """
    eps = exact("epsilon", check_epsilon(epsilon))
    check_choice("truncation", truncation, THRESHOLD_METHODS)
    if truncation in ("svt", "recursive"):
        r = exact("rho", check_open_unit("rho", rho))
        return eps * r, eps - eps * r
    return Fraction(0), eps
