"""Vectorisation: public bins over a numeric attribute, counts per bin and the 0-1 prefix workload.

Records with values ``w >= 0`` go to the first bin whose upper edge ``b_j``
satisfies ``w <= b_j``; the bin's weight is its upper edge, ``v_j = b_j``.  A
prefix-sum query with threshold ``t = b_k`` is ``sum_{j <= k} v_j x_j`` on the
counts ``x`` ([WPKM19]_ Sec. 2).

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from dpviz.validation import MAX_MAGNITUDE, check_array, check_elements, check_int, check_positive

__all__ = ["uniform_bins", "cps_income_bins", "cps_thresholds", "vectorize", "prefix_workload", "weighted_workload"]


def uniform_bins(width: float, upper: float) -> npt.NDArray[np.float64]:
    """Upper edges ``width, 2 width, ..., upper`` of equal-width bins covering ``(0, upper]``.

    Parameters
    ----------
    width : float
        Width of every bin (> 0).
    upper : float
        Top edge of the last bin; a whole multiple of ``width`` (so no bin is cut short).

    Returns
    -------
    numpy.ndarray, shape (upper / width,)
        The upper edges, as float64.

    Raises
    ------
    ValueError
        If ``width`` or ``upper`` is not a positive number, ``upper`` is not a
        whole multiple of ``width``, or ``upper / width`` exceeds the allocation cap
        :data:`dpviz.validation.MAX_ELEMENTS`.

    Examples
    --------
    >>> uniform_bins(1000, 5000)
    array([1000., 2000., 3000., 4000., 5000.])
    """
    width = check_positive("width", width)
    upper = check_positive("upper", upper)
    n = upper / width
    check_elements(n, "bins", width=width, upper=upper)  # before round(): n may be inf
    if abs(n - round(n)) > 1e-9 * n or round(n) < 1:
        raise ValueError(f"upper must be a positive whole multiple of width={width}, got upper={upper}")
    return width * np.arange(1, int(round(n)) + 1, dtype=float)


def cps_income_bins() -> npt.NDArray[np.float64]:
    """The bins dpviz uses for CPS incomes: 1,000 bins of $1,000 covering ``($0, $1,000,000]``.

    The domain is public and fixed before looking at the data: the paper's
    Example 1 asks prefix sums "up to $1M" and ektelo's CPS configuration uses
    the income domain [0, 1e6].  The shipped extract's incomes run from $1 to
    $493,356, so every record falls in a bin and the bins above $494,000 are
    empty (which is exactly where untruncated noise is wasted).  Each record's
    weight is the upper edge of its bin (its income rounded up to the next $1,000).

    Returns
    -------
    numpy.ndarray, shape (1000,)
        The upper edges $1,000, $2,000, ..., $1,000,000.

    Examples
    --------
    >>> b = cps_income_bins()
    >>> b.size, float(b[0]), float(b[-1])
    (1000, 1000.0, 1000000.0)
    """
    return uniform_bins(1000.0, 1_000_000.0)


def cps_thresholds(m: int) -> npt.NDArray[np.float64]:
    """``m`` evenly spaced prefix-sum thresholds on :func:`cps_income_bins` (m must divide 1000).

    ``m = 1000``: every bin (the lower-triangular workload); ``m = 100``: every
    $10,000 (the paper's Example 1 workload "$10k, $20k, ..., $1M"); ``m = 10``: every $100,000.

    Parameters
    ----------
    m : int
        Number of queries, a divisor of 1000.

    Returns
    -------
    numpy.ndarray, shape (m,)
        The query thresholds, the last one $1,000,000.

    Raises
    ------
    TypeError
        If ``m`` is not an integer.
    ValueError
        If ``m`` is outside ``[1, 1000]`` or does not divide 1000.

    Examples
    --------
    >>> cps_thresholds(4)
    array([ 250000.,  500000.,  750000., 1000000.])
    """
    bins = cps_income_bins()
    m = check_int("m", m, minimum=1, maximum=bins.size)
    if bins.size % m:
        raise ValueError(f"m must divide {bins.size}, got {m}")
    step = bins.size // m
    return bins[step - 1::step].copy()


def _check_bins(bins: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Validate bin upper edges: a non-empty, strictly increasing 1-D array of positive numbers."""
    bins = check_array("bins", bins, ndim=1)
    if bins.size == 0:
        raise ValueError("bins must hold at least one upper edge")
    if bins[0] <= 0:
        raise ValueError(f"bins (upper edges = bin weights) must be > 0, got bins[0]={bins[0]}")
    if np.any(np.diff(bins) <= 0):
        i = int(np.flatnonzero(np.diff(bins) <= 0)[0])
        raise ValueError(f"bins must be strictly increasing, got bins[{i}]={bins[i]} >= bins[{i + 1}]={bins[i + 1]}")
    return bins


def vectorize(values: npt.ArrayLike, bins: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Counts ``x`` of the records per bin: ``x_j = #{w : b_{j-1} < w <= b_j}`` (with ``b_0 = -inf``).

    Parameters
    ----------
    values : array_like, shape (N,)
        The records' values, each in ``[0, bins[-1]]``.
    bins : array_like, shape (n,)
        Strictly increasing, positive upper edges (they are also the bin weights).

    Returns
    -------
    numpy.ndarray, shape (n,)
        Counts as float64.

    Raises
    ------
    ValueError
        For no values at all, a negative value or one above the top edge (never clipped), or bins
        that are empty, not positive or not strictly increasing.
    TypeError
        If ``values`` or ``bins`` is not array-like of numbers.

    Examples
    --------
    >>> vectorize([1, 1000, 1001, 2500], uniform_bins(1000, 3000))
    array([2., 1., 1.])
    """
    bins = _check_bins(bins)
    values = check_array("values", values, ndim=1)
    if values.size == 0:
        raise ValueError("values must hold at least one record, got an empty array")
    if values.min() < 0:
        raise ValueError(f"values must be non-negative (sums are truncated from above), got {values.min()}")
    if values.max() > bins[-1]:
        raise ValueError(f"values must be <= the top bin edge {bins[-1]}, got {values.max()}; widen the bins "
                         "(values are never clipped)")
    idx = np.searchsorted(bins, values, side="left")
    return np.bincount(idx, minlength=bins.size).astype(float)


def _threshold_indices(bins: npt.NDArray[np.float64], thresholds: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """Bin index of each query threshold (thresholds must be strictly increasing bin edges)."""
    t = check_array("thresholds", thresholds, ndim=1)
    if t.size == 0:
        raise ValueError("thresholds must hold at least one query threshold")
    if np.any(np.diff(t) <= 0):
        raise ValueError("thresholds must be strictly increasing")
    idx = np.searchsorted(bins, t)
    ok = (idx < bins.size) & (bins[np.minimum(idx, bins.size - 1)] == t)
    if not np.all(ok):
        bad = t[~ok][0]
        raise ValueError(f"thresholds must be bin edges (values in bins), got {bad}")
    return idx


def prefix_workload(bins: npt.ArrayLike, thresholds: npt.ArrayLike) -> sp.csr_array:
    """The prefix workload ``W_s`` (m x n, 0/1): row i selects the bins with upper edge ``<= thresholds[i]``.

    ``W_s diag(v) x`` are the prefix sums ([WPKM19] Sec. 2, "workload matrix").

    Parameters
    ----------
    bins : array_like, shape (n,)
        Strictly increasing, positive bin upper edges.
    thresholds : array_like, shape (m,)
        Strictly increasing query thresholds, each one of the ``bins``.

    Returns
    -------
    scipy.sparse.csr_array, shape (m, n)
        The 0-1 prefix workload.

    Raises
    ------
    ValueError
        If the bins are invalid (see :func:`vectorize`) or a threshold is not a
        bin edge, or the thresholds are empty or not strictly increasing.
    TypeError
        If ``bins`` or ``thresholds`` is not array-like of numbers.

    Examples
    --------
    >>> prefix_workload([1, 2, 3], [1, 3]).toarray()
    array([[1., 0., 0.],
           [1., 1., 1.]])
    """
    bins = _check_bins(bins)
    idx = _threshold_indices(bins, thresholds)
    rows = np.repeat(np.arange(idx.size), idx + 1)
    cols = np.concatenate([np.arange(k + 1) for k in idx])
    return sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(idx.size, bins.size))


def weighted_workload(workload: npt.ArrayLike | sp.sparray | sp.spmatrix, weights: npt.ArrayLike) -> sp.csr_array:
    """``W diag(v)``: the workload whose answers on the counts are the sums ([WPKM19] "weighted workload").

    Parameters
    ----------
    workload : array_like or scipy.sparse matrix, shape (m, n)
        The workload ``W`` on the counts (e.g. :func:`prefix_workload`).
    weights : array_like, shape (n,)
        One weight per bin (e.g. the truncated weights ``min(v, tau)``).

    Returns
    -------
    scipy.sparse.csr_array, shape (m, n)
        Column j of ``W`` multiplied by ``weights[j]``.

    Raises
    ------
    ValueError
        If ``weights`` is not 1-D, holds NaN or inf, or has not one entry per column of ``workload``.
    TypeError
        If ``weights`` is not array-like of numbers.

    Examples
    --------
    >>> weighted_workload(prefix_workload([1, 2, 3], [1, 3]), [10.0, 20.0, 30.0]).toarray()
    array([[10.,  0.,  0.],
           [10., 20., 30.]])
    """
    v = check_array("weights", weights, ndim=1, max_abs=MAX_MAGNITUDE)
    if np.any(v < 0):  # bin weights are the bins' upper edges of a sum of non-negative values
        raise ValueError(f"weights must be >= 0 (bin weights), got {v[v < 0][0]}")
    W = sp.csr_array(workload)  # type: ignore[arg-type]  # scipy-stubs reject the dense | sparse union
    if W.shape[1] != v.size:
        raise ValueError(f"weights must have one entry per column of workload ({W.shape[1]}), got {v.size}")
    return sp.csr_array(W @ sp.diags_array(v))
