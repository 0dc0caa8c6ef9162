"""The Uniform baseline of DPBench: one noisy total, spread evenly over the domain."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import charge
from dpviz.data_aware.budget import _check_stages, _fraction
from dpviz.mechanisms import laplace_scale, scaled_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_counts, check_elements, check_epsilon, check_trials

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant

__all__ = ["uniform"]


def uniform(x: ArrayLike, epsilon: float, *, rng: RngLike = None, size: int | None = None,
            accountant: PrivacyAccountant | None = None) -> np.ndarray:
    """The Uniform baseline: a noisy total ``sum(x) + Lap(1/epsilon)`` spread evenly over the n cells.

    ``x_hat_i = (sum_j x_j + Z) / n`` with ``Z ~ Lap(1/epsilon)``.  It is the
    coarsest data-aware histogram (one bucket); DPBench [HMMCZ16] uses it as a
    sanity baseline: an algorithm that loses to Uniform has learned nothing.
    All of its error is approximation error (zero on uniform data) plus the
    noise of one total shared by every cell.

    Privacy: adding or removing one record changes the total by 1 (L1
    sensitivity 1), so the Laplace mechanism makes it epsilon-DP; spreading it
    is post-processing.

    Parameters
    ----------
    x : array_like, shape (n,)
        Histogram counts (finite, non-negative).
    epsilon : float
        Privacy budget > 0, all of it spent on the total.
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases; None (default) for one release.
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (``size`` independent releases, sequential
        composition; epsilon for one release), under the label
        ``"uniform: noisy total"``; refused, with nothing recorded, if it does not fit.

    Returns
    -------
    numpy.ndarray
        Shape (n,), or (size, n) with ``size``: every cell holds the noisy total divided by n.

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 1-D array of finite non-negative counts, ``epsilon`` is
        not a finite number > 0 (or below 1e-100, whose noise would overflow),
        ``size`` is not a positive integer, ``size * n`` exceeds
        :data:`dpviz.validation.MAX_ELEMENTS`, or ``accountant`` is not a PrivacyAccountant.
    BudgetExceededError
        If ``accountant`` cannot afford ``size * epsilon`` (nothing is recorded).

    References
    ----------
    See the package references: [HMMCZ16] (DPBench).

    Examples
    --------
    >>> uniform([4, 0, 0, 4], 1.0, rng=0).round(3).tolist()
    [2.08, 2.08, 2.08, 2.08]
    """
    x = check_counts("x", x)
    eps = _fraction("epsilon", check_epsilon(epsilon))
    _check_stages(f"epsilon={epsilon!r}", total=eps)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(float(k) * x.size, "size x n released cells", size=size, n=x.size)
    gen = as_generator(rng)
    charge(accountant, eps, size=size, label="uniform: noisy total")
    total = x.sum() + scaled_laplace(laplace_scale(1.0, eps), k, rng=gen)
    out = np.repeat((total / x.size)[:, None], x.size, axis=1)
    return out[0] if size is None else out
