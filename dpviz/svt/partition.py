"""Step one of the GPTT attack (Algorithm 3 of [CM15]_): the ordered partition of the domain.

:func:`ordered_partition` asks an oracle all difference queries and groups the
cells with identical answer rows, ordered by how many cells each is "above";
against GPTT (NOT differentially private) the groups are the level sets of the
histogram.  :func:`calibrate_shift` (our refinement) first locates the noisy
threshold so that this holds whatever the threshold noise.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpviz.svt.codes import ABOVE, HALTED
from dpviz.svt.noise import _laplace_isf
from dpviz.svt.oracles import MAX_COPIES, DifferenceOracle
from dpviz.validation import check_bool, check_elements, check_int, check_nonnegative

__all__ = ["OrderedPartition", "ordered_partition", "calibrate_shift", "MAX_CALIBRATION_STEPS"]

#: Largest ``max_steps`` of :func:`calibrate_shift`: the shifts ``2**max_steps`` must stay finite floats.
MAX_CALIBRATION_STEPS = 1000


@dataclass(frozen=True)
class OrderedPartition:
    """Algorithm 3's output: the domain split into groups with identical answer rows, ordered by ``|S_x|``.

    ``labels[x]`` is the group of cell x; group 0 has the smallest ``|S_x|``
    (= the smallest counts when the noisy threshold lies in (0, 1]).

    Attributes
    ----------
    labels : numpy.ndarray of int64, shape (d,)
        Group of each cell.
    group_sizes : numpy.ndarray, shape (G,)
        Number of cells per group.
    scores : numpy.ndarray, shape (G,)
        ``|S_x|`` of each group: the number of ``ABOVE`` answers in its row.

    References
    ----------
    See [CM15] (Alg. 3) in the module docstring.

    Examples
    --------
    >>> from dpviz.svt import GPTTOracle
    >>> part = ordered_partition(GPTTOracle([2, 0, 2, 1], 1.0, rng=0), calibrate=True)
    >>> part.labels.tolist(), part.group_sizes.tolist(), part.n_groups
    ([2, 0, 2, 1], [1, 1, 2], 3)
    """

    labels: np.ndarray
    group_sizes: np.ndarray
    scores: np.ndarray

    @property
    def n_groups(self) -> int:
        """Number of groups G."""
        return int(self.group_sizes.size)


def _majority(answers: np.ndarray, copies: int) -> np.ndarray:
    """Majority vote over copies (ABOVE when more than half said ABOVE); HALTED (-1) stays -1."""
    if copies == 1:
        return answers.astype(np.int8)
    return (answers.astype(np.int64) * 2 > copies).astype(np.int8)


def calibrate_shift(oracle: DifferenceOracle, *, copies: int = 1, query_scale: float = 0.0,
                    max_steps: int = 64) -> float:
    """Locate the noisy threshold with constant queries and return the shift that centres it in (0, 1].

    The constant query ``c(0) - c(0) + j = j`` (sensitivity 0) is ``ABOVE`` exactly when
    ``j >= T^`` (without query noise; with it, a majority of ``copies`` answers
    is ABOVE exactly when ``j >= T^`` up to sampling error, since the noise has
    median 0).  Doubling then bisection over the integers finds the smallest
    such j in ``O(log |T^|)`` queries.  Without query noise the shift is
    ``j - 1 = ceil(T^) - 1``: the effective threshold ``T^ - shift`` lies in
    (0, 1], where GPTT's answers to ``c(x) - c(y) + shift`` are exactly
    ``c(x) > c(y)``.  With query noise of known scale ``query_scale`` and
    ``copies > 1``, the fraction p of ABOVE answers to the constant query
    estimates ``T^ - j = S^{-1}(p)`` (``S`` the Laplace survival function), and
    the shift ``T^_est - 1/2`` puts the effective threshold half-way between the
    integer differences 0 and 1, where majority votes are most reliable.
    This refinement is ours, not [CM15]'s: an attacker need not be lucky with
    the threshold noise.

    Parameters
    ----------
    oracle : DifferenceOracle
        The only access to the data; asked constant queries (row 0 against itself).
    copies : int, default 1
        Repetitions of each constant query, combined by majority vote.
    query_scale : float, default 0
        The public Laplace scale of the oracle's query noise (0: none).
    max_steps : int, default 64
        Give up once the doubling search passes ``2 ** max_steps``; in
        ``[1, MAX_CALIBRATION_STEPS]`` (1000, so every shift is a finite float).

    Returns
    -------
    float
        The shift to add to every difference query.

    Raises
    ------
    ValueError, TypeError
        If ``copies`` is not an int in ``[1, 2**30]``, ``query_scale`` is
        negative, ``max_steps`` is not an int in ``[1, 1000]``, or if the
        threshold cannot be located within ``2 ** max_steps`` (the message
        names ``max_steps``).

    References
    ----------
    See [CM15] (Section 5) in the module docstring.

    Examples
    --------
    >>> from dpviz.svt import GPTTOracle
    >>> calibrate_shift(GPTTOracle([5, 2, 7], 0.1, rng=0))     # this noisy threshold lies in (3, 4]
    3.0
    """
    copies = check_int("copies", copies, minimum=1, maximum=MAX_COPIES)
    query_scale = check_nonnegative("query_scale", query_scale)
    max_steps = check_int("max_steps", max_steps, minimum=1, maximum=MAX_CALIBRATION_STEPS)
    limit = 2 ** max_steps
    row0 = np.array([0])

    def count(j: float) -> int:
        return int(np.asarray(oracle.answer_differences(row0, copies=copies, shift=float(j)))[0, 0])

    def above(j: int) -> bool:
        a = count(j)
        return a == ABOVE if copies == 1 else 2 * a > copies

    lo, hi = -1, 0                       # invariant once found: not above(lo), above(hi)
    if above(0):
        step = 1
        while above(-step):
            step *= 2
            if step > limit:
                raise ValueError(f"could not locate the noisy threshold: every constant query down to -2**max_steps "
                                 f"answered ABOVE (max_steps={max_steps}); raise max_steps, or the threshold "
                                 "budget if its noise is this large")
        lo, hi = -step, -step // 2 if step > 1 else 0
    else:
        step = 1
        while not above(step):
            step *= 2
            if step > limit:
                raise ValueError(f"could not locate the noisy threshold: every constant query up to 2**max_steps "
                                 f"answered BELOW (max_steps={max_steps}); raise max_steps, or the threshold "
                                 "budget if its noise is this large")
        lo, hi = step // 2 if step > 1 else 0, step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if above(mid):
            hi = mid
        else:
            lo = mid
    if query_scale == 0 or copies == 1:
        return float(hi - 1)
    estimates = []
    for j in (lo, hi):
        p = count(j) / copies
        if 0 < p < 1:   # invert P(j + nu >= T^) = S(T^ - j) for Laplace noise of scale query_scale
            gap = _laplace_isf(p, query_scale)
            estimates.append((abs(p - 0.5), j + gap))
    if not estimates:
        return float(hi - 1)
    return float(min(estimates)[1] - 0.5)


def ordered_partition(oracle: DifferenceOracle, *, copies: int = 1, calibrate: bool = False,
                      query_scale: float = 0.0, block: int = 512) -> OrderedPartition:
    """Algorithm 3 of [CM15]: ordered partition of the domain from threshold answers to all difference queries.

    Against a GPTT oracle (NOT differentially private) the partition orders the cells by count; against an
    honest SVT oracle the halt after c answers leaves it almost uninformative.

    For every cell x the attack asks ``c(x) - c(y) >= T^ ?`` for all cells y
    (all ``d (d - 1)`` ordered pairs, i.e. every unordered pair both ways, plus the
    trivial ``x = y``), taking the majority over ``copies`` repetitions.  Cells
    with identical answer rows form a group; groups are ordered by the size of
    ``S_x = {y : ABOVE}``.  Sorting-based: rows are packed to bytes and grouped
    with :func:`numpy.unique`, so the whole domain of 4096 cells (about 16.8
    million ordered queries) takes a fraction of a second.

    When the noisy threshold lies in (0, 1] the groups are exactly the sets of
    cells with equal counts ([CM15] Lemma 5.10, Thm 5.12).  With
    ``calibrate=True`` the queries are first shifted by :func:`calibrate_shift`
    so that this holds whatever the threshold noise (our refinement).

    Parameters
    ----------
    oracle : DifferenceOracle
        The only access to the data (e.g. :class:`GPTTOracle`).
    copies : int, default 1
        Repetitions of each query, combined by majority vote.
    calibrate : bool, default False
        Shift the difference queries so the effective threshold lies in (0, 1].
    query_scale : float, default 0
        The (public) Laplace scale of GPTT's query noise, used by the calibration.
    block : int, default 512
        Rows asked per call (memory/speed trade-off).

    Returns
    -------
    OrderedPartition
        Group labels of the cells, ordered by ``|S_x|``, with group sizes and scores.

    Raises
    ------
    TypeError
        If ``oracle`` is not a :class:`DifferenceOracle` (e.g. an array of counts),
        or ``calibrate`` is not a bool.
    ValueError
        If ``copies`` is not an int in ``[1, 2**30]``, ``block`` or
        ``oracle.domain_size`` is not an int >= 1, ``oracle.domain_size ** 2``
        (the number of queries) exceeds :data:`dpviz.validation.MAX_ELEMENTS`,
        ``query_scale`` is negative, or the oracle answers with the wrong shape.

    References
    ----------
    See [CM15] (Alg. 3, Lemma 5.10, Thm 5.12) in the module docstring.

    Examples
    --------
    >>> from dpviz.svt import GPTTOracle
    >>> ordered_partition(GPTTOracle([2, 0, 2, 1], 1.0, rng=0), calibrate=True).labels
    array([2, 0, 2, 1])
    """
    if not isinstance(oracle, DifferenceOracle) or isinstance(oracle, np.ndarray):
        raise TypeError(f"oracle must provide answer_differences and noisy_group_totals, got {type(oracle).__name__}")
    copies = check_int("copies", copies, minimum=1, maximum=MAX_COPIES)
    calibrate = check_bool("calibrate", calibrate)
    query_scale = check_nonnegative("query_scale", query_scale)
    block = check_int("block", block, minimum=1)
    d = check_int("oracle.domain_size", oracle.domain_size, minimum=1)
    # d * d queries are asked (run time), and min(block, d) * d answers are held at once (memory)
    check_elements(float(d) * d, "difference queries (d x d)", **{"oracle.domain_size": d})
    shift = calibrate_shift(oracle, copies=copies, query_scale=query_scale) if calibrate else 0.0
    packed_rows, scores = [], np.empty(d, dtype=np.int64)
    for start in range(0, d, block):
        rows = np.arange(start, min(d, start + block))
        votes = _majority(np.asarray(oracle.answer_differences(rows, copies=copies, shift=shift)), copies)
        if votes.shape != (rows.size, d):
            raise ValueError(f"oracle answered shape {votes.shape}, expected {(rows.size, d)}")
        scores[rows] = np.count_nonzero(votes == ABOVE, axis=1)
        # two bit planes (ABOVE, HALTED) so halted answers stay distinguishable from BELOW
        planes = [np.packbits(votes == ABOVE, axis=1)]
        if np.any(votes == HALTED):
            planes.append(np.packbits(votes == HALTED, axis=1))
        else:
            planes.append(np.zeros_like(planes[0]))
        packed_rows.append(np.concatenate(planes, axis=1))
    packed = np.ascontiguousarray(np.concatenate(packed_rows, axis=0))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    group_score = scores[first]
    order = np.lexsort((first, group_score))     # by |S_x|, ties by first cell
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    labels = rank[inverse].astype(np.int64)
    return OrderedPartition(labels=labels, group_sizes=np.bincount(labels, minlength=order.size),
                            scores=group_score[order])
