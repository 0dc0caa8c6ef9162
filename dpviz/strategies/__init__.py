"""Strategies for the matrix mechanism: which queries to measure with noise.

Every function returns a strategy matrix ``A`` (p x n; scipy.sparse CSR for
the structured ones, dense for the eigen-design) to be used with
:mod:`dpviz.matrix_mechanism`.  Fixed strategies ignore the workload
(identity, hierarchies, wavelets); optimised ones adapt to it (GreedyH, the
eigen-design).  The optimisers work on the Gram matrix ``W^T W``, which is all
the matrix mechanism's error depends on, so a weighted workload such as
``W_s diag(v)`` (Gram ``diag(v) W_s^T W_s diag(v)``) is handled like any other.

Files
-----
fixed.py
    :func:`identity`, :func:`workload` (``A = W``) and the hierarchies :func:`hierarchical` (H_b).
wavelets.py
    Privelet's Haar strategy :func:`wavelet` and the slides' :func:`rescaled_wavelet`.
gram.py
    The Gram matrix ``W^T W`` (or a given one, checked) that the optimisers read.
greedy.py
    :func:`greedy_h`, the GreedyH tree weights.
eigen.py
    :func:`eigen_design`, the eigen-design (L1 or L2 sensitivity).
menu.py
    The explorer's menu: :data:`STRATEGIES`, :data:`LABELS` and :func:`build`.
"""

from dpviz.strategies.eigen import eigen_design
from dpviz.strategies.fixed import hierarchical, identity, workload
from dpviz.strategies.greedy import greedy_h
from dpviz.strategies.menu import LABELS, STRATEGIES, build
from dpviz.strategies.wavelets import rescaled_wavelet, wavelet

__all__ = [
    "identity",
    "workload",
    "hierarchical",
    "wavelet",
    "rescaled_wavelet",
    "greedy_h",
    "eigen_design",
    "build",
    "STRATEGIES",
    "LABELS",
]
