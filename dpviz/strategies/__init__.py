"""Strategies for the matrix mechanism: which queries to measure with noise.

Every function returns a strategy matrix ``A`` (p x n; scipy.sparse CSR for
the structured ones, dense for the eigen-design) to be used with
:mod:`dpviz.matrix_mechanism`.  Fixed strategies ignore the workload
(identity, hierarchies, wavelets); optimised ones adapt to it (GreedyH, the
eigen-design, p-Identity, weighted marginals).  The optimisers work on the Gram
matrix ``W^T W`` (or its products ``W^T W V``), which is all the matrix
mechanism's error depends on, so a weighted workload such as ``W_s diag(v)``
(Gram ``diag(v) W_s^T W_s diag(v)``) is handled like any other.

Files
-----
fixed.py
    :func:`identity`, :func:`workload` (``A = W``) and the hierarchies :func:`hierarchical` (H_b).
wavelets.py
    Privelet's Haar strategy :func:`wavelet` and the slides' :func:`rescaled_wavelet`.
gram.py
    The Gram matrix ``W^T W`` (or a given one, checked) that the optimisers read; prefixes' and all ranges'
    products ``V W^T W`` as running sums.
greedy.py
    :func:`greedy_h`, the GreedyH tree weights.
eigen.py
    :func:`eigen_design`, the eigen-design (L2 sensitivity, the Gaussian mechanism).
p_identity_template.py
    :func:`p_identity`, HDMM's p-Identity strategies optimised on the exact error (L1 or L2), in O(n p^2)
    per step from structured Gram products; :func:`default_p`.
weighted_marginals.py
    :func:`marginal_strategy` / :func:`marginal_weights`: optimised weights of all marginals of a table for a
    marginal workload, with the error in closed form (:func:`marginals_error`).
projected_lbfgs.py
    The limited-memory quasi-Newton minimiser (x >= 0 or free) both optimisers use.
reproducible_products.py
    The optimisers' products by BLAS, or in a fixed order of operations: the same bits on every x86-64 machine
    (``p_identity(..., reproducible=True)``, which the menu uses so that a lecture's numbers do not change with
    the machine's BLAS kernel).
menu.py
    The explorer's menu: :data:`STRATEGIES`, :data:`LABELS`, :func:`for_mechanism` and :func:`build`.
"""

from dpviz.strategies.eigen import eigen_design
from dpviz.strategies.fixed import hierarchical, identity, workload
from dpviz.strategies.greedy import greedy_h
from dpviz.strategies.menu import ADAPTIVE, LABELS, STRATEGIES, build, cache_key, for_mechanism
from dpviz.strategies.p_identity_template import default_p, p_identity
from dpviz.strategies.wavelets import rescaled_wavelet, wavelet
from dpviz.strategies.weighted_marginals import marginal_strategy, marginal_weights, marginals_error

__all__ = [
    "identity",
    "workload",
    "hierarchical",
    "wavelet",
    "rescaled_wavelet",
    "greedy_h",
    "eigen_design",
    "p_identity",
    "default_p",
    "marginal_strategy",
    "marginal_weights",
    "marginals_error",
    "build",
    "for_mechanism",
    "cache_key",
    "ADAPTIVE",
    "STRATEGIES",
    "LABELS",
]
