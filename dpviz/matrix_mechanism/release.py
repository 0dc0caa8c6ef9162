"""Run the matrix mechanism: select a strategy ``A``, measure it with noise, infer the workload ``W``.

Given a workload ``W`` (m x n) and a strategy ``A`` (p x n) [LHRMM10]_:

1. measure ``y = A x + (||A||_1 / epsilon) b`` with ``b`` iid Laplace(1)
   (or, for (epsilon, delta)-DP, Gaussian noise calibrated to the L2
   sensitivity ``||A||_2``, the largest column L2 norm);
2. estimate ``x_hat = (A^T A)^+ A^T y``, the ordinary least-squares estimate
   (unbiased, and the minimum-variance linear unbiased estimate);
3. answer ``W x_hat``.

Steps 2-3 are post-processing, so the release is exactly as private as step 1.

References
----------
.. [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
   Linear Counting Queries Under Differential Privacy." PODS 2010.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from dpviz import mechanisms
from dpviz.accountant import charge
from dpviz.matrix_mechanism.accuracy import CALIBRATIONS, Calibration, noise_variance
from dpviz.matrix_mechanism.least_squares import LeastSquares, _as_ls
from dpviz.matrix_mechanism.reconstruction import reconstruct
from dpviz.rng import RngLike
from dpviz.validation import (
    check_bool,
    check_choice,
    check_counts,
    check_delta,
    check_elements,
    check_epsilon,
    check_trials,
)

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant

__all__ = ["MatrixMechanismRelease", "run"]


@dataclass(frozen=True)
class MatrixMechanismRelease:
    """One or ``size`` releases of the matrix mechanism.

    Parameters
    ----------
    answers : numpy.ndarray
        (m,) or (k, m) workload estimates ``W x_hat``.
    estimate : numpy.ndarray
        (n,) or (k, n) least-squares (or non-negative) estimate ``x_hat``.
    measurements : numpy.ndarray
        (p,) or (k, p) noisy strategy answers ``y``.
    truth : numpy.ndarray
        (m,) true workload answers ``W x``.
    noise_variance : float
        Variance of the noise on each measurement.
    mechanism : str
        "laplace" or "gaussian".

    Examples
    --------
    >>> from dpviz import workloads
    >>> r = run(workloads.prefix(3), np.eye(3), [1, 2, 3], 1.0, rng=0)
    >>> r.mechanism, r.noise_variance, r.truth.tolist()
    ('laplace', 2.0, [1.0, 3.0, 6.0])
    """

    answers: np.ndarray
    estimate: np.ndarray
    measurements: np.ndarray
    truth: np.ndarray
    noise_variance: float
    mechanism: str


def run(W: Any, A: Any, x: npt.ArrayLike, epsilon: float, *, rng: RngLike = None, size: int | None = None,
        delta: float | None = None, calibration: Calibration = "analytic", nonnegative: bool = False,
        accountant: PrivacyAccountant | None = None) -> MatrixMechanismRelease:
    """Run the matrix mechanism: ``y = A x + noise``, ``x_hat`` by least squares, answers ``W x_hat``.

    epsilon-DP with Laplace noise of scale ``||A||_1 / epsilon`` [LHRMM10], or
    (epsilon, delta)-DP with Gaussian noise calibrated to ``||A||_2`` when
    ``delta`` is given.  The reconstruction is post-processing.  An optional
    ``accountant`` is charged through :func:`dpviz.accountant.charge` before noise is drawn:
    ``(epsilon, delta)`` for one release, ``(k epsilon, k delta)`` for ``size=k`` independent
    releases (sequential composition).

    Parameters
    ----------
    W : Workload, array_like or scipy.sparse matrix
        The workload (m x n).
    A : array_like, scipy.sparse matrix, Workload or LeastSquares
        The strategy (p x n).
    x : array_like
        The (n,) histogram of non-negative counts.
    epsilon : float
        Privacy parameter, > 0.
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases, stacked on a new first axis; ``size * (p + n + m)`` must stay
        within :data:`dpviz.validation.MAX_ELEMENTS`.
    delta : float, optional
        Gaussian mechanism for (epsilon, delta)-DP.
    calibration : {"analytic", "classic", "ln2delta"}
        Gaussian calibration (see :func:`dpviz.mechanisms.gaussian_sigma`).
    nonnegative : bool, default False
        Non-negative least squares instead of least squares (see :func:`reconstruct`).
    accountant : PrivacyAccountant, optional
        Charged ``(k epsilon, k delta)`` for ``size=k`` (``(epsilon, delta)`` when ``size`` is None),
        after the inputs are checked and before any noise is drawn.

    Returns
    -------
    MatrixMechanismRelease
        Estimates, measurements, truth and noise variance.

    Raises
    ------
    ValueError
        If a parameter is out of range, ``x`` does not have n non-negative entries, A cannot answer W,
        or ``size`` asks for more than the element cap.
    TypeError
        If ``accountant`` is not a PrivacyAccountant or ``nonnegative`` is not a bool.
    BudgetExceededError
        If the accountant cannot afford the release (nothing is recorded).

    Examples
    --------
    >>> from dpviz import workloads
    >>> r = run(workloads.all_ranges(4), np.eye(4), [10, 23, 16, 3], 1.0, rng=0, size=3)
    >>> r.answers.shape, r.truth.astype(int).tolist()[:3]
    ((3, 10), [52, 49, 42])
    """
    ls = _as_ls(A)
    epsilon = check_epsilon(epsilon)
    check_choice("calibration", calibration, CALIBRATIONS)
    size = check_trials(size)
    nonnegative = check_bool("nonnegative", nonnegative)
    x = check_counts("x", x)
    if x.size != ls.n:
        raise ValueError(f"x must have n={ls.n} entries (columns of A), got {x.size}")
    W = ls.check_answerable(W)
    if delta is not None:
        delta = check_delta(delta)
    check_elements(float(1 if size is None else size) * (float(ls.n_rows) + ls.n + W.n_queries),
                   "noisy measurements, estimates and answers", size=size)
    truth_a = ls.measure(x)
    var = noise_variance(ls, epsilon, delta=delta, calibration=calibration)
    charge(accountant, epsilon, 0.0 if delta is None else delta, size=size,
           label=f"matrix mechanism ({ls.n_rows} strategy queries)")
    if delta is None:
        y = mechanisms.laplace(truth_a, ls.l1, epsilon, rng=rng, size=size)
    else:
        y = mechanisms.gaussian(truth_a, ls.l2, epsilon, delta, rng=rng, size=size, calibration=calibration)
    # a strategy given as a matrix is factorised here and used once: solve for these answers only
    x_hat = reconstruct(ls, y, nonnegative=True) if nonnegative else ls.estimate(y, keep=isinstance(A, LeastSquares))
    return MatrixMechanismRelease(answers=W.answer(x_hat), estimate=x_hat, measurements=y, truth=W.answer(x),
                                  noise_variance=var, mechanism="laplace" if delta is None else "gaussian")
