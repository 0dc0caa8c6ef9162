"""A workload as the data-aware mechanisms see it: ranges or a matrix, scaled to sensitivity 1.

MWEM scores and measures single queries of the workload on many histograms at
once; DAWA's GreedyH stage maps the workload onto the learned buckets.  Both
accept a :class:`dpviz.workloads.Workload`, a ``(starts, stops)`` pair of
half-open integer ranges, or a (m, n) query matrix (dense or scipy.sparse).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from dpviz.validation import check_matrix


class _Queries:
    """A workload as seen by MWEM: answers of many histograms and single rows, scaled to [-1, 1].

    Either half-open ranges ``[starts, stops)`` (answered by prefix sums) or a
    matrix (dense or sparse).  ``scale`` is the largest absolute coefficient;
    rows and answers are divided by it so every query has sensitivity 1.
    MWEM selects and measures through it; DAWA's GreedyH stage maps it onto the buckets.
    """

    kind: str  # "ranges" or "matrix"
    starts: npt.NDArray[np.int64]  # ranges only
    stops: npt.NDArray[np.int64]  # ranges only
    W: Any  # matrix only: dense ndarray or scipy.sparse CSR array, divided by ``scale``
    m: int
    scale: float

    def __init__(self, workload: Any, n: int) -> None:
        self.n = n
        starts = stops = None
        if isinstance(workload, tuple) and len(workload) == 2:
            starts, stops = workload
        elif hasattr(workload, "is_range") and hasattr(workload, "intervals"):  # a dpviz.workloads.Workload
            if workload.n != n:
                raise ValueError(f"workload must be over n={n} cells, got {workload!r}")
            if workload.is_range:
                starts, stops = workload.intervals()
            else:
                workload = workload.matrix()
        if starts is not None:
            i = np.asarray(starts)
            j = np.asarray(stops)
            if not (np.issubdtype(i.dtype, np.integer) and np.issubdtype(j.dtype, np.integer)):
                raise TypeError(f"workload ranges (starts, stops) must be integer arrays, got dtypes {i.dtype} "
                                f"and {j.dtype}")
            if i.ndim != 1 or i.shape != j.shape or i.size == 0:
                raise ValueError(f"workload ranges must be two 1-D arrays of the same non-zero length, got shapes "
                                 f"{i.shape} and {j.shape}")
            bad = (i < 0) | (j > n) | (j <= i)
            if np.any(bad):
                t = int(np.flatnonzero(bad)[0])
                raise ValueError(f"workload ranges must satisfy 0 <= start < stop <= n={n} (the cells of x); got "
                                 f"[{i[t]}, {j[t]}) at index {t}")
            self.kind = "ranges"
            self.starts, self.stops = i.astype(np.int64), j.astype(np.int64)
            self.m = int(i.size)
            self.scale = 1.0
            return
        # dense ndarray or scipy.sparse CSC array (the stubs' union has no common shape or abs, hence Any)
        W: Any = check_matrix("workload", workload)
        if W.shape[1] != n:
            raise ValueError(f"workload must have one column per cell (n={n}), got shape {W.shape}")
        dense = isinstance(W, np.ndarray)
        scale = float(np.abs(W).max()) if dense else float(abs(W).max())
        if scale == 0:
            raise ValueError("workload must have at least one non-zero coefficient")
        self.kind = "matrix"
        self.W = W / scale if dense else sp.csr_array(W) / scale
        self.m = int(W.shape[0])
        self.scale = scale

    def answers(self, X: np.ndarray) -> np.ndarray:
        """(k, n) histograms -> (k, m) scaled answers."""
        if self.kind == "ranges":
            P = np.zeros((X.shape[0], self.n + 1))
            np.cumsum(X, axis=1, out=P[:, 1:])
            return P[:, self.stops] - P[:, self.starts]
        return np.asarray(self.W @ X.T).T

    def rows(self, idx: np.ndarray) -> np.ndarray:
        """(k,) query indices -> (k, n) dense scaled rows."""
        if self.kind == "ranges":
            cols = np.arange(self.n)
            return ((cols >= self.starts[idx, None]) & (cols < self.stops[idx, None])).astype(float)
        R = self.W[idx]
        return np.array(R, dtype=float) if isinstance(R, np.ndarray) else R.toarray()


def _queries_or_raise(workload: Any, n: int) -> _Queries:
    """The workload of MWEM or of DAWA's GreedyH stage as :class:`_Queries`; a TypeError if it is missing."""
    if workload is None:
        raise TypeError("workload must be given: (starts, stops) ranges or a query matrix, got None")
    return _Queries(workload, n)
