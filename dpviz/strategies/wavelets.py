"""Wavelet strategies: Privelet's Haar matrix Y and the slides' rescaled Y''.

References
----------
- [XWG10] X. Xiao, G. Wang, J. Gehrke. "Differential Privacy via Wavelet
  Transforms." ICDE 2010.
- [Mik12] G. Miklau. DIMACS workshop slides, 2012 (the rescaled wavelet Y'').
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpviz import wavelet as _haar
from dpviz.validation import check_int

__all__ = ["wavelet", "rescaled_wavelet"]


def wavelet(n: int) -> sp.csr_array:
    """Privelet's Haar wavelet strategy Y [XWG10] (``||Y||_1 = 1 + log2 N``).

    Wraps :func:`dpviz.wavelet.haar_matrix`.

    Parameters
    ----------
    n : int
        Number of cells, >= 1 (padded to ``N = 2**ceil(log2 n)``).

    Returns
    -------
    scipy.sparse.csr_array
        The +-1 Haar matrix restricted to the n real cells.

    Examples
    --------
    >>> wavelet(4).shape
    (4, 4)
    """
    return _haar.haar_matrix(n)


def rescaled_wavelet(n: int) -> sp.csr_array:
    """The slides' better-scaled wavelet Y'': same ``A^T A`` as the Haar matrix Y, smaller sensitivity [Mik12].

    The total and the coarsest difference rows of Y, ``1_L + 1_R`` and
    ``1_L - 1_R`` (L, R the two halves of the padded domain), have the same
    norm, so rotating them by 45 degrees into ``sqrt(2) 1_L`` and ``sqrt(2) 1_R``
    keeps ``A^T A`` -- hence the error of every query up to the sensitivity --
    while each cell now meets ``sqrt(2)`` instead of ``1 + 1`` in those rows:
    ``||Y''||_1 = log2 N - 1 + sqrt(2)`` instead of ``1 + log2 N`` (``1 + sqrt(2)``
    vs 3 at n = 4), so every error drops by the factor
    ``((log2 N - 1 + sqrt(2)) / (1 + log2 N))^2``.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.

    Returns
    -------
    scipy.sparse.csr_array
        The rescaled matrix restricted to the n real cells (empty rows dropped).

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1.

    Examples
    --------
    >>> A = rescaled_wavelet(4).toarray()
    >>> round(float(abs(A).sum(axis=0).max()), 6)   # 1 + sqrt(2)
    2.414214
    """
    n = check_int("n", n, minimum=1)
    N = _haar.padded_size(n)
    Y = _haar.haar_matrix(N).tolil()
    if N >= 2:
        h = N // 2
        top = np.zeros((2, N))
        top[0, :h] = np.sqrt(2.0)
        top[1, h:] = np.sqrt(2.0)
        Y[0, :] = top[0]
        Y[1, :] = top[1]
    A = sp.csr_array(Y)[:, :n].tocsr()
    A.eliminate_zeros()
    keep = np.flatnonzero(np.diff(A.indptr) > 0)
    return A[keep].tocsr()
