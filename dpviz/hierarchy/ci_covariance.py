"""The covariance of constrained inference as a tree matrix: exact range variances in O(h^2) per query.

Constrained inference returns the generalised least-squares leaves, whose covariance is
``Sigma = T^{-1}`` for ``T = sum_v alpha_v 1_v 1_v^T`` (``alpha_v = 1/V_v`` for a measured node of noise
variance ``V_v``, 0 otherwise).  Peeling the tree bottom-up with Sherman-Morrison (for a node ``v`` with
children ``c``: ``T_v = blockdiag(T_c) + alpha_v 1 1^T``) gives, for this module,

``Sigma = V_0 I - sum_{internal v} beta_v w_v w_v^T``,   ``beta_v = alpha_v / (1 + alpha_v K_v)``,

where ``w_v = concat_c(u_c)`` stacks the children's ``u_c = T_c^{-1} 1`` (``u = V_0`` on a leaf,
``u_v = gamma_v w_v`` with ``gamma_v = 1/(1 + alpha_v K_v)``) and ``K_v = sum_c 1^T u_c``.  So a range
``R`` has variance ``V_0 |R| - sum_v beta_v (w_v . 1_R)^2``.

Every node but the last one of a level is *complete* (``b^l`` leaves, complete subtree): its ``w`` is
the constant ``upsilon_{l-1}`` and ``beta`` depends on the level only.  The last node of a level may be
short; its ``w`` is constant on at most ``h + 1`` pieces ``[A_j, A_{j-1})``, where ``A_j`` is the first
leaf of the last node of level ``j``.  Hence every sum over ranges reduces to sums of squared overlaps
``F(X, w) = sum_i |[i, i + w) n X|^2`` of intervals ``X`` with the ranges of width ``w``, which have closed
forms (:func:`_overlap_squares`), and to arithmetic series over the complete nodes of a level.

References
----------
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of Differentially Private
  Histograms Through Consistency." PVLDB 3(1), 2010 (constrained inference = least squares).
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for Differentially Private
  Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dpviz.hierarchy.budgets import _level_variances
from dpviz.hierarchy.tree import Tree

__all__: list[str] = []


@dataclass(frozen=True)
class _TreeCovariance:
    """The constants of ``Sigma = V_0 I - sum_v beta_v w_v w_v^T`` for one tree and allocation (epsilon = 1).

    ``complete[l] = (count, B, beta * upsilon_{l-1}^2)`` for the complete nodes of level ``l >= 1``;
    ``bounds`` the piece boundaries ``A_j`` (ascending, then ``n``); ``last[l] = (beta, values)`` for the
    short last node of level ``l``, ``values[k]`` its ``w`` on the piece ``[bounds[k], bounds[k + 1])``.
    """

    n: int
    v0: float
    complete: tuple[tuple[int, int, float], ...]
    bounds: np.ndarray
    last: tuple[tuple[float, np.ndarray], ...]


@lru_cache(maxsize=128)
def _tree_covariance(tree: Tree, allocation: str) -> _TreeCovariance:
    """The tree-matrix form of the constrained-inference covariance (see the module docstring)."""
    V = _level_variances(tree, allocation)
    alpha = np.where(np.isfinite(V), 1.0 / np.where(np.isfinite(V), V, 1.0), 0.0)
    b, h, n = tree.branching, tree.height, tree.n
    v0 = float(V[0])
    ups, k_full = v0, v0                    # u and k of a complete node of the level below
    k_last, u_last = v0, np.array([v0])     # k and u (on its pieces) of the last node of the level below
    first: list[int] = []                   # A_j: the first leaf of each short last node, and of the one below
    complete: list[tuple[int, int, float]] = []
    last: list[tuple[float, np.ndarray]] = []
    for l in range(1, h + 1):
        B = b**l
        m, m_below = tree.sizes[l], tree.sizes[l - 1]
        children = m_below - (m - 1) * b
        short = (n - (m - 1) * B) != B
        K = b * k_full
        g = 1.0 / (1.0 + alpha[l] * K)
        K_last = (children - 1) * k_full + k_last
        g_last = 1.0 / (1.0 + alpha[l] * K_last)
        complete.append((m - 1 if short else m, B, float(alpha[l] * g) * ups * ups))
        if short:
            # w of the last node: upsilon on its complete children [A_l, A_{l-1}), then its last child's u
            # on that child's pieces (one piece [A_{l-1}, n) when that child is complete)
            if not first:
                first.append((m_below - 1) * b ** (l - 1))
            first.append((m - 1) * B)
            w_last = np.concatenate([[ups], u_last])
            last.append((float(alpha[l] * g_last), w_last))
            u_last = g_last * w_last
        else:
            u_last = np.array([g * ups])
        k_last = g_last * K_last
        ups, k_full = g * ups, g * K
    bounds = np.array(first[::-1] + [n], dtype=np.int64)     # ascending; a piece may be empty
    # express every last node's w on the common pieces (its own pieces are a suffix of them)
    npieces = bounds.size - 1
    padded = tuple((beta, np.concatenate([np.zeros(npieces - w.size), w])) for beta, w in last)
    return _TreeCovariance(n, v0, tuple(complete), bounds, padded)


def _t2(k: np.ndarray) -> np.ndarray:
    """``1^2 + 2^2 + ... + k^2`` (0 for k <= 0), as floats."""
    k = np.maximum(k, 0).astype(float)
    return k * (k + 1.0) * (2.0 * k + 1.0) / 6.0


def _ramp_squares(J: np.ndarray, s: int) -> np.ndarray:
    """``sum_{j=1}^{J} min(j, s)^2``: the squared overlaps of an interval of length s with the windows of a
    given width that stick out of the domain on one side (J of them overlap the interval)."""
    J = np.maximum(J, 0)
    return _t2(np.minimum(J, s)) + float(s) * s * np.maximum(J - s, 0)


def _overlap_squares(a: int, c: int, n: int, w: np.ndarray) -> np.ndarray:
    """``F([a, c), w) = sum_{i=0}^{n-w} |[i, i + w) n [a, c)|^2`` for each width in ``w`` (closed form).

    Over all integer ``i`` the overlaps rise 1..m-1, stay at ``m = min(s, w)`` for ``|s - w| + 1`` windows
    and fall back (``s = c - a``); the windows that start before 0 or end after ``n`` are subtracted.
    """
    s = c - a
    if s <= 0:
        return np.zeros(w.shape)
    m = np.minimum(s, w)
    total = 2.0 * _t2(m - 1) + m.astype(float) ** 2 * (np.maximum(s, w) - m + 1)
    return total - _ramp_squares(w - a - 1, s) - _ramp_squares(w - (n - c) - 1, s)


def _ramp_series(J0: np.ndarray, B: int, K: int) -> np.ndarray:
    """``sum_{k=0}^{K-1} _ramp_squares(J0 - k B, B)`` in closed form (an arithmetic series plus one term)."""
    k1 = np.clip((J0 - B) // B + 1, 0, K)                 # terms with J >= B: T2(B) + B^2 (J - B)
    k1f = k1.astype(float)
    full = k1f * _t2(np.array(B)) + float(B) * B * (k1f * (J0 - B) - B * k1f * (k1f - 1.0) / 2.0)
    rest = J0 - k1 * B                                    # the next term, if any, has 0 < J < B
    return full + np.where(k1 < K, _t2(rest), 0.0)


def _complete_overlap_squares(B: int, K: int, n: int, w: np.ndarray) -> np.ndarray:
    """``sum_k F([k B, (k + 1) B), w)`` over the K complete nodes of a level, in O(1) per width."""
    m = np.minimum(B, w)
    inside = 2.0 * _t2(m - 1) + m.astype(float) ** 2 * (np.maximum(B, w) - m + 1)
    return K * inside - _ramp_series(w - 1, B, K) - _ramp_series(w - (n - K * B) - 1, B, K)


def _last_node_terms(tc: _TreeCovariance) -> np.ndarray:
    """``C[k, k'] = sum_L beta_L d_k d_k'`` with ``d`` the jumps of each short last node's ``w`` between
    the suffixes ``T_k = [bounds[k], n)`` (``w . 1_R = sum_k d_k |R n T_k|``)."""
    P = tc.bounds.size - 1
    C = np.zeros((P, P))
    for beta, vals in tc.last:
        d = np.diff(np.concatenate([[0.0], vals]))
        C += beta * np.outer(d, d)
    return C


def _ci_variance_sums(tree: Tree, allocation: str, w: np.ndarray) -> np.ndarray:
    """Sum over the ``n - w + 1`` ranges of each width ``w`` of their variance after constrained inference
    (epsilon = 1), exactly, in O(h^2) per width."""
    tc = _tree_covariance(tree, allocation)
    n = tc.n
    w = np.asarray(w, dtype=np.int64)
    out = tc.v0 * w * (n - w + 1.0)
    for count, B, coef in tc.complete:
        if count and coef:
            out -= coef * _complete_overlap_squares(B, count, n, w)
    if tc.last:
        C = _last_node_terms(tc)
        b = tc.bounds
        P = b.size - 1
        suffix = [_overlap_squares(int(b[k]), n, n, w) for k in range(P)]
        for k in range(P):
            out -= C[k, k] * suffix[k]
            for k2 in range(k + 1, P):
                if C[k, k2]:   # |R n T_k| |R n T_k2| summed: (F(T_k) - F([b_k, b_k2)) + F(T_k2)) / 2
                    gap = _overlap_squares(int(b[k]), int(b[k2]), n, w)
                    out -= C[k, k2] * (suffix[k] - gap + suffix[k2])
    return out


def _ci_range_variances(tree: Tree, allocation: str, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Variance after constrained inference (epsilon = 1) of each range ``[i, j)``, in O(h^2) per range."""
    tc = _tree_covariance(tree, allocation)
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    out = tc.v0 * (j - i).astype(float)
    for count, B, coef in tc.complete:
        if not (count and coef):
            continue
        kl, kr = i // B, (j - 1) // B
        same = kl == kr
        left = np.where(kl < count, (kl + 1) * B - i, 0)
        right = np.where(kr < count, j - kr * B, 0)
        inner = np.maximum(np.minimum(kr, count) - kl - 1, 0)
        sq = np.where(same, np.where(kl < count, (j - i).astype(float) ** 2, 0.0),
                      left.astype(float) ** 2 + right.astype(float) ** 2 + inner * float(B) * B)
        out -= coef * sq
    if tc.last:
        ov = np.maximum(j[:, None] - np.maximum(i[:, None], tc.bounds[None, :-1]), 0).astype(float)
        for beta, vals in tc.last:
            d = np.diff(np.concatenate([[0.0], vals]))
            out -= beta * (ov @ d) ** 2
    return out
