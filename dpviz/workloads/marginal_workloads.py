"""Marginal workloads over a multi-attribute table: every count of the data projected onto a few attributes.

A table with ``d`` attributes of sizes ``n_1, ..., n_d`` is flattened row-major into ``n = n_1 ... n_d``
cells (cell ``(i_1, ..., i_d)`` is column ``ravel_multi_index``).  The marginal on the attribute set ``S``
has one query per combination of values of the attributes in ``S``, summing every cell that has those
values: ``M_S = kron_i (I_{n_i} if i in S else 1^T)``.  A k-way marginal workload stacks the marginals of
all ``C(d, k)`` attribute sets of size k [BCDKMT07]_; :mod:`dpviz.strategies.weighted_marginals` optimises a
strategy for it in closed form.

References
----------
.. [BCDKMT07] B. Barak, K. Chaudhuri, C. Dwork, S. Kale, F. McSherry, K. Talwar. "Privacy, Accuracy, and
   Consistency Too: A Holistic Solution to Contingency Table Release." PODS 2007.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from dpviz.validation import check_elements, check_int
from dpviz.workloads.workload import Workload

__all__ = ["marginals", "marginal_matrix", "MAX_ATTRIBUTES"]

#: Most attributes a marginal workload may have (its strategy optimiser works on all 2^d attribute sets).
MAX_ATTRIBUTES = 12


def _check_shape(shape: Any) -> tuple[int, ...]:
    """The table's attribute sizes as a tuple of ints >= 1 (1 to :data:`MAX_ATTRIBUTES` of them)."""
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence) or not 1 <= len(shape) <= MAX_ATTRIBUTES:
        raise ValueError(f"shape must be a sequence of 1 to {MAX_ATTRIBUTES} attribute sizes, got {shape!r}")
    out = tuple(check_int(f"shape[{i}]", v, minimum=1) for i, v in enumerate(shape))
    check_elements(float(np.prod(np.array(out, dtype=float))), "cells of the table", shape=out)
    return out


def _check_set(name: str, S: Any, d: int) -> tuple[int, ...]:
    """One attribute set as a sorted tuple of distinct attribute indices in ``[0, d)``."""
    if isinstance(S, (str, bytes)) or not isinstance(S, (Sequence, np.ndarray)) or np.ndim(S) != 1:
        raise ValueError(f"{name} must be a 1-D sequence of attribute indices in [0, {d}), got {S!r}")
    idx = tuple(sorted(check_int(f"{name}[]", a, minimum=0, maximum=d - 1) for a in S))
    if len(set(idx)) != len(idx):
        raise ValueError(f"{name} repeats an attribute: {S!r}")
    return idx


def _check_sets(sets: Any, d: int) -> tuple[tuple[int, ...], ...]:
    """Attribute sets as sorted tuples of distinct attribute indices in ``[0, d)``, at least one set."""
    if isinstance(sets, (str, bytes)) or not isinstance(sets, Sequence) or len(sets) == 0:
        raise ValueError(f"order must be an int or a non-empty sequence of attribute sets, got {sets!r}")
    return tuple(_check_set(f"order[{k}]", S, d) for k, S in enumerate(sets))


def marginal_matrix(shape: Sequence[int], attributes: Sequence[int]) -> sp.csr_array:
    """The 0/1 matrix ``M_S`` of the marginal on ``attributes`` of a table of ``shape`` (flattened row-major).

    Parameters
    ----------
    shape : sequence of int
        The attribute sizes ``(n_1, ..., n_d)``, each >= 1.
    attributes : sequence of int
        The attribute set ``S`` (indices in ``[0, d)``; empty for the total).

    Returns
    -------
    scipy.sparse.csr_array
        ``prod(n_i for i in S)`` rows, ``prod(shape)`` columns, one 1 per column.

    Raises
    ------
    ValueError
        If ``shape`` is not 1 to :data:`MAX_ATTRIBUTES` sizes >= 1, the table is too large, or an attribute is
        out of range or repeated.
    TypeError
        If a size or an attribute is not an integer.

    Examples
    --------
    >>> marginal_matrix((2, 3), [0]).toarray().astype(int).tolist()
    [[1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1]]
    """
    dims = _check_shape(shape)
    S = _check_set("attributes", attributes, len(dims))
    n = int(np.prod(dims))
    coords = np.unravel_index(np.arange(n), dims)
    rows = np.ravel_multi_index(tuple(coords[i] for i in S), tuple(dims[i] for i in S)) if S else np.zeros(n, int)
    m = int(np.prod([dims[i] for i in S]))
    return sp.csr_array((np.ones(n), (rows, np.arange(n))), shape=(m, n))


def marginals(shape: Sequence[int], order: int | Sequence[Sequence[int]] = 1) -> Workload:
    """All k-way marginals of a table (``order=k``), or the marginals on given attribute sets.

    Parameters
    ----------
    shape : sequence of int
        The attribute sizes ``(n_1, ..., n_d)``, 1 to :data:`MAX_ATTRIBUTES` of them, each >= 1.
    order : int or sequence of sequences of int, default 1
        ``k`` in ``[0, d]`` for all ``C(d, k)`` k-way marginals, or the attribute sets themselves.

    Returns
    -------
    Workload
        Sparse workload (kind "matrix") whose ``marginals`` attribute lists the attribute sets in row order.

    Raises
    ------
    ValueError
        If ``shape`` is not 1 to :data:`MAX_ATTRIBUTES` sizes >= 1, ``order`` is out of range, an attribute
        set is empty of sequences, out of range or repeats an attribute, or the workload would be too large.
    TypeError
        If a size, ``order`` or an attribute is not an integer.

    Examples
    --------
    >>> W = marginals((2, 3, 2), 2)
    >>> W.marginals, W.shape
    (((0, 1), (0, 2), (1, 2)), (16, 12))
    """
    dims = _check_shape(shape)
    d = len(dims)
    if isinstance(order, (int, np.integer)) and not isinstance(order, bool):
        k = check_int("order", order, minimum=0, maximum=d)
        sets = tuple(itertools.combinations(range(d), k))
    else:
        sets = _check_sets(order, d)
    rows = sum(float(np.prod([dims[i] for i in S])) for S in sets)
    check_elements(rows * len(dims) + float(np.prod(dims)) * len(sets), "marginal workload entries", shape=dims)
    M = sp.vstack([marginal_matrix(dims, S) for S in sets], format="csr")
    label = f"{len(sets)} marginals of a {'x'.join(map(str, dims))} table"
    return Workload(label, int(np.prod(dims)), "matrix", explicit=M, domain_shape=dims, marginals=sets)
