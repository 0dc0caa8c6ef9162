"""The Haar wavelet matrix of Privelet: padding to a power of 2, the +-1 rows, and their L1 sensitivity.

See :mod:`dpviz.wavelet` for the construction and the references ([XWG10], [LHRMM10])."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from dpviz.validation import (
    check_elements,
    check_int,
)

if TYPE_CHECKING:
    pass

__all__ = ["padded_size", "haar_matrix", "haar_sensitivity"]


def padded_size(n: int) -> int:
    """``N = 2**ceil(log2 n)``, the padded domain size of the Haar transform.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.

    Returns
    -------
    int
        The smallest power of 2 that is >= n.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1.

    Examples
    --------
    >>> padded_size(5)
    8
    """
    n = check_int("n", n, minimum=1)
    return 1 << (n - 1).bit_length()


def _check_haar_size(n: int) -> int:
    """Refuse an n whose padded Haar matrix would hold more than the element cap (N (1 + log2 N) entries)."""
    N = padded_size(n)
    check_elements(float(N) * N.bit_length(), "Haar matrix entries", n=n)
    return N


def _full_haar(N: int) -> tuple[sp.csr_array, np.ndarray]:
    """+-1 Haar matrix of a power-of-2 size N (coarse rows first) and each row's support size."""
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    support: list[np.ndarray] = []
    cells = np.arange(N)
    rows.append(np.zeros(N, dtype=np.int64))
    cols.append(cells)
    vals.append(np.ones(N))
    support.append(np.array([N]))
    r = 1
    s = N
    while s >= 2:
        nblocks = N // s
        blk = cells // s
        rows.append(r + blk)
        cols.append(cells)
        vals.append(np.where((cells % s) < s // 2, 1.0, -1.0))
        support.append(np.full(nblocks, s))
        r += nblocks
        s //= 2
    A = sp.coo_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(N, N))
    return A.tocsr(), np.concatenate([np.asarray(x, dtype=float) for x in support])


def haar_matrix(n: int) -> sp.csr_array:
    """Privelet's Haar strategy as a sparse +-1 matrix over ``n`` cells.

    Row 0 is the total; then, from the coarsest level (block size ``N``) to the
    finest (block size 2), one row per dyadic block: +1 on its left half, -1 on
    its right half [XWG10] [LHRMM10].  For n not a power of 2 the domain is
    padded to ``N = 2**ceil(log2 n)`` empty cells and only the ``n`` real
    columns are kept; rows that would touch padding only are dropped.  L1
    sensitivity: ``1 + log2 N``.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.

    Returns
    -------
    scipy.sparse.csr_array
        Shape ``(rows, n)`` with ``rows = n`` when n is a power of 2.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1, or the matrix would exceed :data:`dpviz.validation.MAX_ELEMENTS` entries.

    Examples
    --------
    >>> haar_matrix(4).toarray().astype(int).tolist()
    [[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, 0, 0], [0, 0, 1, -1]]
    """
    N = _check_haar_size(n)
    A, _ = _full_haar(N)
    A = A[:, :n].tocsr()
    keep = np.flatnonzero(np.diff(A.indptr) > 0)
    return A[keep].tocsr()


def haar_sensitivity(n: int) -> int:
    """L1 sensitivity ``1 + log2 N`` of :func:`haar_matrix` (N the padded size).

    Parameters
    ----------
    n : int
        Number of cells, >= 1.

    Returns
    -------
    int
        ``1 + log2 N``: each cell meets the total and one row per level.

    Examples
    --------
    >>> haar_sensitivity(4), haar_sensitivity(5)
    (3, 4)
    """
    return padded_size(n).bit_length()
