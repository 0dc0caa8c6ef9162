"""Confidence intervals: Clopper-Pearson for one probability, and the privacy loss of an event from two.

Both are pure functions of hit counts; the auditor and the explorer's
tightening curve call them on the counts they collected.  The papers cited
([CP34], [JUO20]) are listed in :mod:`dpviz.audit`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy import stats

from dpviz.validation import check_array, check_delta, check_open_unit

#: Largest sample count accepted: 2**53, the largest integer a float64 holds exactly (beyond it the beta
#: quantiles return NaN and ``k/n`` is no longer a count ratio).
MAX_TRIALS = 2**53


def _check_counts(k: npt.ArrayLike, n: npt.ArrayLike, k_name: str, n_name: str) -> tuple[_Floats, _Floats]:
    """Validate hit counts ``k`` among ``n`` trials, naming the parameters in every message."""
    for name, value in ((k_name, k), (n_name, n)):
        if isinstance(value, (bool, np.bool_)) or np.asarray(value).dtype == bool:
            raise TypeError(f"{name} must be an integer count, not a bool, got {value!r}")
    k_arr = check_array(k_name, k)
    n_arr = check_array(n_name, n)
    if np.any(n_arr < 1) or np.any(n_arr != np.round(n_arr)) or np.any(n_arr > MAX_TRIALS):
        raise ValueError(f"{n_name} must hold integers with 1 <= {n_name} <= 2**53, "
                         f"got {n_arr.ravel()[:5].tolist()}")
    if np.any(k_arr < 0) or np.any(k_arr != np.round(k_arr)):
        raise ValueError(f"{k_name} must hold integers >= 0, got {k_arr.ravel()[:5].tolist()}")
    try:
        k_b, n_b = np.broadcast_arrays(k_arr, n_arr)
    except ValueError:
        raise ValueError(f"{k_name} and {n_name} must broadcast together, got shapes {k_arr.shape} and "
                         f"{n_arr.shape}") from None
    if np.any(k_b > n_b):
        raise ValueError(f"{k_name} must hold integers with 0 <= {k_name} <= {n_name}, "
                         f"got {k_name}={k_arr.ravel()[:5].tolist()}, {n_name}={n_arr.ravel()[:5].tolist()}")
    return k_arr, n_arr


def _clopper_pearson(k: _Floats, n: _Floats, tail: float) -> tuple[_Floats, _Floats]:
    """The interval of :func:`clopper_pearson` on checked counts, leaving probability ``tail`` on each side.

    The upper end is the inverse survival function at ``tail``, not the quantile at ``1 - tail``: for a
    confidence within 1e-16 of 1, ``1 - tail`` rounds to 1 and the quantile to 1 (or its log ratio to inf).
    """
    k, n = np.broadcast_arrays(k, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(k > 0, stats.beta.ppf(tail, np.maximum(k, 1), n - k + 1), 0.0)
        upper = np.where(k < n, stats.beta.isf(tail, k + 1, np.maximum(n - k, 1)), 1.0)
    return lower, upper

#: An array of probabilities or log-ratios.
_Floats = npt.NDArray[np.float64]


def clopper_pearson(k: npt.ArrayLike, n: npt.ArrayLike, confidence: float = 0.95) -> tuple[_Floats, _Floats]:
    """Exact two-sided Clopper-Pearson interval for a binomial proportion ([CP34]).

    With ``a = 1 - confidence``: ``lower = Beta(a/2; k, n - k + 1)`` quantile (0 when
    k = 0) and ``upper = Beta(1 - a/2; k + 1, n - k)`` quantile (1 when k = n).  The
    interval covers the true proportion with probability at least ``confidence``
    for every true proportion (it is conservative, never anti-conservative).

    Parameters
    ----------
    k : int or array_like of int
        Successes, ``0 <= k <= n`` (broadcast with ``n``).
    n : int or array_like of int
        Trials, ``1 <= n <= 2**53`` (the largest integer a float64 holds exactly).
    confidence : float
        Coverage probability of the interval, in (0, 1).

    Returns
    -------
    lower : numpy.ndarray
        Lower ends, of the broadcast shape of ``k`` and ``n``.
    upper : numpy.ndarray
        Upper ends, of the same shape.

    Raises
    ------
    ValueError
        If ``confidence`` is not in (0, 1), ``n`` holds a non-integer or a value
        outside ``[1, 2**53]``, or ``k`` holds a non-integer or a value outside ``[0, n]``.
    TypeError
        If ``k`` or ``n`` is a bool or not array-like of numbers.

    References
    ----------
    C. J. Clopper, E. S. Pearson. "The Use of Confidence or Fiducial Limits
    Illustrated in the Case of the Binomial." Biometrika 26(4), 1934 ([CP34]).

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 10, 0.95)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.3085)
    """
    conf = check_open_unit("confidence", confidence)
    k_arr, n_arr = _check_counts(k, n, "k", "n")
    return _clopper_pearson(k_arr, n_arr, (1.0 - conf) / 2)


def privacy_loss_interval(k: npt.ArrayLike, n: npt.ArrayLike, k_prime: npt.ArrayLike, n_prime: npt.ArrayLike, *,
                          confidence: float = 0.95, delta: float = 0.0) -> tuple[_Floats, _Floats, _Floats]:
    """Simultaneous confidence interval for an event's privacy loss ``ln((p - delta) / p')``.

    ``p`` and ``p'`` are the event's probabilities under D and D', estimated by
    ``k/n`` and ``k'/n'``.  Each gets a Clopper-Pearson interval at level
    ``1 - alpha/2`` with ``alpha = 1 - confidence`` (Bonferroni), so with
    probability at least ``confidence``

        ``ln((p_lo - delta) / p'_hi)  <=  ln((p - delta) / p')  <=  ln((p_hi - delta) / p'_lo)``.

    If M is (eps, delta)-DP then ``ln((p - delta)/p') <= eps``, so the lower end is a
    lower bound on eps ([JUO20]).  Vectorised over the inputs.

    Parameters
    ----------
    k : int or array_like of int
        Hits of the event among ``n`` samples under D.
    n : int or array_like of int
        Samples under D, >= 1.
    k_prime : int or array_like of int
        Hits of the event among ``n_prime`` samples under D'.
    n_prime : int or array_like of int
        Samples under D', >= 1.
    confidence : float
        Probability, in (0, 1), that both Clopper-Pearson intervals hold together.
    delta : float
        The delta of the (eps, delta) claim, in [0, 1).

    Returns
    -------
    lower : numpy.ndarray
        ``ln((p_lo - delta) / p'_hi)``; ``-inf`` where ``p_lo <= delta`` (the event says nothing).
    estimate : numpy.ndarray
        ``ln((k/n - delta) / (k'/n'))``; ``-inf`` where the numerator is <= 0,
        ``+inf`` where ``k' = 0``.
    upper : numpy.ndarray
        ``ln((p_hi - delta) / p'_lo)``; ``+inf`` where ``p'_lo = 0``.

    Raises
    ------
    ValueError
        If ``confidence`` is not in (0, 1), ``delta`` is not in [0, 1), or the
        counts are not integers with ``0 <= k <= n``, ``1 <= n <= 2**53`` (the
        message names ``k``, ``n``, ``k_prime`` or ``n_prime``).
    TypeError
        If a count is a bool or not array-like of numbers.

    References
    ----------
    M. Jagielski, J. Ullman, A. Oprea. "Auditing Differentially Private Machine
    Learning: How Private is Private SGD?" NeurIPS 2020 ([JUO20]).

    Examples
    --------
    >>> lo, est, hi = privacy_loss_interval(500, 1000, 200, 1000, confidence=0.95)
    >>> round(float(est), 4)  # ln(0.5 / 0.2)
    0.9163
    >>> bool(lo < est < hi)
    True
    """
    conf = check_open_unit("confidence", confidence)
    delta = check_delta(delta, allow_zero=True)
    tail = (1.0 - conf) / 4.0  # each interval at level 1 - (1 - confidence)/2 (Bonferroni), half of it per side
    k, n = _check_counts(k, n, "k", "n")
    kp, np_ = _check_counts(k_prime, n_prime, "k_prime", "n_prime")
    p_lo, p_hi = _clopper_pearson(k, n, tail)
    q_lo, q_hi = _clopper_pearson(kp, np_, tail)
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.where(p_lo > delta, np.log(np.maximum(p_lo - delta, 1e-300)) - np.log(q_hi), -np.inf)
        est_num = k / n - delta
        estimate = np.where(est_num > 0, np.log(np.maximum(est_num, 1e-300)) - np.log(kp / np_), -np.inf)
        estimate = np.where((est_num > 0) & (kp == 0), np.inf, estimate)
        upper = np.where(p_hi > delta, np.log(np.maximum(p_hi - delta, 1e-300)) - np.log(q_lo), -np.inf)
        upper = np.where((p_hi > delta) & (q_lo == 0), np.inf, upper)
    return lower, estimate, upper
