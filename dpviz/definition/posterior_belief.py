"""The Bayesian reading of epsilon: how far one output can move an adversary's belief about one person.

An adversary who knows every record but one person's hesitates between two neighbouring datasets: D (with
the person, or with their "yes") and D' (without, or with their "no").  With prior probability ``pi`` on D,
seeing an output o gives the posterior odds

    P[D | o] / P[D' | o] = (pi / (1 - pi)) * P[M(D) = o] / P[M(D') = o],

so for an eps-DP mechanism the log-odds move by the privacy loss of o, at most eps: the posterior lies in
``[expit(logit(pi) - eps), expit(logit(pi) + eps)]`` whatever the output.  Randomized response attains the
bound.  Against an adversary who knows less, the promise is relative: what anyone concludes from M(D) is
close to what they would conclude had the person's record not been used [KS14].

References
----------
- [KS14] S. P. Kasiviswanathan, A. Smith. "On the 'Semantics' of Differential Privacy: A Bayesian
  Formulation." Journal of Privacy and Confidentiality 6(1), 2014.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends
  in TCS 9(3-4), 2014, Section 2.3.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from dpviz.validation import check_array, check_epsilon

__all__ = ["posterior", "posterior_bounds"]


def _priors(prior: ArrayLike) -> np.ndarray:
    """Prior probabilities strictly between 0 and 1 (a certain prior cannot move), as a float array."""
    p = check_array("prior", prior)
    if p.size == 0:
        raise ValueError("prior must not be empty")
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError(f"prior must lie in (0, 1), got {p[(p <= 0) | (p >= 1)].ravel()[0]}")
    return p


def posterior(prior: ArrayLike, likelihood: ArrayLike, likelihood_prime: ArrayLike) -> np.ndarray:
    """Bayes' rule for two hypotheses: ``pi L / (pi L + (1 - pi) L')``.

    Parameters
    ----------
    prior : array_like
        Prior probability ``pi`` of D, in (0, 1) (broadcast against the likelihoods).
    likelihood : array_like
        ``P[M(D) = o]`` (or the density) of the output seen; finite and >= 0.
    likelihood_prime : array_like
        ``P[M(D') = o]`` of the same output.

    Returns
    -------
    numpy.ndarray
        The posterior probability of D given the output (NaN where both likelihoods are 0: the output is
        impossible under both).

    Raises
    ------
    ValueError
        If a prior is outside (0, 1), a likelihood is negative or non-finite, or the shapes do not broadcast.
    TypeError
        If an argument does not hold numbers.

    Examples
    --------
    >>> posterior([0.1, 0.1], [0.75, 0.25], [0.25, 0.75]).round(4)    # randomized response at eps = ln 3:
    array([0.25  , 0.0357])
    """
    pi = _priors(prior)
    like, like_prime = check_array("likelihood", likelihood), check_array("likelihood_prime", likelihood_prime)
    for name, arr in (("likelihood", like), ("likelihood_prime", like_prime)):
        if np.any(arr < 0):
            raise ValueError(f"{name} must be >= 0 (a probability or density)")
    try:
        num, other = np.broadcast_arrays(pi * like, (1.0 - pi) * like_prime)
    except ValueError:
        raise ValueError(f"prior, likelihood and likelihood_prime must broadcast together, got shapes "
                         f"{pi.shape}, {like.shape}, {like_prime.shape}") from None
    with np.errstate(invalid="ignore"):
        return np.asarray(num / (num + other))


def posterior_bounds(prior: ArrayLike, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest posterior an eps-DP output can give an informed adversary with prior ``pi``.

    ``expit(logit(pi) -+ eps)``: the log-odds move by at most eps (module docstring).  For a small prior
    the upper bound is about ``e^eps pi``.

    Parameters
    ----------
    prior : array_like
        Prior probability of D, in (0, 1), any shape.
    epsilon : float
        Privacy parameter, finite and > 0.

    Returns
    -------
    tuple of numpy.ndarray
        ``(lowest, highest)`` posterior, each of the shape of ``prior``.

    Raises
    ------
    ValueError
        If a prior is outside (0, 1) or ``epsilon`` is not finite and > 0.
    TypeError
        If an argument does not hold numbers.

    Examples
    --------
    >>> low, high = posterior_bounds([0.01, 0.5], 1.0)
    >>> high.round(4)
    array([0.0268, 0.7311])
    """
    pi = _priors(prior)
    epsilon = check_epsilon(epsilon)
    log_odds = special.logit(pi)
    return np.asarray(special.expit(log_odds - epsilon)), np.asarray(special.expit(log_odds + epsilon))
