"""The selection mechanisms by name: run one, or get its exact selection probabilities.

``MECHANISMS`` maps each name to what it is:

* ``"exponential"``: the exponential mechanism [MT07] (:mod:`dpviz.selection.exponential_mechanism`);
* ``"rnm-gumbel"``: report-noisy-max with Gumbel noise, the same distribution drawn another way;
* ``"rnm-laplace"``: report-noisy-max with Laplace noise [DR14];
* ``"permute-and-flip"``: permute-and-flip [MS20], identical to report-noisy-max with exponential noise.

All are epsilon-DP with the selection scale of :func:`dpviz.mechanisms.selection_scale`.  This is the menu the
explorer of lecture 09 offers.

References
----------
- [MT07] F. McSherry, K. Talwar. "Mechanism Design via Differential Privacy." FOCS 2007.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
  TCS 9(3-4), 2014.
- [MS20] R. McKenna, D. Sheldon. "Permute-and-Flip: A New Mechanism for Differentially Private Selection."
  NeurIPS 2020.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import PrivacyAccountant
from dpviz.rng import RngLike
from dpviz.selection.exponential_mechanism import exponential_log_probabilities, exponential_select
from dpviz.selection.noisy_max_exact import noisy_max_log_probabilities
from dpviz.selection.permute_and_flip import permute_and_flip_log_probabilities, permute_and_flip_select
from dpviz.selection.report_noisy_max import noisy_max_select
from dpviz.selection.scores import _from_logs, _scores
from dpviz.validation import check_choice

__all__ = ["MECHANISMS", "select", "selection_log_probabilities", "selection_probabilities"]

#: The selection mechanisms by name, with a one-line description.
MECHANISMS = {
    "exponential": "exponential mechanism: P(r) proportional to exp(epsilon u_r / (2 Delta))",
    "rnm-gumbel": "report-noisy-max with Gumbel noise (the exponential mechanism, drawn by adding noise)",
    "rnm-laplace": "report-noisy-max with Laplace noise",
    "permute-and-flip": "permute-and-flip (report-noisy-max with exponential noise)",
}


def select(scores: ArrayLike, epsilon: float, mechanism: str = "exponential", sensitivity: float = 1.0, *,
           monotone: bool = False, rng: RngLike = None, size: int | None = None,
           accountant: PrivacyAccountant | None = None) -> int | np.ndarray:
    """Run the named selection mechanism of ``MECHANISMS``: the index of the chosen candidate.

    Each mechanism runs its own algorithm: the exponential mechanism samples its probabilities, the
    report-noisy-max variants add noise and take the largest, permute-and-flip shuffles and flips coins.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    epsilon : float
        Privacy parameter of one release, finite and > 0.
    mechanism : {"exponential", "rnm-gumbel", "rnm-laplace", "permute-and-flip"}, default "exponential"
        Which mechanism.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone (noise of scale ``Delta / epsilon`` instead of ``2 Delta / epsilon``).
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent releases; None (default) for one.
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` before anything is drawn.

    Returns
    -------
    int or numpy.ndarray of int
        The chosen candidate, or ``size`` of them.

    Raises
    ------
    ValueError
        For an unknown mechanism or as the mechanism's own function.
    TypeError
        If an argument has the wrong type.
    BudgetExceededError
        If the accountant cannot afford ``size * epsilon``.

    References
    ----------
    See the module's references.

    Examples
    --------
    >>> select([3.0, 2.0, 0.0], 1.0, "permute-and-flip", rng=0, size=4).tolist()
    [1, 0, 0, 2]
    """
    mechanism = check_choice("mechanism", mechanism, MECHANISMS)
    if mechanism == "exponential":
        return exponential_select(scores, epsilon, sensitivity, monotone=monotone, rng=rng, size=size,
                                  accountant=accountant)
    if mechanism == "permute-and-flip":
        return permute_and_flip_select(scores, epsilon, sensitivity, monotone=monotone, rng=rng, size=size,
                                       accountant=accountant)
    noise = "gumbel" if mechanism == "rnm-gumbel" else "laplace"
    return noisy_max_select(scores, epsilon, noise, sensitivity, monotone=monotone, rng=rng, size=size,
                            accountant=accountant)


def selection_log_probabilities(scores: ArrayLike, epsilon: float, mechanism: str = "exponential",
                                sensitivity: float = 1.0, *, monotone: bool = False) -> np.ndarray:
    """Natural logarithms of the named mechanism's exact selection probabilities.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    epsilon : float
        Privacy parameter, finite and > 0.
    mechanism : {"exponential", "rnm-gumbel", "rnm-laplace", "permute-and-flip"}, default "exponential"
        Which mechanism.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone.

    Returns
    -------
    numpy.ndarray, shape (m,)
        ``ln P(r)`` for every candidate.

    Raises
    ------
    ValueError
        For an unknown mechanism or as the mechanism's own function.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references.

    Examples
    --------
    >>> np.exp(selection_log_probabilities([1.0, 0.0], 2.0, "rnm-gumbel")).round(4)
    array([0.7311, 0.2689])
    """
    u = _scores(scores)
    mechanism = check_choice("mechanism", mechanism, MECHANISMS)
    if mechanism in ("exponential", "rnm-gumbel"):
        return exponential_log_probabilities(u, epsilon, sensitivity, monotone=monotone)
    if mechanism == "permute-and-flip":
        return permute_and_flip_log_probabilities(u, epsilon, sensitivity, monotone=monotone)
    return noisy_max_log_probabilities(u, epsilon, "laplace", sensitivity, monotone=monotone)


def selection_probabilities(scores: ArrayLike, epsilon: float, mechanism: str = "exponential",
                            sensitivity: float = 1.0, *, monotone: bool = False) -> np.ndarray:
    """The named mechanism's exact selection probabilities (closed forms; quadrature for Laplace noise).

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    epsilon : float
        Privacy parameter, finite and > 0.
    mechanism : {"exponential", "rnm-gumbel", "rnm-laplace", "permute-and-flip"}, default "exponential"
        Which mechanism.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone.

    Returns
    -------
    numpy.ndarray, shape (m,)
        The probabilities, summing to 1.

    Raises
    ------
    ValueError
        For an unknown mechanism or as the mechanism's own function.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references.

    Examples
    --------
    >>> selection_probabilities([3.0, 2.0, 0.0], 1.0, "rnm-laplace").round(4)
    array([0.5573, 0.3324, 0.1104])
    """
    return _from_logs(selection_log_probabilities(scores, epsilon, mechanism, sensitivity, monotone=monotone))
