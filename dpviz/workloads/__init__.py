"""Workloads: batches of linear counting queries over a histogram of ``n`` bins.

A workload ``W`` has one row per query and one column per bin; its answers on
the histogram ``x`` are ``W x``.  Range workloads are held implicitly, with
closed forms for everything the matrix mechanism needs.

Files
-----
workload.py
    :class:`Workload`, the operator: answers, ``W^T y``, Gram matrix, sensitivities, spectrum.
closed_forms.py
    Closed forms of the range workloads: Gram matrix, coverage (sensitivity), singular values, eigenvectors.
one_d.py
    One-dimensional constructors: :func:`identity`, :func:`prefix`, :func:`all_ranges`,
    :func:`ranges`, :func:`random_ranges`, :func:`width_ranges`, :func:`from_matrix`, :func:`as_workload`.
two_d.py
    Workloads over an ``n1 x n2`` table: :func:`all_ranges_2d`, :func:`random_ranges_2d`, :func:`marginals_2d`.
marginal_workloads.py
    Marginals of a multi-attribute table: :func:`marginals` (all k-way, or given attribute sets),
    :func:`marginal_matrix`.
menu.py
    The explorer's menu: :data:`WORKLOADS` and :func:`build`.
"""

from dpviz.workloads.marginal_workloads import marginal_matrix, marginals
from dpviz.workloads.menu import WORKLOADS, build
from dpviz.workloads.one_d import (
    all_ranges,
    as_workload,
    from_matrix,
    identity,
    prefix,
    random_ranges,
    ranges,
    width_ranges,
)
from dpviz.workloads.two_d import all_ranges_2d, marginals_2d, random_ranges_2d
from dpviz.workloads.workload import Workload

__all__ = [
    "Workload",
    "as_workload",
    "identity",
    "prefix",
    "all_ranges",
    "random_ranges",
    "width_ranges",
    "ranges",
    "from_matrix",
    "all_ranges_2d",
    "random_ranges_2d",
    "marginals_2d",
    "marginals",
    "marginal_matrix",
    "build",
    "WORKLOADS",
]
