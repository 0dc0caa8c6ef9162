"""The matrix mechanism: answer a strategy ``A`` with noise, rebuild the workload ``W`` by least squares.

Given a workload ``W`` (m x n) and a strategy ``A`` (p x n): measure
``y = A x + noise`` calibrated to the sensitivity of ``A`` (Laplace, or
Gaussian for (epsilon, delta)-DP), estimate ``x_hat = (A^T A)^+ A^T y``, answer
``W x_hat``.  The error does not depend on the data and has a closed form; the
singular values of ``W`` bound it from below for every strategy.  The noise is
the floating-point sampler of :func:`dpviz.mechanisms.laplace` / ``gaussian``, and
Mironov (CCS 2012) showed that the low-order bits of float Laplace outputs can
reveal the input, so the privacy stated is that of the idealised real-valued
mechanism (lecture 07, section 7).

Files
-----
least_squares.py
    :class:`LeastSquares`: the factorisation of ``A`` reused for every solve and variance.
prefix_basis.py
    The sparse prefix-basis machinery behind it (basis change, selected inverse, blocked solves).
accuracy.py
    Exact error: :func:`noise_variance`, :func:`expected_error`, :func:`direct_laplace_error`.
lower_bound.py
    :func:`svd_lower_bound`, the singular-value bound on any strategy's error.
reconstruction.py
    :func:`reconstruct` (least squares or non-negative) and :func:`query_weights`.
release.py
    :func:`run` (select, measure, infer) and its result :class:`MatrixMechanismRelease`.
"""

from dpviz.matrix_mechanism.accuracy import direct_laplace_error, expected_error, noise_variance
from dpviz.matrix_mechanism.least_squares import LeastSquares
from dpviz.matrix_mechanism.lower_bound import svd_lower_bound
from dpviz.matrix_mechanism.reconstruction import query_weights, reconstruct
from dpviz.matrix_mechanism.release import MatrixMechanismRelease, run

__all__ = [
    "LeastSquares",
    "MatrixMechanismRelease",
    "noise_variance",
    "expected_error",
    "direct_laplace_error",
    "query_weights",
    "svd_lower_bound",
    "reconstruct",
    "run",
]
