"""The :class:`Workload` operator: a batch of linear counting queries, explicit or implicit.

A workload is a matrix ``W`` with one row per query and one column per bin;
its answers on the histogram ``x`` are ``W x`` [LHRMM10]_.  Range workloads are
kept *implicitly* as ``(starts, stops)`` half-open intervals ``[start, stop)``,
because the all-range workload has ``n(n+1)/2`` rows (8.4 million at n = 4096)
while everything the matrix mechanism needs from it has a closed form: the
answers ``P[stop] - P[start]`` from the prefix sums ``P`` of ``x``, and the
Gram matrix, coverage (hence the sensitivities) and spectrum from
:mod:`dpviz.workloads.closed_forms`.

References
----------
.. [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
   Linear Counting Queries Under Differential Privacy." PODS 2010.

- [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query
  Answering under Differential Privacy." PVLDB 5(6), 2012.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from dpviz.mechanisms import sensitivity as _sens
from dpviz.validation import check_array, check_elements
from dpviz.workloads.closed_forms import (
    _all_range_intervals,
    _all_ranges_singular_values,
    _closed_form_eigh,
    _closed_form_singular_values,
    _range_coverage,
    _range_gram,
    _range_gram_matmul,
)

__all__ = ["Workload", "KINDS", "MAX_NNZ"]

#: The kinds of :class:`Workload`: three implicit families, explicit intervals, any matrix.
KINDS = ("identity", "prefix", "all_ranges", "ranges", "matrix")
#: Largest number of non-zeros :meth:`Workload.matrix` will build.
MAX_NNZ = 50_000_000


def _is_sparse(M: Any) -> bool:
    """``scipy.sparse.issparse`` as a plain bool (its type guard would hide the dense branch from mypy)."""
    return bool(sp.issparse(M))


@dataclass(frozen=True, eq=False)
class Workload:
    """A batch of linear queries over ``n`` bins, explicit or implicit (range workloads).

    Build one with the constructors of :mod:`dpviz.workloads` (:func:`~dpviz.workloads.all_ranges`,
    :func:`~dpviz.workloads.prefix`, :func:`~dpviz.workloads.from_matrix`, ...), not directly.

    Parameters
    ----------
    name : str
        Short label used in tables and figures.
    n : int
        Number of bins (columns of ``W``).
    kind : str
        One of :data:`KINDS`: "identity", "prefix", "all_ranges", "ranges" (explicit intervals) or "matrix".
    starts, stops : numpy.ndarray, optional
        For kind "ranges", query ``i`` is ``[starts[i], stops[i])`` (int64 arrays).
    explicit : numpy.ndarray or scipy.sparse.csr_array, optional
        For kind "matrix", the matrix itself.
    domain_shape : tuple of int
        Shape of the (flattened) data domain, ``(n,)`` or ``(n1, n2)``.
    kron2d : tuple of int, optional
        For all 2-D rectangles, ``(n1, n2)`` (``W = W1 kron W2``, spectrum in closed form).
    marginals : tuple of tuple of int, optional
        For marginal workloads over ``domain_shape``, the attribute sets of its marginals, in row order.

    Examples
    --------
    >>> from dpviz.workloads import prefix
    >>> W = prefix(3)
    >>> W.shape, W.gram().astype(int).tolist()
    ((3, 3), [[3, 2, 1], [2, 2, 1], [1, 1, 1]])
    """

    name: str
    n: int
    kind: str
    starts: npt.NDArray[np.int64] | None = field(default=None, repr=False)
    stops: npt.NDArray[np.int64] | None = field(default=None, repr=False)
    explicit: Any = field(default=None, repr=False)  # dense ndarray or sparse csr_array (kind "matrix")
    domain_shape: tuple[int, ...] = ()
    kron2d: tuple[int, int] | None = None
    marginals: tuple[tuple[int, ...], ...] | None = None

    def __repr__(self) -> str:
        return f"Workload({self.name!r}, n={self.n}, queries={self.n_queries}, kind={self.kind!r})"

    @cached_property
    def key(self) -> tuple:
        """A cache key that identifies the queries themselves (two workloads with one name may differ).

        ``(kind, n, digest)``: the digest is empty for implicit kinds, else a SHA-1 of the intervals or matrix.
        """
        h = hashlib.sha1()
        parts: tuple = ()
        if self.kind == "ranges":
            parts = (np.asarray(self.starts, dtype=np.int64), np.asarray(self.stops, dtype=np.int64))
        elif self.kind == "matrix":
            M: Any = sp.csr_array(self.explicit) if _is_sparse(self.explicit) else np.asarray(self.explicit, float)
            parts = (M.indptr, M.indices, M.data) if _is_sparse(M) else (M,)
            h.update(repr(M.shape).encode())
        for part in parts:
            h.update(np.ascontiguousarray(part).tobytes())
        return (self.kind, self.n, self.domain_shape, self.kron2d, self.marginals,
                h.hexdigest() if self.kind in ("ranges", "matrix") else "")

    # ------------------------------------------------------------------ sizes
    @property
    def n_queries(self) -> int:
        """Number of queries (rows of ``W``)."""
        if self.kind in ("identity", "prefix"):
            return self.n
        if self.kind == "all_ranges":
            return self.n * (self.n + 1) // 2
        if self.kind == "ranges":
            return int(self._given()[0].size)
        return int(self.explicit.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_queries, n)``."""
        return (self.n_queries, self.n)

    @property
    def is_range(self) -> bool:
        """True if every query is one interval ``[start, stop)`` of the 1-D domain."""
        return self.kind != "matrix"

    # ------------------------------------------------------------------ intervals
    def _stored(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The stored ``(starts, stops)`` for kind "ranges", empty arrays for the other kinds."""
        if self.kind == "ranges":
            return self._given()
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)

    def _given(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The stored ``(starts, stops)`` of a kind-"ranges" workload."""
        if self.starts is None or self.stops is None:
            raise ValueError(f"workload {self.name!r} of kind {self.kind!r} stores no intervals")
        return self.starts, self.stops

    def intervals(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The queries as intervals ``[start, stop)`` (range kinds only).

        Returns
        -------
        starts, stops : numpy.ndarray
            Two int64 arrays with one entry per query.

        Raises
        ------
        ValueError
            If the workload is of kind "matrix" (no interval form).
        """
        n = self.n
        if self.kind == "identity":
            a = np.arange(n, dtype=np.int64)
            return a, a + 1
        if self.kind == "prefix":
            return np.zeros(n, dtype=np.int64), np.arange(1, n + 1, dtype=np.int64)
        if self.kind == "all_ranges":
            return _all_range_intervals(n)
        if self.kind == "ranges":
            return self._given()
        raise ValueError(f"workload {self.name!r} of kind 'matrix' has no interval form")

    def _widths(self) -> np.ndarray:
        s, e = self.intervals()
        return e - s

    # ------------------------------------------------------------------ matrices
    def matrix(self, *, max_nnz: int = MAX_NNZ) -> Any:
        """The explicit workload matrix ``W`` (CSR for range workloads).

        Parameters
        ----------
        max_nnz : int, default MAX_NNZ
            Largest number of non-zeros to build.

        Returns
        -------
        numpy.ndarray or scipy.sparse.csr_array
            The stored matrix for kind "matrix", otherwise an (m, n) CSR array of 0/1 entries.

        Raises
        ------
        ValueError
            If the matrix would hold more than ``max_nnz`` non-zeros (use the
            implicit methods :meth:`gram`, :meth:`answer`, :meth:`rmatvec` instead).
        """
        if self.kind == "matrix":
            return self.explicit
        nnz = self._nnz()
        if nnz > max_nnz:
            raise ValueError(f"workload {self.name!r} at n={self.n} has {nnz} non-zeros > max_nnz={max_nnz}; "
                             "use its implicit form (gram, answer, rmatvec) instead of the matrix")
        s, e = self.intervals()
        w = e - s
        cols = np.arange(int(w.sum()), dtype=np.int64) - np.repeat(np.cumsum(w) - w, w) + np.repeat(s, w)
        indptr = np.concatenate([[0], np.cumsum(w)])
        return sp.csr_array((np.ones(cols.size), cols, indptr), shape=(s.size, self.n))

    def _nnz(self) -> int:
        n = self.n
        if self.kind == "identity":
            return n
        if self.kind in ("prefix",):
            return n * (n + 1) // 2
        if self.kind == "all_ranges":
            return n * (n + 1) * (n + 2) // 6
        if self.kind == "ranges":
            return int(self._widths().sum())
        return int(self.explicit.nnz) if _is_sparse(self.explicit) else int(np.count_nonzero(self.explicit))

    def gram(self) -> np.ndarray:
        """Dense Gram matrix ``W^T W``, in closed form for the range kinds.

        Entry ``(a, b)`` is the sum over queries of ``w_a w_b`` (for 0/1 ranges: the queries holding both bins).

        Returns
        -------
        numpy.ndarray
            Float array of shape (n, n).

        Raises
        ------
        ValueError
            If the n x n matrix is above the allocation cap (:data:`dpviz.validation.MAX_ELEMENTS`).
        """
        check_elements(float(self.n) ** 2, "dense Gram matrix W^T W (n x n)", n=self.n)
        if self.kind != "matrix":
            return _range_gram(self.kind, self.n, *self._stored())
        W = self.explicit
        return np.asarray((W.T @ W).toarray()) if _is_sparse(W) else W.T @ W

    def gram_matmul(self, V: npt.ArrayLike) -> np.ndarray:
        """``W^T W V`` without forming ``W^T W`` for range workloads: O(n) per column (all ranges, prefixes).

        Parameters
        ----------
        V : array_like
            Shape (n,) or (n, k).

        Returns
        -------
        numpy.ndarray
            Same shape as ``V``.

        Raises
        ------
        ValueError
            If ``V`` is not finite or its first axis is not ``n``.
        """
        V = check_array("V", V, ndim=(1, 2))
        if V.shape[0] != self.n:
            raise ValueError(f"V must have n={self.n} rows for workload {self.name!r}, got shape {V.shape}")
        B = V.reshape(self.n, -1)
        if self.kind == "matrix":
            W = self.explicit
            out = np.asarray(W.T @ np.asarray(W @ B))
        else:
            out = _range_gram_matmul(self.kind, self.n, B, *self._stored())
        return out.reshape(V.shape)

    # ------------------------------------------------------------------ products
    def answer(self, x: npt.ArrayLike) -> np.ndarray:
        """The query answers ``W x``.

        Parameters
        ----------
        x : array_like
            Histogram of shape (n,), or (k, n) for one histogram per trial.

        Returns
        -------
        numpy.ndarray
            Answers of shape (m,) or (k, m).

        Raises
        ------
        ValueError
            If ``x`` is not finite, not 1-D or 2-D, or its last axis is not ``n``.
        """
        x = check_array("x", x, ndim=(1, 2))
        if x.shape[-1] != self.n:
            raise ValueError(f"x must have n={self.n} entries on its last axis for workload {self.name!r}, "
                             f"got shape {x.shape}")
        if self.kind == "matrix":
            return np.asarray(self.explicit @ x.T).T
        P = np.zeros(x.shape[:-1] + (self.n + 1,))
        np.cumsum(x, axis=-1, out=P[..., 1:])
        s, e = self.intervals()
        return P[..., e] - P[..., s]

    def rmatvec(self, y: npt.ArrayLike) -> np.ndarray:
        """The transposed product ``W^T y``.

        Parameters
        ----------
        y : array_like
            One value per query, shape (m,) or (k, m).

        Returns
        -------
        numpy.ndarray
            Shape (n,) or (k, n).

        Raises
        ------
        ValueError
            If ``y`` is not finite, not 1-D or 2-D, or its last axis is not the number of queries.
        """
        y = check_array("y", y, ndim=(1, 2))
        if y.shape[-1] != self.n_queries:
            raise ValueError(f"y must have {self.n_queries} entries on its last axis (one per query), "
                             f"got shape {y.shape}")
        if self.kind == "matrix":
            return np.asarray(self.explicit.T @ y.T).T
        s, e = self.intervals()
        m = s.size
        # difference array: +y at start, -y at stop, then a running sum over the bins
        E = sp.csr_array((np.concatenate([np.ones(m), -np.ones(m)]),
                          (np.concatenate([np.arange(m), np.arange(m)]), np.concatenate([s, e]))),
                         shape=(m, self.n + 1))
        D = np.asarray(E.T @ y.T).T
        return np.cumsum(D, axis=-1)[..., : self.n]

    # ------------------------------------------------------------------ norms and spectrum
    def coverage(self) -> np.ndarray:
        """Number of queries touching each bin (for 0/1 workloads: the squared column L2 norms).

        Returns
        -------
        numpy.ndarray
            Float array of shape (n,).
        """
        if self.kind == "matrix":
            W = self.explicit
            touched = abs(W).astype(bool).sum(axis=0) if _is_sparse(W) else (W != 0).sum(axis=0)
            return np.asarray(touched, dtype=float).ravel()
        return _range_coverage(self.kind, self.n, *self._stored())

    def l1(self) -> float:
        """L1 sensitivity ``||W||_1``: the largest column L1 norm (closed form for ranges) [LHRMM10].

        Returns
        -------
        float
            The L1 sensitivity under add/remove-one-record neighbours.
        """
        if self.kind == "matrix":
            return _sens.l1(self.explicit)
        return float(self.coverage().max())

    def l2(self) -> float:
        """L2 sensitivity ``||W||_2``: the largest column L2 norm.

        Returns
        -------
        float
            The L2 sensitivity under add/remove-one-record neighbours.
        """
        if self.kind == "matrix":
            return _sens.l2(self.explicit)
        return float(np.sqrt(self.coverage().max()))

    def singular_values(self) -> np.ndarray:
        """Singular values of ``W``, closed forms for identity, prefix and all ranges [LM12].

        Returns
        -------
        numpy.ndarray
            The n singular values, descending.
        """
        closed = _closed_form_singular_values(self.kind, self.n)
        if closed is not None:
            return closed
        if self.kron2d is not None:  # all 2-D rectangles: W = W1 kron W2
            n1, n2 = self.kron2d
            s = np.outer(_all_ranges_singular_values(n1), _all_ranges_singular_values(n2)).ravel()
            return np.sort(s)[::-1]
        ev = np.linalg.eigvalsh(self.gram())
        return np.sqrt(np.clip(ev, 0.0, None))[::-1]

    def eigh(self) -> tuple[np.ndarray, np.ndarray]:
        """Eigenvalues and orthonormal eigenvectors of ``W^T W``.

        For prefixes and all ranges ``(W^T W)^{-1}`` is tridiagonal, so the
        decomposition takes ``O(n^2)`` (see :mod:`dpviz.workloads.closed_forms`);
        otherwise a dense ``numpy.linalg.eigh`` of :meth:`gram`.

        Returns
        -------
        sigma : numpy.ndarray
            The n eigenvalues, ascending.
        Q : numpy.ndarray
            (n, n) matrix whose columns are the matching eigenvectors (both paths refuse n x n above the cap).
        """
        closed = _closed_form_eigh(self.kind, self.n)
        if closed is not None:
            return closed
        sigma, Q = np.linalg.eigh(self.gram())
        return sigma, Q
