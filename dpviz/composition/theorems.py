"""Composition theorems: the total privacy cost of running several mechanisms.

* basic sequential composition: k mechanisms, each (eps, delta)-DP, are
  (k eps, k delta)-DP [DMNS06]_;
* advanced composition [DRV10]_ (Dwork & Roth Thm 3.20): for any delta' > 0
  they are (eps', k delta + delta')-DP with
  ``eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1)``; it charges less than
  basic composition from ``k > 2 ln(1/delta') / (2 - e^eps)^2`` on
  (:func:`advanced_crossover`), and never when ``e^eps >= 2``;
* the optimal composition [KOV15]_: the exact smallest eps' for which *every*
  k-fold composition of eps-DP mechanisms is (eps', delta')-DP, attained by
  randomized response, whose total loss is ``eps (k - 2 B)`` with ``B`` binomial
  (:func:`optimal_composition`);
* group privacy: an eps-DP mechanism protects a group of g records with ``g eps``
  ([DR14]_ Thm 2.2, pure DP only); an (eps, delta)-DP mechanism with
  ``(g eps, delta (1 + e^eps + ... + e^((g-1) eps)))`` (the same chain D_0, D_1, ...,
  D_g of neighbours, one record at a time; [Vad17]_ Lemma 2.2).

All of these hold for adaptive composition too (each mechanism may be chosen from the outputs of the earlier
ones).  Parallel composition (parts fixed by a per-record rule cost the maximum) is charged by
:meth:`dpviz.accountant.PrivacyAccountant.spend_parallel`; :mod:`dpviz.composition.partitions` shows when it fails.

References
----------
.. [DMNS06] Dwork, McSherry, Nissim, Smith. TCC 2006.
.. [DRV10] C. Dwork, G. Rothblum, S. Vadhan. "Boosting and Differential Privacy." FOCS 2010.
.. [KOV15] P. Kairouz, S. Oh, P. Viswanath. "The Composition Theorem for Differential Privacy." ICML 2015
   (Theorem 3.3).
.. [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
   Theoretical Computer Science 9(3-4), 2014.
.. [Vad17] S. Vadhan. "The Complexity of Differential Privacy." In Tutorials on the Foundations of Cryptography,
   Springer 2017.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from dpviz.composition.loss_distribution import LossDistribution, loss_epsilon
from dpviz.validation import check_delta, check_elements, check_epsilon, check_int

__all__ = ["basic_composition", "advanced_composition", "advanced_epsilon_per_query", "advanced_crossover",
           "optimal_composition"]


#: Largest number of composed mechanisms the theorems accept (k is turned into a float; 10**15 is exact).
MAX_K = 10**15


def _log_inverse(p: float) -> float:
    """``ln(1/p)``, also for a subnormal p (whose reciprocal overflows to inf): then ``-ln(p)``, its equal."""
    inv = 1.0 / p
    return math.log(inv) if math.isfinite(inv) else -math.log(p)


def _finite_total(total: float, epsilon: float, k: int) -> float:
    """The composed epsilon, refused (naming epsilon and k) if it overflows."""
    if not math.isfinite(total):
        raise ValueError(f"epsilon={epsilon!r} composed k={k} times overflows: lower epsilon or k")
    return total


def _total_delta(total: float, delta: float, k: int, *, delta_prime: float = 0.0) -> float:
    """The composed delta, refused if it reaches 1 (the guarantee would say nothing)."""
    if total >= 1:
        extra = f" + delta_prime={delta_prime!r}" if delta_prime else ""
        raise ValueError(f"k={k} x delta={delta!r}{extra} = {total:g} >= 1: the composed guarantee would be vacuous "
                         "(it bounds no probability); lower delta or k")
    return total

def basic_composition(epsilon: float, k: int, delta: float = 0.0) -> tuple[float, float]:
    """Total cost of k (epsilon, delta)-DP mechanisms by basic sequential composition: ``(k eps, k delta)`` [DMNS06].

    Parameters
    ----------
    epsilon : float
        Epsilon of each mechanism, finite and > 0.
    k : int
        Number of mechanisms run on the same data, >= 1.
    delta : float, default 0
        Delta of each mechanism, in [0, 1).

    Returns
    -------
    tuple of float
        The total ``(epsilon, delta)``.

    Raises
    ------
    ValueError, TypeError
        For an invalid ``epsilon``, ``k`` (at most :data:`MAX_K`) or ``delta``, a composed epsilon that overflows,
        or a composed delta that reaches 1.

    Examples
    --------
    >>> basic_composition(0.25, 4)
    (1.0, 0.0)
    """
    eps = check_epsilon(epsilon)
    k = check_int("k", k, minimum=1, maximum=MAX_K)
    dlt = check_delta(delta, allow_zero=True)
    return _finite_total(k * eps, epsilon, k), _total_delta(k * dlt, delta, k)


def advanced_composition(epsilon: float, k: int, delta_prime: float, delta: float = 0.0) -> tuple[float, float]:
    """Total cost of k (eps, delta)-DP mechanisms by advanced composition [DRV10].

    The k-fold adaptive composition is
    ``(sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), k delta + delta')``-DP for
    any ``delta' > 0`` (Dwork & Roth, Thm 3.20).

    Parameters
    ----------
    epsilon : float
        Epsilon of each mechanism, finite and > 0.
    k : int
        Number of mechanisms, >= 1.
    delta_prime : float
        The extra failure probability delta' spent by the theorem, in (0, 1).
    delta : float, default 0
        Delta of each mechanism, in [0, 1).

    Returns
    -------
    tuple of float
        The total ``(epsilon', k delta + delta')``.

    Raises
    ------
    ValueError, TypeError
        For an invalid parameter (``k`` at most :data:`MAX_K`), a composed epsilon that overflows, or a composed
        delta ``k delta + delta'`` that reaches 1.

    Examples
    --------
    >>> e, d = advanced_composition(0.01, 10_000, 1e-6)
    >>> round(e, 3), d
    (6.262, 1e-06)
    """
    eps = check_epsilon(epsilon)
    k = check_int("k", k, minimum=1)
    dp = check_delta(delta_prime, "delta_prime")
    dlt = check_delta(delta, allow_zero=True)
    try:
        total = math.sqrt(2 * k * _log_inverse(dp)) * eps + k * eps * math.expm1(eps)
    except OverflowError:
        total = math.inf
    return _finite_total(total, epsilon, k), _total_delta(k * dlt + dp, delta, k, delta_prime=dp)


def advanced_epsilon_per_query(total_epsilon: float, k: int, delta_prime: float) -> float:
    """Largest per-query epsilon whose k-fold advanced composition stays within ``total_epsilon``.

    Solves ``sqrt(2k ln(1/delta')) e + k e (exp(e) - 1) = total_epsilon`` for ``e`` (the left side
    increases in ``e``).  Compare with ``total_epsilon / k`` from basic composition: advanced
    composition pays off when its answer is larger.

    Parameters
    ----------
    total_epsilon : float
        The total epsilon budget, finite and > 0.
    k : int
        Number of queries, >= 1.
    delta_prime : float
        The extra delta' spent by advanced composition, in (0, 1).

    Returns
    -------
    float
        The per-query epsilon (found by root finding).

    Raises
    ------
    ValueError, TypeError
        For an invalid parameter (``k`` at most :data:`MAX_K`), or a per-query epsilon that underflows to 0.

    Examples
    --------
    >>> round(advanced_epsilon_per_query(1.0, 100, 1e-6), 5)
    0.01838
    """
    total = check_epsilon(total_epsilon, "total_epsilon")
    k = check_int("k", k, minimum=1, maximum=MAX_K)
    dp = check_delta(delta_prime, "delta_prime")
    f = lambda e: math.sqrt(2 * k * _log_inverse(dp)) * e + k * e * math.expm1(e) - total  # noqa: E731
    # a root e >= 1 has k e expm1(e) <= total, so e <= log1p(total / k): a bracket that never overflows
    # (used only for large totals, where expm1(total) would overflow; smaller totals keep their old bracket)
    hi = total if total <= 700.0 else max(1.0, math.log1p(total / k))
    while f(hi) < 0:
        hi *= 2
    e = float(optimize.brentq(f, 0.0, hi, xtol=1e-15, rtol=1e-13))
    if not e > 0:
        raise ValueError(f"total_epsilon={total_epsilon!r} over k={k} queries leaves a per-query epsilon that "
                         "underflows to 0: raise total_epsilon or lower k")
    return e


def advanced_crossover(epsilon: float, delta_prime: float) -> int | None:
    """The smallest k at which advanced composition charges less than basic composition's ``k eps``.

    ``sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1) < k eps`` holds exactly when
    ``k > 2 ln(1/delta') / (2 - e^eps)^2`` (square both sides of ``sqrt(2 ln(1/delta') / k) < 2 - e^eps``).

    Parameters
    ----------
    epsilon : float
        Epsilon of each mechanism, finite and > 0.
    delta_prime : float
        The delta' advanced composition spends, in (0, 1).

    Returns
    -------
    int or None
        The smallest such k, or None when ``e^eps >= 2`` (advanced composition never charges less).

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon or delta_prime.

    Examples
    --------
    >>> advanced_crossover(0.1, 1e-6), advanced_crossover(1.0, 1e-6)
    (35, None)
    """
    eps = check_epsilon(epsilon)
    dp = check_delta(delta_prime, "delta_prime")
    gap = 2.0 - math.exp(min(eps, 1.0))
    if gap <= 0:
        return None
    return math.floor(2.0 * _log_inverse(dp) / gap**2) + 1


#: Largest k :func:`optimal_composition` takes (its binomial has k + 1 outcomes).
MAX_OPTIMAL_K = 10**7


def optimal_composition(epsilon: float, k: int, delta_prime: float) -> float:
    """The exact smallest total epsilon at delta' that holds for every k-fold composition of eps-DP mechanisms.

    Kairouz, Oh & Viswanath (ICML 2015, Theorem 3.3): the worst case is randomized response, whose total loss is
    ``eps (k - 2 B)`` with ``B ~ Binomial(k, 1 / (1 + e^eps))``; its exact delta curve is inverted with
    :func:`dpviz.composition.loss_distribution.loss_epsilon`.  Advanced composition is an upper bound on this value;
    a particular mechanism (e.g. Laplace) can do better.

    Parameters
    ----------
    epsilon : float
        Epsilon of each mechanism, finite and > 0.
    k : int
        Number of mechanisms, 1 <= k <= :data:`MAX_OPTIMAL_K`.
    delta_prime : float
        The total delta allowed, in [0, 1).

    Returns
    -------
    float
        The optimal total epsilon (``k eps`` when delta' is 0 or below the chance ``(e^eps / (1 + e^eps))^k`` of
        the largest loss).

    Raises
    ------
    ValueError, TypeError
        For an invalid parameter.

    References
    ----------
    P. Kairouz, S. Oh, P. Viswanath. "The Composition Theorem for Differential Privacy." ICML 2015.

    Examples
    --------
    >>> round(optimal_composition(0.1, 100, 1e-6), 4), optimal_composition(0.1, 100, 0.0)
    (4.7746, 10.0)
    """
    eps = check_epsilon(epsilon)
    k = check_int("k", k, minimum=1, maximum=MAX_OPTIMAL_K)
    dp = check_delta(delta_prime, "delta_prime", allow_zero=True)
    check_elements(float(k) + 1, "outcomes of the binomial", k=k)
    total = _finite_total(k * eps, epsilon, k)
    if dp == 0.0:
        return total
    # only losses > eps' >= 0 enter delta(eps'): B = 0..k//2 flips (losses eps (k - 2B) >= 0); the rest of the
    # mass sits at negative losses and is lumped at the largest of them, which changes no delta(eps' >= 0)
    flips = np.arange(k // 2, -1, -1)
    log_q = -np.logaddexp(0.0, eps)                      # ln P[flip] = ln 1/(1 + e^eps)
    log_keep = -np.logaddexp(0.0, -eps)                  # ln P[no flip] = ln e^eps/(1 + e^eps)
    log_pmf = (special.gammaln(k + 1) - special.gammaln(flips + 1) - special.gammaln(k - flips + 1)
               + flips * log_q + (k - flips) * log_keep)
    probs = np.exp(log_pmf)
    rest = max(0.0, 1.0 - float(probs.sum()))
    losses = np.concatenate([[eps * (k - 2.0 * (k // 2 + 1))], eps * (k - 2.0 * flips)])
    probs = np.concatenate([[rest], probs])
    probs /= max(1.0, float(probs.sum()))
    return min(loss_epsilon(LossDistribution(losses, probs), dp), total)
