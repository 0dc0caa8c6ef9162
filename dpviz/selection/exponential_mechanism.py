"""The exponential mechanism: pick candidate r with probability proportional to ``exp(epsilon u_r / (2 Delta))``.

**Privacy** [MT07].  For neighbours D, D' every score moves by at most Delta, so the numerator
``exp(epsilon u_r / (2 Delta))`` changes by a factor of at most ``e^{epsilon/2}`` and so does the normaliser
``sum_s exp(epsilon u_s / (2 Delta))``: the probability of every output changes by at most ``e^epsilon``.  When
the scores are monotone (all move the same way, e.g. counts under add/remove-one), numerator and normaliser
move together and ``exp(epsilon u_r / Delta)`` is epsilon-DP ([DR14] Section 3.4).  Both cases use the scale
``s`` of :func:`dpviz.mechanisms.selection_scale`: ``P(r) = exp(u_r / s) / sum_s exp(u_s / s)``, a softmax.

**Utility** ([MT07]; [DR14] Theorem 3.11 and Corollary 3.12).  With m candidates and best score OPT,
``P(u_chosen <= OPT - s (ln m + t)) <= e^{-t}`` for every t >= 0, and hence
``E[OPT - u_chosen] <= s (ln m + 1)``.

References
----------
- [MT07] F. McSherry, K. Talwar. "Mechanism Design via Differential Privacy." FOCS 2007.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
  TCS 9(3-4), 2014, Section 3.4.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp

from dpviz.accountant import PrivacyAccountant, charge
from dpviz.mechanisms import selection_scale, standard_uniform
from dpviz.rng import RngLike, as_generator
from dpviz.selection.scores import _from_logs, _scores, _standardised
from dpviz.validation import check_bool, check_elements, check_int, check_nonnegative, check_trials

__all__ = ["exponential_log_probabilities", "exponential_probabilities", "exponential_select",
           "exponential_utility_gap"]


def exponential_log_probabilities(scores: ArrayLike, epsilon: float, sensitivity: float = 1.0, *,
                                  monotone: bool = False) -> np.ndarray:
    """Natural logarithms of the exponential mechanism's selection probabilities (a log-softmax).

    ``ln P(r) = u_r / s - ln sum_q exp(u_q / s)`` with ``s`` = :func:`dpviz.mechanisms.selection_scale`,
    computed from ``(u - max u) / s`` so that no weight overflows and tiny probabilities keep their
    relative accuracy (what exact privacy-loss ratios need).

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite, higher is better.
    epsilon : float
        Privacy parameter, finite and > 0.
    sensitivity : float, default 1.0
        Delta: the largest change of any one score between neighbours, > 0.
    monotone : bool, default False
        Whether the scores are monotone (then ``s = Delta / epsilon`` instead of ``2 Delta / epsilon``).

    Returns
    -------
    numpy.ndarray, shape (m,)
        ``ln P(r)`` for every candidate (``-inf`` only where ``P(r)`` underflows even in logarithms).

    Raises
    ------
    ValueError
        If the scores are not a non-empty 1-D finite array, or epsilon or sensitivity is not > 0.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references: [MT07], [DR14].

    Examples
    --------
    >>> np.exp(exponential_log_probabilities([2.0, 0.0], epsilon=1.0)).round(4)
    array([0.7311, 0.2689])
    """
    u = _scores(scores)
    s = selection_scale(sensitivity, epsilon, monotone=check_bool("monotone", monotone))
    z = _standardised(u, s)
    return z - logsumexp(z)


def exponential_probabilities(scores: ArrayLike, epsilon: float, sensitivity: float = 1.0, *,
                              monotone: bool = False) -> np.ndarray:
    """The exponential mechanism's selection probabilities: ``P(r)`` proportional to ``exp(u_r / s)``.

    ``s = 2 Delta / epsilon`` (``Delta / epsilon`` for monotone scores): see
    :func:`dpviz.mechanisms.selection_scale` and the module docstring for why this is epsilon-DP.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite, higher is better.
    epsilon : float
        Privacy parameter, finite and > 0.
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
        As :func:`exponential_log_probabilities`.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references: [MT07], [DR14].

    Examples
    --------
    >>> exponential_probabilities([3.0, 2.0, 0.0], epsilon=1.0).round(4)
    array([0.5465, 0.3315, 0.122 ])
    """
    return _from_logs(exponential_log_probabilities(scores, epsilon, sensitivity, monotone=monotone))


def exponential_select(scores: ArrayLike, epsilon: float, sensitivity: float = 1.0, *, monotone: bool = False,
                       rng: RngLike = None, size: int | None = None,
                       accountant: PrivacyAccountant | None = None) -> int | np.ndarray:
    """Run the exponential mechanism: the index of the chosen candidate, drawn from its exact probabilities.

    Draws by inverting the cumulative distribution of :func:`exponential_probabilities` (one uniform number
    per release), not by adding noise, so that comparing it with report-noisy-max under Gumbel noise
    (:func:`dpviz.selection.noisy_max_select`) compares two different samplers of the same distribution.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    epsilon : float
        Privacy parameter of one release, finite and > 0.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases; None (default) for one.
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (one epsilon per release) before anything is drawn.

    Returns
    -------
    int or numpy.ndarray of int
        The chosen candidate, or ``size`` of them.

    Raises
    ------
    ValueError
        As :func:`exponential_probabilities`, or for ``size`` < 1 or above the allocation cap.
    TypeError
        If an argument has the wrong type.
    BudgetExceededError
        If the accountant cannot afford ``size * epsilon`` (nothing is recorded or drawn).

    References
    ----------
    See the module's references: [MT07], [DR14].

    Examples
    --------
    >>> exponential_select([3.0, 2.0, 0.0], 1.0, rng=0, size=5).tolist()
    [1, 0, 0, 0, 1]
    """
    p = exponential_probabilities(scores, epsilon, sensitivity, monotone=monotone)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(float(k), "releases", size=size)
    gen = as_generator(rng)
    charge(accountant, epsilon, size=size, label="exponential mechanism")
    cdf = np.cumsum(p)
    picks = np.minimum(np.searchsorted(cdf, standard_uniform(k, rng=gen) * cdf[-1], side="right"), p.size - 1)
    return int(picks[0]) if size is None else picks.astype(np.int64)


def exponential_utility_gap(epsilon: float, candidates: int, t: float, sensitivity: float = 1.0, *,
                            monotone: bool = False) -> float:
    """The gap ``s (ln m + t)`` below the best score that the exponential mechanism falls short of w.p. <= e^-t.

    [DR14] Corollary 3.12: ``P(u_chosen <= OPT - (2 Delta / epsilon)(ln m + t)) <= e^{-t}`` for m candidates
    (``Delta / epsilon`` in place of ``2 Delta / epsilon`` for monotone scores).  With ``t = 1`` this is also
    the bound ``s (ln m + 1)`` on the expected shortfall ``E[OPT - u_chosen]`` (integrate the tail bound).

    Parameters
    ----------
    epsilon : float
        Privacy parameter, finite and > 0.
    candidates : int
        m, the number of candidates, >= 1.
    t : float
        The confidence parameter, >= 0 (the bound holds with probability >= ``1 - e^{-t}``).
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone.

    Returns
    -------
    float
        The gap ``s (ln m + t)``.

    Raises
    ------
    ValueError
        If epsilon or sensitivity is not > 0, ``candidates`` < 1 or ``t`` < 0 (or the gap overflows).
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references: [MT07], [DR14] Theorem 3.11, Corollary 3.12.

    Examples
    --------
    >>> round(exponential_utility_gap(1.0, 10, 3.0), 4)
    10.6052
    """
    m = check_int("candidates", candidates, minimum=1)
    tt = check_nonnegative("t", t)
    gap = selection_scale(sensitivity, epsilon, monotone=monotone) * (math.log(m) + tt)
    if not math.isfinite(gap):
        raise ValueError(f"epsilon={epsilon!r}, t={t!r}: the utility gap s (ln m + t) overflows; raise epsilon "
                         "or lower t")
    return gap
