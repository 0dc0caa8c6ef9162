"""Privelet's release: noisy Haar coefficients, inverted to a histogram (epsilon-DP, charged by the one rule).

See :mod:`dpviz.wavelet` for the construction and the references ([XWG10])."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from dpviz.accountant import charge
from dpviz.mechanisms import laplace_scale, scaled_laplace
from dpviz.rng import RngLike
from dpviz.validation import (
    check_counts,
    check_elements,
    check_epsilon,
    check_trials,
)

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant
from dpviz.wavelet.haar import _check_haar_size, _full_haar, haar_sensitivity

__all__ = ["privelet_release"]


def privelet_release(x: npt.ArrayLike, epsilon: float, *, rng: RngLike = None, size: int | None = None,
                     accountant: PrivacyAccountant | None = None) -> np.ndarray:
    """Privelet release: noisy Haar coefficients, inverse transform, padding dropped.

    epsilon-DP [XWG10]: Laplace noise of scale ``(1 + log2 N) / epsilon`` on every coefficient.

    Parameters
    ----------
    x : array_like
        The (n,) histogram of non-negative counts.
    epsilon : float
        Privacy parameter, > 0.
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases, stacked on a new first axis; ``size * N`` must stay within
        :data:`dpviz.validation.MAX_ELEMENTS`.
    accountant : PrivacyAccountant, optional
        Charged through :func:`dpviz.accountant.charge`, after the inputs are checked and before the noise
        is drawn: ``epsilon`` for one release, ``k * epsilon`` for ``size=k`` independent releases
        (sequential composition).

    Returns
    -------
    numpy.ndarray
        Leaf estimates of shape (n,) or (size, n).

    Raises
    ------
    ValueError
        If ``x`` is not a 1-D array of finite non-negative counts, ``epsilon`` <= 0 (or so small that the
        noise scale overflows), ``size`` < 1, or ``size * N`` exceeds the element cap.
    TypeError
        If ``accountant`` is not a PrivacyAccountant.
    BudgetExceededError
        If the accountant cannot afford the release (nothing is recorded).

    Examples
    --------
    >>> privelet_release([5, 0, 3, 1], 1.0, rng=0, size=2).shape
    (2, 4)
    """
    x = check_counts("x", x)
    epsilon = check_epsilon(epsilon)
    size = check_trials(size)
    n = x.size
    k = 1 if size is None else size
    N = _check_haar_size(n)
    check_elements(float(k) * N, "noisy Haar coefficients", size=size, n=n)
    scale = laplace_scale(haar_sensitivity(n), epsilon)
    A, s = _full_haar(N)
    xp = np.zeros(N)
    xp[:n] = x
    charge(accountant, epsilon, size=size, label=f"Privelet (Haar wavelet), n={n}")
    coef = A @ xp
    noisy = coef[None, :] + scaled_laplace(scale, (k, N), rng=rng)
    est = (noisy / s) @ A  # Y^-1 y = Y^T diag(1/s) y, row-wise
    est = np.asarray(est)[:, :n]
    return est[0] if size is None else est
