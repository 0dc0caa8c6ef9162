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
reconstruction is also the least-squares estimate.  The noise is
floating-point and Mironov (CCS 2012) showed that the low-order bits of float
Laplace outputs can reveal the input, so Privelet's epsilon is that of the
idealised real-valued mechanism (lecture 07, section 7).

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

Files
-----
``haar.py``
    ``padded_size``, ``haar_matrix``, ``haar_sensitivity``: the +-1 Haar rows and their L1 sensitivity.
``release.py``
    ``privelet_release``: the noisy release (epsilon-DP), charged by :func:`dpviz.accountant.charge`.
``accuracy.py``
    ``privelet_covariance`` and the exact range-query errors.
"""

from __future__ import annotations

from dpviz.wavelet.accuracy import (
    privelet_average_range_mse,
    privelet_covariance,
    privelet_range_mse_by_width,
    range_variance_by_width,
)
from dpviz.wavelet.haar import haar_matrix, haar_sensitivity, padded_size
from dpviz.wavelet.release import privelet_release

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
