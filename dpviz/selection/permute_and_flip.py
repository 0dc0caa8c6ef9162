"""Permute-and-flip [MS20]: visit the candidates in random order, accept r with probability ``exp((u_r - OPT)/s)``.

**The algorithm.**  Shuffle the m candidates uniformly at random; walk through them and flip a coin for each,
accepting candidate r with probability ``p_r = exp((u_r - OPT) / s)``, where OPT is the best score and ``s``
the selection scale (:func:`dpviz.mechanisms.selection_scale`: ``2 Delta / epsilon``, or ``Delta / epsilon``
for monotone scores).  The best candidate has ``p = 1``, so the walk always stops.  It is epsilon-DP and its
expected score is never below the exponential mechanism's, up to twice closer to OPT [MS20].

**Exact probabilities.**  Permute-and-flip *is* report-noisy-max with exponential noise ``Exp(s)``
[DKSSWXZ21].  In that form r wins when its noisy score ``T = u_r + E_r`` beats every other; with
``y = exp(-(T - OPT) / s)`` the integral ``int f_r(T) prod_{q != r} F_q(T) dT`` becomes

    ``P(r) = p_r int_0^1 prod_{q != r} (1 - p_q y) dy``,

the integral of a polynomial of degree m - 1 on [0, 1].  Gauss-Legendre quadrature with ``ceil(m/2)`` nodes
is exact for it, and every term is positive, so the probabilities keep full relative accuracy.  The tests
check them against enumerating all m! orders of the algorithm itself, and against simulation.

References
----------
- [MS20] R. McKenna, D. Sheldon. "Permute-and-Flip: A New Mechanism for Differentially Private Selection."
  NeurIPS 2020.
- [DKSSWXZ21] Z. Ding, D. Kifer, S. M. Saghaian N. E., T. Steinke, Y. Wang, Y. Xiao, D. Zhang. "The
  Permute-and-Flip Mechanism is Identical to Report-Noisy-Max with Exponential Noise." arXiv:2105.07260, 2021.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp, roots_legendre

from dpviz.accountant import PrivacyAccountant, charge
from dpviz.mechanisms import selection_scale, standard_uniform
from dpviz.rng import RngLike, as_generator
from dpviz.selection.scores import _from_logs, _scores, _standardised
from dpviz.validation import check_elements, check_trials

__all__ = ["permute_and_flip_select", "permute_and_flip_log_probabilities", "permute_and_flip_probabilities"]


def permute_and_flip_select(scores: ArrayLike, epsilon: float, sensitivity: float = 1.0, *, monotone: bool = False,
                            rng: RngLike = None, size: int | None = None,
                            accountant: PrivacyAccountant | None = None) -> int | np.ndarray:
    """Run permute-and-flip: random order, coin ``exp((u_r - OPT) / s)`` per candidate, first head wins.

    The algorithm as [MS20] state it (not its report-noisy-max form), vectorised over releases: each
    release draws a uniform random order (``argsort`` of uniform keys) and one uniform number per candidate.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    epsilon : float
        Privacy parameter of one release, finite and > 0.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone (then ``s = Delta / epsilon``).
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent releases; None (default) for one.
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` before anything is drawn.

    Returns
    -------
    int or numpy.ndarray of int
        The accepted candidate, or ``size`` of them.

    Raises
    ------
    ValueError
        For invalid scores, epsilon or sensitivity not > 0, ``size`` < 1 or ``size`` x m above the cap.
    TypeError
        If an argument has the wrong type.
    BudgetExceededError
        If the accountant cannot afford ``size * epsilon``.

    References
    ----------
    See the module's references: [MS20].

    Examples
    --------
    >>> permute_and_flip_select([3.0, 2.0, 0.0], 1.0, rng=0, size=5).tolist()
    [2, 0, 2, 1, 0]
    """
    u = _scores(scores)
    s = selection_scale(sensitivity, epsilon, monotone=monotone)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(2.0 * k * u.size, "size x candidates keys and coins", size=size, candidates=u.size)
    gen = as_generator(rng)
    charge(accountant, epsilon, size=size, label="permute-and-flip")
    accept = np.exp(_standardised(u, s))                       # p_r = exp((u_r - OPT) / s); the best has p = 1
    order = np.argsort(standard_uniform((k, u.size), rng=gen), axis=1)  # a uniform random order per release
    heads = standard_uniform((k, u.size), rng=gen) < accept[order]      # the coin of the candidate visited at each step
    picks = order[np.arange(k), np.argmax(heads, axis=1)]      # the first head (the best always lands heads)
    return int(picks[0]) if size is None else picks.astype(np.int64)


def permute_and_flip_log_probabilities(scores: ArrayLike, epsilon: float, sensitivity: float = 1.0, *,
                                       monotone: bool = False) -> np.ndarray:
    """Natural logarithms of permute-and-flip's exact selection probabilities.

    ``ln P(r) = ln p_r + ln int_0^1 prod_{q != r} (1 - p_q y) dy`` with ``p_q = exp((u_q - OPT) / s)``, by
    Gauss-Legendre quadrature with ``ceil(m / 2)`` nodes (exact for the degree m - 1 polynomial), summed in
    logarithms: see the module docstring.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    epsilon : float
        Privacy parameter, finite and > 0.
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
        For invalid scores, epsilon or sensitivity not > 0, or m^2 / 2 above the allocation cap.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references: [MS20], [DKSSWXZ21].

    Examples
    --------
    >>> np.exp(permute_and_flip_log_probabilities([1.0, 0.0], epsilon=2.0)).round(4)
    array([0.8161, 0.1839])
    """
    u = _scores(scores)
    s = selection_scale(sensitivity, epsilon, monotone=monotone)
    m = u.size
    n = m // 2 + 1
    check_elements(float(m) * n, "candidates x quadrature nodes", candidates=m)
    x, w = roots_legendre(n)
    y, wy = (x + 1.0) / 2.0, w / 2.0                                  # nodes and weights on [0, 1]
    log_p = _standardised(u, s)                                       # ln p_q, the best at 0
    with np.errstate(divide="ignore"):
        factors = np.log1p(-np.exp(log_p)[:, None] * y[None, :])      # ln(1 - p_q y), shape (m, n); y < 1
    total = factors.sum(axis=0)                                       # ln prod_q (1 - p_q y)
    log_integral = logsumexp(total[None, :] - factors + np.log(wy)[None, :], axis=1)
    return log_p + log_integral


def permute_and_flip_probabilities(scores: ArrayLike, epsilon: float, sensitivity: float = 1.0, *,
                                   monotone: bool = False) -> np.ndarray:
    """Permute-and-flip's exact selection probabilities ``P(r) = p_r int_0^1 prod_{q != r} (1 - p_q y) dy``.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
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
        As :func:`permute_and_flip_log_probabilities`.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references: [MS20], [DKSSWXZ21].

    Examples
    --------
    >>> permute_and_flip_probabilities([3.0, 2.0, 0.0], 1.0).round(4)
    array([0.6303, 0.2807, 0.089 ])
    """
    return _from_logs(permute_and_flip_log_probabilities(scores, epsilon, sensitivity, monotone=monotone))
