"""A discrete privacy-loss distribution and the privacy it gives: delta(eps), its exact inverse, and its tails.

For neighbours D, D' the privacy loss of an output y is ``L(y) = ln(p_D(y) / p_D'(y))`` with y drawn from ``M(D)``.
Its law alone fixes the mechanism's (eps, delta) curve on the pair: ``delta(eps) = E[(1 - e^(eps - L))_+]``
([DR14]_ Sec. 3.5; :func:`loss_delta`), which :func:`loss_epsilon` inverts exactly, and ``delta(eps) <=
P[L > eps]`` (:func:`loss_tail`).  :mod:`dpviz.composition.privacy_loss` builds such laws for Laplace counts;
:func:`dpviz.composition.optimal_composition` builds the binomial law of randomized response.

References
----------
.. [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
   Theoretical Computer Science 9(3-4), 2014, Sec. 3.5 (the privacy loss).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpviz.validation import check_array, check_delta, check_nonnegative, check_real

__all__ = ["LossDistribution", "loss_delta", "loss_epsilon", "loss_tail"]


@dataclass(frozen=True)
class LossDistribution:
    """A discrete privacy-loss distribution: ``P[L = losses[i]] = probs[i]`` for outputs drawn under D.

    Parameters
    ----------
    losses : numpy.ndarray
        The loss values, strictly increasing, finite.
    probs : numpy.ndarray
        Their probabilities under D: >= 0, summing to at most 1 (mass missing from the sum is mass on outputs
        impossible under D', whose loss is +inf: it counts fully in every delta and tail).

    Raises
    ------
    ValueError
        If the arrays are not 1-D of the same length, the losses are not finite and increasing, or the
        probabilities are negative or sum to more than 1.

    Examples
    --------
    >>> d = LossDistribution(np.array([-1.0, 1.0]), np.array([0.25, 0.75]))
    >>> float(d.mean)
    0.5
    """

    losses: np.ndarray
    probs: np.ndarray

    def __post_init__(self) -> None:
        losses = check_array("losses", self.losses, ndim=1)
        probs = check_array("probs", self.probs, ndim=1)
        if losses.shape != probs.shape or losses.size == 0:
            raise ValueError(f"losses and probs must be non-empty and of the same length, got {losses.shape} and "
                             f"{probs.shape}")
        if losses.size > 1 and not np.all(np.diff(losses) > 0):
            raise ValueError("losses must be strictly increasing")
        if np.any(probs < 0) or probs.sum() > 1 + 1e-9:
            raise ValueError(f"probs must be >= 0 and sum to at most 1, got sum {probs.sum():.6g}")
        object.__setattr__(self, "losses", losses)
        object.__setattr__(self, "probs", probs)

    @property
    def mean(self) -> float:
        """The mean loss ``sum(probs * losses)`` (the KL divergence of M(D) from M(D') when probs sum to 1)."""
        return float(np.dot(self.probs, self.losses))


def _missing(dist: LossDistribution) -> float:
    """Probability of outputs impossible under D' (loss +inf): ``1 - sum(probs)``, ignoring rounding below 1e-12."""
    gap = 1.0 - float(dist.probs.sum())
    return gap if gap > 1e-12 else 0.0


def _suffix(dist: LossDistribution) -> tuple[np.ndarray, np.ndarray]:
    """``A[j] = sum_{i >= j} p_i`` and ``log B[j] = log sum_{i >= j} p_i e^(-L_i)`` (index n: empty sums)."""
    p, L = dist.probs, dist.losses
    with np.errstate(divide="ignore"):
        logq = np.log(p) - L
    a = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])
    log_b = np.concatenate([np.logaddexp.accumulate(logq[::-1])[::-1], [-np.inf]])
    return a + _missing(dist), log_b


def loss_delta(dist: LossDistribution, epsilon: float) -> float:
    """The exact delta at epsilon of a mechanism with this loss distribution: ``E[(1 - e^(eps - L))_+]``.

    Parameters
    ----------
    dist : LossDistribution
        The privacy-loss distribution (under D).
    epsilon : float
        Where delta is read, finite and >= 0.

    Returns
    -------
    float
        The smallest delta for which the pair (D, D') satisfies the (epsilon, delta) inequality.

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon or a ``dist`` that is not a :class:`LossDistribution`.

    References
    ----------
    Dwork & Roth 2014, Sec. 3.5.

    Examples
    --------
    >>> rr = LossDistribution(np.array([-1.0, 1.0]), np.array([1 / (1 + np.e), np.e / (1 + np.e)]))
    >>> round(loss_delta(rr, 0.0), 6), loss_delta(rr, 1.0)
    (0.462117, 0.0)
    """
    if not isinstance(dist, LossDistribution):
        raise TypeError(f"dist must be a LossDistribution, got {type(dist).__name__}")
    eps = check_nonnegative("epsilon", epsilon)
    above = dist.losses > eps
    return float(np.sum(dist.probs[above] * -np.expm1(eps - dist.losses[above]))) + _missing(dist)


def loss_epsilon(dist: LossDistribution, delta: float) -> float:
    """The smallest epsilon >= 0 with ``loss_delta(dist, epsilon) <= delta``, computed exactly (no root search).

    Between two consecutive loss values, ``delta(eps) = A - e^eps B`` with A and B sums over the larger losses, so
    the crossing is ``ln((A - delta) / B)`` on the right segment.

    Parameters
    ----------
    dist : LossDistribution
        The privacy-loss distribution (under D).
    delta : float
        The target delta, in [0, 1).

    Returns
    -------
    float
        The epsilon of the mechanism at this delta (0 when ``delta(0) <= delta``).

    Raises
    ------
    ValueError, TypeError
        For an invalid delta or a ``dist`` that is not a :class:`LossDistribution`; ValueError if no finite
        epsilon reaches delta (mass at loss +inf above delta).

    Examples
    --------
    >>> d = LossDistribution(np.array([-1.0, 1.0]), np.array([1 / (1 + np.e), np.e / (1 + np.e)]))
    >>> loss_epsilon(d, 0.0), round(loss_epsilon(d, 0.2), 6)
    (1.0, 0.680379)
    """
    if not isinstance(dist, LossDistribution):
        raise TypeError(f"dist must be a LossDistribution, got {type(dist).__name__}")
    dlt = check_delta(delta, allow_zero=True)
    missing = _missing(dist)
    if missing > dlt:
        raise ValueError(f"delta={delta!r} is below the mass {missing:.3g} on outputs impossible under D': no "
                         "epsilon reaches it")
    if loss_delta(dist, 0.0) <= dlt:
        return 0.0
    a, log_b = _suffix(dist)
    L = dist.losses
    # delta at each loss value L_j >= 0: the losses strictly above it are i >= j + 1
    with np.errstate(over="ignore"):
        at_grid = a[1:] - np.exp(np.minimum(L + log_b[1:], 0.0))
    ok = np.flatnonzero((L >= 0) & (at_grid <= dlt))
    j = int(ok[0])                 # first loss value where delta has dropped to the target (exists: delta(max L) = 0)
    # on (max(L_{j-1}, 0), L_j] the losses above eps are i >= j
    if a[j] - dlt <= 0:
        return float(L[j - 1]) if j > 0 else 0.0
    eps = math.log(a[j] - dlt) - float(log_b[j])
    lower = max(float(L[j - 1]), 0.0) if j > 0 else 0.0
    return float(min(max(eps, lower), L[j]))


def loss_tail(dist: LossDistribution, threshold: float) -> float:
    """``P[L > threshold]``: how often the privacy loss exceeds a level.

    Parameters
    ----------
    dist : LossDistribution
        The privacy-loss distribution (under D).
    threshold : float
        The level t, finite.

    Returns
    -------
    float
        The probability, under D, that the loss exceeds t.  ``delta(t) <= P[L > t]``: a loss that exceeds
        epsilon with probability at most delta gives (epsilon, delta)-DP.

    Raises
    ------
    ValueError, TypeError
        For a threshold that is not a finite number or a ``dist`` that is not a :class:`LossDistribution`.

    Examples
    --------
    >>> loss_tail(LossDistribution(np.array([-1.0, 1.0]), np.array([0.25, 0.75])), 0.0)
    0.75
    """
    if not isinstance(dist, LossDistribution):
        raise TypeError(f"dist must be a LossDistribution, got {type(dist).__name__}")
    t = check_real("threshold", threshold)
    return float(dist.probs[dist.losses > t].sum()) + _missing(dist)
