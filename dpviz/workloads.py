"""Workloads: batches of linear counting queries over a histogram of ``n`` bins.

A workload is a matrix ``W`` with one row per query and one column per bin;
its answers on the histogram ``x`` are ``W x`` [LHRMM10]_.  Range workloads are
kept *implicitly* as ``(starts, stops)`` half-open intervals ``[start, stop)``,
because the all-range workload has ``n(n+1)/2`` rows (8.4 million at n = 4096)
while everything the matrix mechanism needs from it has a closed form:

* answers ``P[stop] - P[start]`` from the prefix sums ``P`` of ``x``;
* the Gram matrix ``W^T W``, whose entry ``(a, b)`` counts the queries that
  contain both bins: ``1`` on the diagonal for the identity, ``n - max(a, b)``
  for prefixes, ``(min(a, b) + 1)(n - max(a, b))`` for all ranges (0-indexed);
* the singular values (square roots of the eigenvalues of ``W^T W``):
  ``1`` (identity), ``1 / (2 sin((2k-1) pi / (2(2n+1))))`` (prefix; ``W^T W``
  has a tridiagonal inverse) and ``sqrt(n+1) / (2 sin(k pi / (2(n+1))))``
  (all ranges; ``W^T W = (n+1) T^{-1}`` with ``T = tridiag(-1, 2, -1)``),
  ``k = 1..n``;
* the L1 sensitivity ``||W||_1`` (largest column L1 norm): ``1``, ``n`` and
  ``max_a (a+1)(n-a)`` respectively.

Query order of :func:`all_ranges` follows the slides of [Mik12]_: widest first,
and left to right within a width (``range(x1, x4), range(x1, x3), range(x2,
x4), ..., range(x4, x4)`` at n = 4).  :func:`prefix` query ``k`` is ``[0, k+1)``.

Two-dimensional workloads (:func:`all_ranges_2d`, :func:`random_ranges_2d`,
:func:`marginals_2d`) act on a small ``n1 x n2`` table flattened row-major
(cell ``(i, j)`` is column ``i * n2 + j``) and are stored as sparse matrices.

References
----------
.. [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
   Linear Counting Queries Under Differential Privacy." PODS 2010.
.. [Mik12] G. Miklau. "Differentially-Private Batch Query Answering: Exploiting
   the Workload vs. Exploiting the Data." DIMACS workshop slides, 2012.
.. [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query
   Answering under Differential Privacy." PVLDB 5(6), 2012.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from dpviz import sensitivity as _sens
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_array, check_int, check_matrix

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
    "build",
    "WORKLOADS",
]

KINDS = ("identity", "prefix", "all_ranges", "ranges", "matrix")
#: Largest number of non-zeros :meth:`Workload.matrix` will build.
MAX_NNZ = 50_000_000
#: Names accepted by :func:`build` (the explorer's workload menu).
WORKLOADS = ("identity", "prefix", "all_ranges", "random_ranges", "width_ranges")


@dataclass(frozen=True, eq=False)
class Workload:
    """A batch of linear queries over ``n`` bins, explicit or implicit (range workloads).

    Build one with the module functions (:func:`all_ranges`, :func:`prefix`,
    :func:`from_matrix`, ...), not directly.

    Attributes
    ----------
    name : short label used in tables and figures
    n : number of bins (columns of ``W``)
    kind : "identity", "prefix", "all_ranges", "ranges" (explicit intervals) or "matrix"
    starts, stops : for kind "ranges", query ``i`` is ``[starts[i], stops[i])``
    explicit : for kind "matrix", the matrix (dense float array or CSR array)
    domain_shape : shape of the (flattened) data domain, ``(n,)`` or ``(n1, n2)``
    kron2d : for all 2-D rectangles, ``(n1, n2)`` (``W = W1 kron W2``, spectrum in closed form)
    """

    name: str
    n: int
    kind: str
    starts: np.ndarray | None = field(default=None, repr=False)
    stops: np.ndarray | None = field(default=None, repr=False)
    explicit: np.ndarray | sp.csr_array | None = field(default=None, repr=False)
    domain_shape: tuple[int, ...] = ()
    kron2d: tuple[int, int] | None = None

    def __repr__(self) -> str:
        return f"Workload({self.name!r}, n={self.n}, queries={self.n_queries}, kind={self.kind!r})"

    @cached_property
    def key(self) -> tuple:
        """A cache key that identifies the queries themselves (two workloads with one name may differ).

        ``(kind, n, digest)``: the digest is empty for the implicit kinds (fixed by ``n``), and a
        SHA-1 of the intervals or of the matrix otherwise (computed once, cached on the object).
        """
        h = hashlib.sha1()
        if self.kind == "ranges":
            h.update(np.ascontiguousarray(self.starts, dtype=np.int64).tobytes())
            h.update(np.ascontiguousarray(self.stops, dtype=np.int64).tobytes())
        elif self.kind == "matrix":
            M = self.explicit
            if sp.issparse(M):
                M = sp.csr_array(M)
                for part in (M.indptr, M.indices, M.data):
                    h.update(np.ascontiguousarray(part).tobytes())
                h.update(repr(M.shape).encode())
            else:
                h.update(np.ascontiguousarray(M, dtype=float).tobytes())
                h.update(repr(M.shape).encode())
        return (self.kind, self.n, self.domain_shape, self.kron2d,
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
            return int(self.starts.size)
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
    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, stops)`` int64 arrays of the queries ``[start, stop)`` (range kinds only)."""
        n = self.n
        if self.kind == "identity":
            a = np.arange(n, dtype=np.int64)
            return a, a + 1
        if self.kind == "prefix":
            return np.zeros(n, dtype=np.int64), np.arange(1, n + 1, dtype=np.int64)
        if self.kind == "all_ranges":
            return _all_range_intervals(n)
        if self.kind == "ranges":
            return self.starts, self.stops
        raise ValueError(f"workload {self.name!r} of kind 'matrix' has no interval form")

    def _widths(self) -> np.ndarray:
        s, e = self.intervals()
        return e - s

    # ------------------------------------------------------------------ matrices
    def matrix(self, *, max_nnz: int = MAX_NNZ) -> np.ndarray | sp.csr_array:
        """The explicit workload matrix ``W`` (CSR for range workloads).

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
        return int(self.explicit.nnz) if sp.issparse(self.explicit) else int(np.count_nonzero(self.explicit))

    def gram(self) -> np.ndarray:
        """Dense ``W^T W`` (n x n): entry (a, b) = sum over queries of ``w_a w_b``, closed form for ranges."""
        n = self.n
        if self.kind == "identity":
            return np.eye(n)
        a = np.arange(n)
        if self.kind == "prefix":
            return (n - np.maximum.outer(a, a)).astype(float)
        if self.kind == "all_ranges":
            return ((np.minimum.outer(a, a) + 1.0) * (n - np.maximum.outer(a, a)))
        if self.kind == "ranges":
            # G[a, b] (a <= b) = #{queries with start <= a and stop - 1 >= b}: a 2-D dominance count
            C = np.zeros((n, n))
            np.add.at(C, (self.starts, self.stops - 1), 1.0)
            C = np.cumsum(C, axis=0)                       # start <= a
            C = np.cumsum(C[:, ::-1], axis=1)[:, ::-1]     # stop - 1 >= b
            upper = np.triu(C)
            return upper + np.triu(C, 1).T
        W = self.explicit
        if sp.issparse(W):
            return np.asarray((W.T @ W).toarray())
        return W.T @ W

    # ------------------------------------------------------------------ products
    def answer(self, x) -> np.ndarray:
        """``W x`` for ``x`` of shape (n,) or (k, n) (one row per trial); returns (m,) or (k, m)."""
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

    def rmatvec(self, y) -> np.ndarray:
        """``W^T y`` for ``y`` of shape (m,) or (k, m); returns (n,) or (k, n)."""
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
        """Number of queries touching each bin (for 0/1 workloads: the squared column L2 norms)."""
        if self.kind == "matrix":
            W = self.explicit
            return np.asarray(abs(W).astype(bool).sum(axis=0) if sp.issparse(W) else (W != 0).sum(axis=0),
                              dtype=float).ravel()
        a = np.arange(self.n, dtype=float)
        if self.kind == "identity":
            return np.ones(self.n)
        if self.kind == "prefix":
            return self.n - a
        if self.kind == "all_ranges":
            return (a + 1) * (self.n - a)
        d = np.zeros(self.n + 1)
        np.add.at(d, self.starts, 1.0)
        np.add.at(d, self.stops, -1.0)
        return np.cumsum(d)[: self.n]

    def l1(self) -> float:
        """L1 sensitivity ``||W||_1``: largest column L1 norm (closed form for ranges) [LHRMM10]_."""
        if self.kind == "matrix":
            return _sens.l1(self.explicit)
        return float(self.coverage().max())

    def l2(self) -> float:
        """L2 sensitivity: largest column L2 norm."""
        if self.kind == "matrix":
            return _sens.l2(self.explicit)
        return float(np.sqrt(self.coverage().max()))

    def singular_values(self) -> np.ndarray:
        """Singular values of ``W``, descending (closed forms for identity, prefix and all ranges) [LM12]_."""
        n = self.n
        k = np.arange(1, n + 1, dtype=float)
        if self.kind == "identity":
            return np.ones(n)
        if self.kind == "prefix":
            return 1.0 / (2.0 * np.sin((2 * k - 1) * np.pi / (2 * (2 * n + 1))))
        if self.kind == "all_ranges":
            return np.sqrt(n + 1.0) / (2.0 * np.sin(k * np.pi / (2 * (n + 1))))
        if self.kron2d is not None:  # all 2-D rectangles: W = W1 kron W2
            n1, n2 = self.kron2d
            s = np.outer(all_ranges(n1).singular_values(), all_ranges(n2).singular_values()).ravel()
            return np.sort(s)[::-1]
        ev = np.linalg.eigvalsh(self.gram())
        return np.sqrt(np.clip(ev, 0.0, None))[::-1]


    def eigh(self) -> tuple[np.ndarray, np.ndarray]:
        """Eigenvalues (ascending) and orthonormal eigenvectors (columns) of ``W^T W``.

        For prefixes and all ranges ``(W^T W)^{-1}`` is tridiagonal (``S^{-1} S^{-T}``
        and ``T / (n+1)`` with ``T = tridiag(-1, 2, -1)``), so the decomposition
        comes from :func:`scipy.linalg.eigh_tridiagonal` in ``O(n^2)``; otherwise
        a dense ``numpy.linalg.eigh`` of :meth:`gram`.
        """
        n = self.n
        if self.kind == "identity":
            return np.ones(n), np.eye(n)
        if self.kind in ("prefix", "all_ranges") and n >= 2:
            from scipy.linalg import eigh_tridiagonal

            if self.kind == "prefix":
                d = np.full(n, 2.0)
                d[0] = 1.0
                mu, Q = eigh_tridiagonal(d, -np.ones(n - 1))
                sigma = 1.0 / mu
            else:
                mu, Q = eigh_tridiagonal(np.full(n, 2.0), -np.ones(n - 1))
                sigma = (n + 1.0) / mu
            order = np.argsort(sigma)
            return sigma[order], Q[:, order]
        return np.linalg.eigh(self.gram())


def _all_range_intervals(n: int) -> tuple[np.ndarray, np.ndarray]:
    """All n(n+1)/2 intervals, widest first, left to right within a width."""
    widths = np.repeat(np.arange(n, 0, -1, dtype=np.int64), np.arange(1, n + 1))
    counts = np.arange(1, n + 1, dtype=np.int64)  # width n has 1 start, width n-1 has 2, ...
    first = np.repeat(np.cumsum(counts) - counts, counts)
    starts = np.arange(widths.size, dtype=np.int64) - first
    return starts, starts + widths


def as_workload(W, name: str = "custom") -> Workload:
    """Return ``W`` if it is a :class:`Workload`, else wrap a dense/sparse matrix with :func:`from_matrix`."""
    if isinstance(W, Workload):
        return W
    return from_matrix(W, name=name)


# ---------------------------------------------------------------------------- constructors
def identity(n: int) -> Workload:
    """The n single-bin counts ``x_0, ..., x_{n-1}`` (``W = I``).

    Examples
    --------
    >>> identity(3).answer([4, 5, 6]).tolist()
    [4.0, 5.0, 6.0]
    """
    n = check_int("n", n, minimum=1)
    return Workload("identity", n, "identity", domain_shape=(n,))


def prefix(n: int) -> Workload:
    """The n prefix (cumulative) counts ``x_0 + ... + x_k``, k = 0..n-1 (a CDF).

    Examples
    --------
    >>> prefix(4).answer([10, 23, 16, 3]).tolist()
    [10.0, 33.0, 49.0, 52.0]
    """
    n = check_int("n", n, minimum=1)
    return Workload("prefix", n, "prefix", domain_shape=(n,))


def all_ranges(n: int) -> Workload:
    """All ``n(n+1)/2`` range queries ``x_i + ... + x_j``, widest first, held implicitly [Mik12]_.

    Examples
    --------
    >>> W = all_ranges(4)
    >>> W.answer([10, 23, 16, 3]).astype(int).tolist()   # the slides' true answers
    [52, 49, 42, 33, 39, 19, 10, 23, 16, 3]
    >>> W.l1()
    6.0
    """
    n = check_int("n", n, minimum=1)
    return Workload("all ranges", n, "all_ranges", domain_shape=(n,))


def ranges(n: int, starts, stops, *, name: str = "ranges") -> Workload:
    """User-given range queries ``[starts[i], stops[i])`` over n bins (0 <= start < stop <= n)."""
    n = check_int("n", n, minimum=1)
    s = np.asarray(starts)
    e = np.asarray(stops)
    for label, v in (("starts", s), ("stops", e)):
        if v.ndim != 1 or v.size == 0 or not np.issubdtype(v.dtype, np.integer):
            raise ValueError(f"{label} must be a non-empty 1-D integer array, got {v!r}")
    if s.shape != e.shape:
        raise ValueError(f"starts and stops must have the same shape, got {s.shape} and {e.shape}")
    if s.min() < 0 or e.max() > n or np.any(e <= s):
        raise ValueError(f"ranges must satisfy 0 <= start < stop <= n={n}")
    return Workload(name, n, "ranges", starts=s.astype(np.int64), stops=e.astype(np.int64), domain_shape=(n,))


def random_ranges(n: int, k: int, *, rng: RngLike = None) -> Workload:
    """k range queries drawn uniformly (with replacement) from the n(n+1)/2 ranges; seeded by ``rng``.

    Examples
    --------
    >>> random_ranges(16, 5, rng=0).n_queries
    5
    """
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=1)
    idx = as_generator(rng).integers(0, n * (n + 1) // 2, size=k)
    s, e = _all_range_intervals(n)
    return ranges(n, s[idx], e[idx], name=f"{k} random ranges")


def width_ranges(n: int, w: int) -> Workload:
    """The ``n - w + 1`` ranges of width ``w`` (a sliding window), left to right."""
    n = check_int("n", n, minimum=1)
    w = check_int("w", w, minimum=1, maximum=n)
    s = np.arange(n - w + 1, dtype=np.int64)
    return ranges(n, s, s + w, name=f"width-{w} ranges")


def from_matrix(W, *, name: str = "custom") -> Workload:
    """Wrap any query matrix ``W`` (rows = queries, columns = bins; dense or scipy.sparse)."""
    M = check_matrix("W", W)
    M = sp.csr_array(M) if sp.issparse(M) else M
    return Workload(name, int(M.shape[1]), "matrix", explicit=M, domain_shape=(int(M.shape[1]),))


def _check_shape2d(shape) -> tuple[int, int]:
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise ValueError(f"shape must be a pair (n1, n2), got {shape!r}")
    n1 = check_int("shape[0]", shape[0], minimum=1, maximum=64)
    n2 = check_int("shape[1]", shape[1], minimum=1, maximum=64)
    return n1, n2


def _rectangles(n1: int, n2: int, s1, e1, s2, e2) -> sp.csr_array:
    m = len(s1)
    rows, cols = [], []
    for q in range(m):
        ii, jj = np.meshgrid(np.arange(s1[q], e1[q]), np.arange(s2[q], e2[q]), indexing="ij")
        c = (ii * n2 + jj).ravel()
        rows.append(np.full(c.size, q))
        cols.append(c)
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    return sp.csr_array((np.ones(c.size), (r, c)), shape=(m, n1 * n2))


def all_ranges_2d(shape) -> Workload:
    """All axis-aligned rectangles of an ``n1 x n2`` table (flattened row-major); ``W^T W = G1 kron G2``.

    Examples
    --------
    >>> all_ranges_2d((2, 3)).n_queries   # 3 row intervals x 6 column intervals
    18
    """
    n1, n2 = _check_shape2d(shape)
    s1, e1 = _all_range_intervals(n1)
    s2, e2 = _all_range_intervals(n2)
    i1, i2 = np.meshgrid(np.arange(s1.size), np.arange(s2.size), indexing="ij")
    i1, i2 = i1.ravel(), i2.ravel()
    M = _rectangles(n1, n2, s1[i1], e1[i1], s2[i2], e2[i2])
    return Workload(f"all 2-D ranges {n1}x{n2}", n1 * n2, "matrix", explicit=M, domain_shape=(n1, n2),
                    kron2d=(n1, n2))


def random_ranges_2d(shape, k: int, *, rng: RngLike = None) -> Workload:
    """k rectangles of an ``n1 x n2`` table, each side an interval drawn uniformly; seeded by ``rng``."""
    n1, n2 = _check_shape2d(shape)
    k = check_int("k", k, minimum=1)
    g = as_generator(rng)
    s1, e1 = _all_range_intervals(n1)
    s2, e2 = _all_range_intervals(n2)
    i1 = g.integers(0, s1.size, size=k)
    i2 = g.integers(0, s2.size, size=k)
    M = _rectangles(n1, n2, s1[i1], e1[i1], s2[i2], e2[i2])
    return Workload(f"{k} random 2-D ranges {n1}x{n2}", n1 * n2, "matrix", explicit=M, domain_shape=(n1, n2))


def marginals_2d(shape) -> Workload:
    """The two one-way marginals of an ``n1 x n2`` table: n1 row sums then n2 column sums (rank n1 + n2 - 1).

    Examples
    --------
    >>> marginals_2d((2, 2)).answer([1, 2, 3, 4]).tolist()
    [3.0, 7.0, 4.0, 6.0]
    """
    n1, n2 = _check_shape2d(shape)
    cells = np.arange(n1 * n2)
    rows = np.concatenate([cells // n2, n1 + cells % n2])
    M = sp.csr_array((np.ones(2 * cells.size), (rows, np.concatenate([cells, cells]))), shape=(n1 + n2, n1 * n2))
    return Workload(f"marginals {n1}x{n2}", n1 * n2, "matrix", explicit=M, domain_shape=(n1, n2))


def build(name: str, n: int, *, k: int = 64, w: int | None = None, rng: RngLike = 0) -> Workload:
    """Workload by menu name: one of :data:`WORKLOADS` (``k`` random ranges seeded by ``rng``; width ``w``
    defaults to ``max(1, n // 4)``)."""
    from dpviz.validation import check_choice

    check_choice("workload", name, WORKLOADS)
    if name == "identity":
        return identity(n)
    if name == "prefix":
        return prefix(n)
    if name == "all_ranges":
        return all_ranges(n)
    if name == "random_ranges":
        return random_ranges(n, k, rng=rng)
    n = check_int("n", n, minimum=1)
    return width_ranges(n, max(1, n // 4) if w is None else w)
