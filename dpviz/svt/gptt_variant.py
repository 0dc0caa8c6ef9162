"""Generalized private threshold testing (GPTT): SVT without the halt -- NOT differentially private.

GPTT ([CM15]_ Alg. 2) draws one noisy threshold ``T^ = T + Lap(Delta/eps1)``
and answers every query ``q_i + Lap(Delta/eps2)`` (no query noise when
``eps2 = inf``) with ``ABOVE`` or ``BELOW``, never halting.  Prior work claimed
it is ``(eps1 + eps2)``-DP; **it is NOT differentially private for any finite
epsilon** ([CM15]_ Thm 4.7): see :mod:`dpviz.svt.counterexample` for the proof
by exact computation and :mod:`dpviz.svt.attack` for the reconstruction attack.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from dpviz.mechanisms import laplace_scale, scaled_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_elements,
    check_epsilon,
    check_positive,
    check_real,
    check_trials,
)

__all__ = ["gptt_noise_scales", "gptt"]


def _query_epsilon(epsilon_query: float | None) -> float:
    """``None`` or ``inf`` -> inf (no query noise); otherwise a finite epsilon > 0."""
    if epsilon_query is None:
        return math.inf
    return check_positive("epsilon_query", epsilon_query, allow_inf=True)


def gptt_noise_scales(epsilon_threshold: float, epsilon_query: float | None = None, *,
                      sensitivity: float = 1.0) -> tuple[float, float]:
    """Laplace scales ``(Delta/eps1, Delta/eps2)`` of GPTT; ``b_query = 0`` when there is no query noise.

    GPTT is **NOT differentially private** ([CM15] Thm 4.7): prior work claimed
    these scales make it ``(eps1 + eps2)``-DP, and the claim is false.  Both
    scales come from :func:`dpviz.mechanisms.laplace_scale`.

    Parameters
    ----------
    epsilon_threshold : float
        eps1, the budget of the threshold noise, finite and > 0.
    epsilon_query : float or None, default None
        eps2, the budget of the query noise; None or inf means no query noise.
    sensitivity : float, default 1
        Delta, the bound on the sensitivity of every query, > 0.

    Returns
    -------
    b_threshold : float
        Scale ``Delta / eps1`` of the threshold noise.
    b_query : float
        Scale ``Delta / eps2`` of the query noise, 0 without query noise.

    Raises
    ------
    ValueError, TypeError
        If ``epsilon_threshold`` is not finite and > 0, ``epsilon_query`` is not
        None or > 0, or ``sensitivity`` is not finite and > 0.

    References
    ----------
    See [CM15] (Alg. 2, Thm 4.7) in the module docstring.

    Examples
    --------
    >>> gptt_noise_scales(0.5, 2.0)
    (2.0, 0.5)
    >>> gptt_noise_scales(1.0)          # no query noise
    (1.0, 0.0)
    """
    eps1 = check_epsilon(epsilon_threshold, "epsilon_threshold")
    eps2 = _query_epsilon(epsilon_query)
    delta = check_positive("sensitivity", sensitivity)
    return (laplace_scale(delta, eps1, name="epsilon_threshold"),
            0.0 if math.isinf(eps2) else laplace_scale(delta, eps2, name="epsilon_query"))


def gptt(answers: npt.ArrayLike, threshold: float, epsilon_threshold: float, epsilon_query: float | None = None, *,
         sensitivity: float = 1.0, rng: RngLike = None, size: int | None = None) -> np.ndarray:
    """Generalized private threshold testing -- **NOT differentially private** ([CM15] Thm 4.7).

    Like :func:`sparse_vector` but never halts: one noisy threshold
    ``T^ = T + Lap(Delta/eps1)``, each query ``q_i + Lap(Delta/eps2)`` (no query noise
    when ``epsilon_query`` is None or inf), and the answer ``ABOVE`` (1) if
    ``q_i + nu_i >= T^``, ``BELOW`` (0) otherwise, for every query ([CM15] Alg. 2;
    Lee & Clifton 2014 use eps1 = eps/4, eps2 = 3eps/4; Chen et al. 2015 eps/2 each;
    Stoddard et al. 2014 eps1 = eps, no query noise).  Prior work claimed
    ``(eps1 + eps2)``-DP independent of the number of queries; the claim is false
    (see :func:`counterexample_probability` and :func:`reconstruct`).  No
    accountant is accepted: there is no valid epsilon to charge.

    Parameters
    ----------
    answers : array_like, shape (m,)
        True query answers.
    threshold : float
        The public threshold T.
    epsilon_threshold : float
        eps1 of the threshold noise, > 0.
    epsilon_query : float or None, default None
        eps2 of the query noise; None or inf means no query noise.
    sensitivity : float, default 1
        Delta, the bound on each query's sensitivity.
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent runs, stacked on a new first axis.

    Returns
    -------
    numpy.ndarray of int8, shape (m,) or (size, m)
        ``ABOVE`` (1) or ``BELOW`` (0) per query.

    Raises
    ------
    ValueError, TypeError
        If ``answers`` is not a finite 1-D array, ``threshold`` not a finite
        number (a bool is refused), a budget or the sensitivity not > 0, ``size``
        not an int >= 1, or ``size * len(answers)`` above
        :data:`dpviz.validation.MAX_ELEMENTS`.  Passing ``accountant`` is a
        TypeError: GPTT is not DP, so no ledger can record it.

    References
    ----------
    See [CM15] (Alg. 2, Thm 4.7) in the module docstring.

    Examples
    --------
    >>> gptt([0, 3, 1, 2], threshold=1.5, epsilon_threshold=1.0, rng=0)
    array([0, 1, 0, 1], dtype=int8)
    """
    answers = check_array("answers", answers, ndim=1)
    threshold = check_real("threshold", threshold)
    b_thr, b_q = gptt_noise_scales(epsilon_threshold, epsilon_query, sensitivity=sensitivity)
    size = check_trials(size)
    check_elements(float(size or 1) * answers.size, "GPTT answers", size=size, **{"len(answers)": answers.size})
    gen = as_generator(rng)
    k = 1 if size is None else size
    rho = scaled_laplace(b_thr, (k, 1), rng=gen)
    noisy = answers[None, :] + (scaled_laplace(b_q, (k, answers.size), rng=gen) if b_q > 0 else 0.0)
    out = (noisy >= threshold + rho).astype(np.int8)
    return out[0] if size is None else out
