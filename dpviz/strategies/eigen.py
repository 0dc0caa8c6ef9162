"""The eigen-design [LM12]_: measure the eigenvectors of ``W^T W``, each scaled optimally.

References
----------
.. [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query Answering
   under Differential Privacy." PVLDB 5(6), 2012 (eigen-design).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz.strategies.gram import _gram
from dpviz.validation import check_bool, check_choice, check_int, check_positive
from dpviz.workloads import Workload

__all__ = ["eigen_design"]

#: Most dual iterations :func:`eigen_design` runs (a bound on run time: a tiny ``tol`` may never be met).
MAX_ITER = 100_000


def eigen_design(W: Any, *, gram: bool = False, norm: str = "l2", max_iter: int = 2000,
                 tol: float = 1e-3) -> np.ndarray:
    """Eigen-design [LM12]: measure the eigenvectors of ``W^T W``, each scaled optimally.

    **Strategy.**  ``A = diag(lambda) Q^T`` where ``W^T W = Q diag(sigma) Q^T``.
    Then ``tr(W^T W (A^T A)^{-1}) = sum_i sigma_i / lambda_i^2``.

    **Objective.**  Minimise ``||A||^2 sum_i sigma_i / lambda_i^2`` over
    ``lambda >= 0`` with ``||A||`` the L2 sensitivity ``max_j (sum_i lambda_i^2 Q_ji^2)^(1/2)``
    (the Gaussian mechanism, as in [LM12]).  It is convex and solved through its
    concave dual over the probability simplex ``nu`` on the cells,
    ``max_nu (sum_i sqrt(sigma_i rho_i))^2`` with ``rho = (Q o Q)^T nu``, by
    over-relaxed multiplicative (fixed-point) updates ``nu <- nu * grad^kappa``
    (kappa = 8, halved when the dual value drops); each dual point gives the
    primal scaling ``lambda_i^2 = sqrt(sigma_i / rho_i)`` and iterations stop
    when the primal error is within ``1 + tol`` of the dual value (a certified
    optimality gap).  At uniform ``nu`` the dual value is the SVD lower bound
    ``(1/n)(sum sqrt(sigma_i))^2``.

    **Only for L2.**  An L1 (Laplace) version was withdrawn: eigenvectors are
    dense, so a column's L1 norm grows like ``sqrt(rank)`` and no scaling can
    recover it -- on all ranges at n = 1024 it was 12x *worse* than Identity.
    For epsilon-DP use :func:`dpviz.strategies.p_identity` (or
    :func:`dpviz.strategies.marginal_strategy` for marginals).

    **Cost.**  One dense eigendecomposition ``O(n^3)`` (``O(n^2)`` for the prefix
    and all-range workloads, whose inverse Gram matrices are tridiagonal) plus ``O(n rank(W))`` per
    iteration; ``O(n^2)`` memory.  Rows for zero eigenvalues are dropped (the
    strategy then answers exactly the row space of ``W``).

    Parameters
    ----------
    W : Workload, array or sparse matrix
        The workload ``W`` (m x n), or its Gram matrix ``W^T W`` when ``gram=True``.
    gram : bool, default False
        Whether ``W`` is already the Gram matrix.
    norm : {"l2"}, default "l2"
        Sensitivity the scaling is optimised for: L2 (the Gaussian mechanism); "l1" is refused (withdrawn,
        see above).
    max_iter : int, default 2000
        Largest number of dual iterations, in ``[1, MAX_ITER]`` (100,000: a bound on run time, since a
        tiny ``tol`` may never be met).
    tol : float, default 1e-3
        Relative optimality gap at which to stop, > 0.

    Returns
    -------
    numpy.ndarray
        Dense (rank(W) x n) strategy, scaled to L2 sensitivity 1.

    Raises
    ------
    ValueError
        If ``norm`` is not "l2" (the L1 design was withdrawn: use ``p_identity``), ``max_iter`` outside
        ``[1, MAX_ITER]``, ``tol`` <= 0, ``W`` is all zeros or
        not a finite matrix (square and symmetric when ``gram=True``).
    TypeError
        If ``max_iter`` is not an integer, ``tol`` is not a real number or ``gram`` is not a bool.

    Examples
    --------
    >>> from dpviz import workloads
    >>> eigen_design(workloads.identity(3)).shape
    (3, 3)
    """
    gram = check_bool("gram", gram)
    if norm == "l1":
        raise ValueError("norm='l1': the L1 eigen-design was withdrawn (dense eigenvectors pay their L1 norm; it "
                         "lost 12x to Identity on all ranges at n = 1024); under the Laplace mechanism use "
                         "dpviz.strategies.p_identity(W, norm='l1')")
    check_choice("norm", norm, ("l2",))
    max_iter = check_int("max_iter", max_iter, minimum=1, maximum=MAX_ITER)
    tol = check_positive("tol", tol)
    if isinstance(W, Workload):
        sigma, Q = W.eigh()   # O(n^2) for prefixes and all ranges (tridiagonal inverse Gram)
    else:
        sigma, Q = np.linalg.eigh(_gram(W, gram))
    keep = sigma > 1e-12 * max(float(sigma.max()), 0.0)
    if not keep.any():
        raise ValueError("W is all zeros: nothing to design a strategy for")
    sigma, Q = sigma[keep], Q[:, keep]
    n = Q.shape[0]
    C = Q * Q

    def primal(rho: np.ndarray) -> tuple[float, np.ndarray]:
        lam = np.sqrt(np.sqrt(sigma / rho))
        return float((C @ lam**2).max()) * float(np.sum(sigma / lam**2)), lam

    nu = np.full(n, 1.0 / n)
    best, best_lam = np.inf, np.ones(0)
    dual = 0.0
    kappa = 8.0  # over-relaxed multiplicative step nu <- nu * grad^kappa; halved whenever the dual value drops
    for _ in range(max_iter):
        rho = np.maximum(C.T @ nu, 1e-300)
        H = float(np.sum(np.sqrt(sigma * rho)))
        grad = C @ (0.5 * np.sqrt(sigma / rho))
        if H**2 < dual:
            kappa = max(1.0, kappa / 2)
        dual = max(dual, H**2)
        val, lam = primal(rho)
        if val < best:
            best, best_lam = val, lam
        if best <= dual * (1 + tol):
            break
        nu = nu * (grad / grad.max()) ** kappa
        nu /= nu.sum()
    A = best_lam[:, None] * Q.T
    return A / np.sqrt((A * A).sum(axis=0).max())
