"""Adaptive composition: the second query may be chosen from the first noisy answer, and the costs still add.

Sequential composition does not need the mechanisms to be fixed in advance: if mechanism i is chosen from the
outputs of mechanisms 1..i-1 and is eps_i-DP whichever it is, the whole interaction is ``(sum_i eps_i)``-DP
([DR14]_ Thm 3.16; advanced composition too, Thm 3.20).  The privacy loss of the pair of answers is the loss of
the first plus the loss of the second *given the first*, each bounded by its own epsilon.

The lecture's small example, on counts of four age groups ``[<18, 18-64, 65-79, 80+]``: release the number of
people aged 65 or more with ``Lap(1/eps_1)``; if that noisy count exceeds a threshold, drill down to the number
aged 80 or more, otherwise ask for the number under 18; either way with ``Lap(1/eps_2)``.
:func:`adaptive_counts` charges ``eps_1 + eps_2`` before anything is drawn, whichever branch is taken.

References
----------
.. [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
   Theoretical Computer Science 9(3-4), 2014, Sec. 3.5.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import PrivacyAccountant, charge_all, check_accountant, exact
from dpviz.mechanisms import laplace
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_counts, check_elements, check_epsilon, check_real, check_trials

__all__ = ["AGE_GROUPS", "adaptive_counts"]

#: The four age groups of :func:`adaptive_counts`' histogram.
AGE_GROUPS = ("<18", "18-64", "65-79", "80+")


def adaptive_counts(counts: ArrayLike, epsilon_first: float, epsilon_second: float, threshold: float, *,
                    rng: RngLike = None, size: int | None = None,
                    accountant: PrivacyAccountant | None = None) -> np.ndarray:
    """Two counts, the second chosen from the first noisy answer: ``(c1, c2)``, ``(eps_1 + eps_2)``-DP.

    ``c1`` = people aged 65+ (``counts[2] + counts[3]``) plus ``Lap(1/eps_1)``; if ``c1 > threshold``, ``c2`` =
    people aged 80+ (``counts[3]``), else people under 18 (``counts[0]``), plus ``Lap(1/eps_2)``.  Which query
    was asked is a function of ``c1``, so releasing it costs nothing more.

    Parameters
    ----------
    counts : array_like
        Counts of the four :data:`AGE_GROUPS`, non-negative.
    epsilon_first, epsilon_second : float
        Epsilon of each count, finite and > 0.
    threshold : float
        The public cut on the first noisy count that decides the second query, finite.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent runs stacked on a new first axis.
    accountant : PrivacyAccountant, optional
        Charged ``eps_1`` and ``eps_2`` (times ``size``) before anything is drawn, all or nothing.

    Returns
    -------
    numpy.ndarray
        ``[c1, c2]`` per run: shape (2,) or (size, 2).

    Raises
    ------
    ValueError, TypeError
        For counts that are not four non-negative numbers, invalid epsilons, threshold or size, or an accountant
        that refuses the charge (``BudgetExceededError``, nothing recorded).

    References
    ----------
    Dwork & Roth 2014, Theorem 3.16 (composition holds for adaptively chosen mechanisms).

    Examples
    --------
    >>> out = adaptive_counts([20, 50, 12, 5], 0.5, 0.5, threshold=10.0, rng=0, size=3)
    >>> out.shape
    (3, 2)
    """
    c = check_counts("counts", counts)
    if c.shape != (len(AGE_GROUPS),):
        raise ValueError(f"counts must hold the {len(AGE_GROUPS)} age groups {AGE_GROUPS}, got shape {c.shape}")
    e1 = check_epsilon(epsilon_first, "epsilon_first")
    e2 = check_epsilon(epsilon_second, "epsilon_second")
    t = check_real("threshold", threshold)
    k = check_trials(size)
    check_accountant(accountant)
    check_elements(2.0 * (k or 1), "noisy counts", size=size)
    charge_all(accountant, [("adaptive: count 65+", exact("epsilon_first", e1), Fraction(0)),
                            ("adaptive: count 80+ or under 18 (chosen from the first)",
                             exact("epsilon_second", e2), Fraction(0))], size=size)
    gen = as_generator(rng)
    first = np.atleast_1d(laplace(np.full(k or 1, c[2] + c[3]), 1.0, e1, rng=gen))
    second_truth = np.where(first > t, c[3], c[0])            # the query chosen from the noisy answer
    second = np.atleast_1d(laplace(second_truth, 1.0, e2, rng=gen))
    out = np.stack([first, second], axis=-1)
    return out if k is not None else out[0]
