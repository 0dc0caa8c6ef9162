"""The Haar wavelet strategy (Privelet) for range queries, and its exact error.

Privelet [XWG10]_ publishes the Haar wavelet coefficients of the histogram
with noise and rebuilds the histogram by the inverse transform.  Scaling each
coefficient by the size of its support turns the weighted coefficients into
plain +-1 queries: the total ``x_0 + ... + x_{N-1}`` and, for every dyadic
block of size ``s >= 2``, (sum of its left half) - (sum of its right half).
Each cell lies in the support of exactly one row per level plus the total, so
the L1 sensitivity is ``1 + log2 N`` and Privelet adds ``Lap((1 + log2 N) /
epsilon)`` to every row (the slides' matrix ``Y``).  The rows are orthogonal
with squared norm ``s``, so ``Y^-1 = Y^T diag(1/s)`` and the leaf estimate has
covariance ``sigma^2 Y^T diag(1/s^2) Y``; for N a power of 2 this
reconstruction is also the least-squares estimate.

**n not a power of 2.**  The domain is padded with ``N - n`` empty cells, ``N
= 2**ceil(log2 n)``.  Padding cells hold no individual, so :func:`haar_matrix`
keeps only the columns of the ``n`` real cells (dropping rows that touch only
padding), which changes neither privacy nor the sensitivity ``1 + log2 N``.
:func:`privelet_covariance` and the error functions use Privelet's own
estimator: inverse transform over the padded domain, padding estimates
discarded.  (Least squares on the truncated matrix, as the matrix mechanism
would do, can be slightly better when n is not a power of 2.)

References
----------
.. [XWG10] X. Xiao, G. Wang, J. Gehrke. "Differential Privacy via Wavelet
   Transforms." ICDE 2010 (IEEE TKDE 23(8), 2011).

- [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
  Linear Counting Queries Under Differential Privacy." PODS 2010.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from dpviz.accountant import charge
from dpviz.mechanisms import laplace_scale, laplace_variance
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_counts,
    check_elements,
    check_epsilon,
    check_int,
    check_trials,
    check_widths,
)

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant

__all__ = [
    "padded_size",
    "haar_matrix",
    "haar_sensitivity",
    "privelet_covariance",
    "privelet_release",
    "range_variance_by_width",
    "privelet_range_mse_by_width",
    "privelet_average_range_mse",
]


def padded_size(n: int) -> int:
    """``N = 2**ceil(log2 n)``, the padded domain size of the Haar transform.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.

    Returns
    -------
    int
        The smallest power of 2 that is >= n.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1.

    Examples
    --------
    >>> padded_size(5)
    8
    """
    n = check_int("n", n, minimum=1)
    return 1 << (n - 1).bit_length()


def _finite(value: np.ndarray | float, epsilon: float) -> None:
    """Refuse an epsilon so small that the variances overflow floating point (a range error, not inf)."""
    with np.errstate(all="ignore"):
        if not np.all(np.isfinite(value)):
            raise ValueError(f"epsilon={epsilon!r} is too small: the Privelet variances overflow floating "
                             "point (use a larger epsilon)")


def _check_haar_size(n: int) -> int:
    """Refuse an n whose padded Haar matrix would hold more than the element cap (N (1 + log2 N) entries)."""
    N = padded_size(n)
    check_elements(float(N) * N.bit_length(), "Haar matrix entries", n=n)
    return N


def _full_haar(N: int) -> tuple[sp.csr_array, np.ndarray]:
    """+-1 Haar matrix of a power-of-2 size N (coarse rows first) and each row's support size."""
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    support: list[np.ndarray] = []
    cells = np.arange(N)
    rows.append(np.zeros(N, dtype=np.int64))
    cols.append(cells)
    vals.append(np.ones(N))
    support.append(np.array([N]))
    r = 1
    s = N
    while s >= 2:
        nblocks = N // s
        blk = cells // s
        rows.append(r + blk)
        cols.append(cells)
        vals.append(np.where((cells % s) < s // 2, 1.0, -1.0))
        support.append(np.full(nblocks, s))
        r += nblocks
        s //= 2
    A = sp.coo_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(N, N))
    return A.tocsr(), np.concatenate([np.asarray(x, dtype=float) for x in support])


def haar_matrix(n: int) -> sp.csr_array:
    """Privelet's Haar strategy as a sparse +-1 matrix over ``n`` cells.

    Row 0 is the total; then, from the coarsest level (block size ``N``) to the
    finest (block size 2), one row per dyadic block: +1 on its left half, -1 on
    its right half [XWG10] [LHRMM10].  For n not a power of 2 the domain is
    padded to ``N = 2**ceil(log2 n)`` empty cells and only the ``n`` real
    columns are kept; rows that would touch padding only are dropped.  L1
    sensitivity: ``1 + log2 N``.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.

    Returns
    -------
    scipy.sparse.csr_array
        Shape ``(rows, n)`` with ``rows = n`` when n is a power of 2.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1, or the matrix would exceed :data:`dpviz.validation.MAX_ELEMENTS` entries.

    Examples
    --------
    >>> haar_matrix(4).toarray().astype(int).tolist()
    [[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, 0, 0], [0, 0, 1, -1]]
    """
    N = _check_haar_size(n)
    A, _ = _full_haar(N)
    A = A[:, :n].tocsr()
    keep = np.flatnonzero(np.diff(A.indptr) > 0)
    return A[keep].tocsr()


def haar_sensitivity(n: int) -> int:
    """L1 sensitivity ``1 + log2 N`` of :func:`haar_matrix` (N the padded size).

    Parameters
    ----------
    n : int
        Number of cells, >= 1.

    Returns
    -------
    int
        ``1 + log2 N``: each cell meets the total and one row per level.

    Examples
    --------
    >>> haar_sensitivity(4), haar_sensitivity(5)
    (3, 4)
    """
    return padded_size(n).bit_length()


def privelet_covariance(n: int, epsilon: float) -> np.ndarray:
    """Exact covariance of Privelet's leaf estimates: ``sigma^2 Y^T diag(1/s^2) Y`` restricted to the n real cells.

    ``sigma^2 = 2 (1 + log2 N)^2 / epsilon^2`` is the Laplace variance of each
    noisy coefficient [XWG10].  Dense (n, n): meant for n up to a few thousand.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.
    epsilon : float
        Privacy parameter, > 0.

    Returns
    -------
    numpy.ndarray
        The (n, n) covariance matrix.

    Raises
    ------
    ValueError
        If ``epsilon`` <= 0 (or so small that the variances overflow), ``n`` < 1, or the (n, n) matrix
        would exceed :data:`dpviz.validation.MAX_ELEMENTS` entries.
    TypeError
        If ``n`` is not an integer.

    Examples
    --------
    >>> privelet_covariance(2, 1.0).tolist()   # sigma^2 = 2 * 2^2 = 8 per coefficient
    [[4.0, 0.0], [0.0, 4.0]]
    """
    n = check_int("n", n, minimum=1)
    epsilon = check_epsilon(epsilon)
    check_elements(float(n) * n, "covariance entries", n=n)
    N = _check_haar_size(n)
    A, s = _full_haar(N)
    sigma2 = laplace_variance(haar_sensitivity(n), epsilon)
    _finite(sigma2, epsilon)
    Ac = A[:, :n].tocsc()
    cov = (Ac.T @ sp.diags_array(sigma2 / s**2) @ Ac).toarray()
    _finite(cov, epsilon)
    return cov


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
    noisy = coef[None, :] + as_generator(rng).laplace(0.0, scale, size=(k, N))
    est = (noisy / s) @ A  # Y^-1 y = Y^T diag(1/s) y, row-wise
    est = np.asarray(est)[:, :n]
    return est[0] if size is None else est


def _prefix_cov(cov: np.ndarray) -> np.ndarray:
    """K[i, j] = Cov(prefix_i, prefix_j), prefix_i = sum of the first i estimates; shape (n+1, n+1)."""
    n = cov.shape[0]
    K = np.zeros((n + 1, n + 1))
    np.cumsum(cov, axis=0, out=K[1:, 1:])
    np.cumsum(K[1:, 1:], axis=1, out=K[1:, 1:])
    return K


def range_variance_by_width(cov: np.ndarray, widths: npt.ArrayLike) -> np.ndarray:
    """Average variance over all ranges of each width, for leaf estimates of covariance ``cov``.

    ``Var(sum_{a in [i, i+w)} xhat_a) = K[i+w, i+w] - 2 K[i, i+w] + K[i, i]`` with
    ``K`` the prefix covariance; averaged over ``i = 0..n-w``.

    Parameters
    ----------
    cov : numpy.ndarray
        (n, n) covariance of the leaf estimates.
    widths : array_like of int
        Range widths in ``[1, n]``.

    Returns
    -------
    numpy.ndarray
        One average variance per width.

    Raises
    ------
    ValueError
        If ``cov`` is not a finite square 2-D array, or a width is outside ``[1, n]``.
    TypeError
        If ``cov`` is not numeric or a width is not an integer.

    Examples
    --------
    >>> range_variance_by_width(np.eye(3), [1, 2, 3]).tolist()   # independent unit leaves
    [1.0, 2.0, 3.0]
    """
    cov = check_array("cov", cov, ndim=2)
    if cov.shape[0] != cov.shape[1] or cov.shape[0] == 0:
        raise ValueError(f"cov must be a non-empty square (n, n) covariance matrix, got shape {cov.shape}")
    n = cov.shape[0]
    ws = check_widths(n, widths)
    K = _prefix_cov(cov)
    d = np.diagonal(K)
    out = np.empty(len(ws))
    for t, w in enumerate(ws):
        i = np.arange(n - w + 1)
        out[t] = np.mean(d[i + w] + d[i] - 2.0 * K[i, i + w])
    return out


def privelet_range_mse_by_width(n: int, epsilon: float, widths: npt.ArrayLike | None = None) -> np.ndarray:
    """Exact MSE of Privelet range answers averaged over all ranges of each width.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.
    epsilon : float
        Privacy parameter, > 0.
    widths : array_like of int, optional
        Range widths in ``[1, n]`` (default all of ``1..n``).

    Returns
    -------
    numpy.ndarray
        One mean squared error per width.

    Raises
    ------
    ValueError
        If ``n`` < 1, ``epsilon`` <= 0 or a width is outside ``[1, n]``.
    TypeError
        If ``n`` or a width is not an integer.

    Examples
    --------
    >>> privelet_range_mse_by_width(2, 1.0).tolist()
    [4.0, 8.0]
    """
    n = check_int("n", n, minimum=1)
    check_elements(float(n) * n, "covariance entries", n=n)
    ws = check_widths(n, widths)
    out = range_variance_by_width(privelet_covariance(n, epsilon), ws)
    _finite(out, epsilon)
    return out


def privelet_average_range_mse(n: int, epsilon: float) -> float:
    """Exact MSE of Privelet averaged over all n(n+1)/2 range queries.

    Sum over pairs ``i < j`` of ``K_jj + K_ii - 2 K_ij`` equals
    ``(n+1) tr K - 1^T K 1`` for the prefix covariance K.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.
    epsilon : float
        Privacy parameter, > 0.

    Returns
    -------
    float
        The average expected squared error of a range query.

    Raises
    ------
    ValueError
        If ``n`` < 1 or ``epsilon`` <= 0.
    TypeError
        If ``n`` is not an integer.

    Examples
    --------
    >>> privelet_average_range_mse(2, 1.0)   # (4 + 4 + 8) / 3
    5.333333333333333
    """
    n = check_int("n", n, minimum=1)
    K = _prefix_cov(privelet_covariance(n, epsilon))
    out = float(((n + 1) * np.trace(K) - K.sum()) / (n * (n + 1) / 2))
    _finite(out, epsilon)
    return out
