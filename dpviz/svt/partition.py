"""Step one of the GPTT attack (Algorithm 3 of [CM15]_): the ordered partition of the domain.

:func:`ordered_partition` asks an oracle all difference queries
``q_{x,y} = c(x) - c(y)`` over ordered pairs of cells and groups two cells x, y
when GPTT answered the same for every query in which they appear, as first
argument (``q_{x,z}`` and ``q_{y,z}``, their answer *rows*) and as second argument
(``q_{z,x}`` and ``q_{z,y}``, their answer *columns*); the groups are ordered by
how many cells each is "above".  Against GPTT (NOT differentially private) the
groups are level sets of the histogram, or unions of neighbouring ones.
:func:`calibrate_shift` (our refinement) first locates the noisy threshold.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpviz.svt.answer_keys import WORD_ROWS, AnswerKeys
from dpviz.svt.codes import ABOVE
from dpviz.svt.noise import _laplace_isf
from dpviz.svt.oracles import MAX_COPIES, DifferenceOracle
from dpviz.validation import check_bool, check_choice, check_elements, check_int, check_nonnegative

__all__ = ["OrderedPartition", "ordered_partition", "calibrate_shift", "MAX_CALIBRATION_STEPS", "GROUPINGS"]

#: Largest ``max_steps`` of :func:`calibrate_shift`: the shifts ``2**max_steps`` must stay finite floats.
MAX_CALIBRATION_STEPS = 1000

#: How :func:`ordered_partition` groups cells: by the answers to every query a cell appears in ("row_and_column",
#: [CM15] Algorithm 3), or by its answer row alone ("row", a weaker reading kept to show what it loses).
GROUPINGS = ("row_and_column", "row")

@dataclass(frozen=True)
class OrderedPartition:
    """Algorithm 3's output: the domain split into groups of cells GPTT cannot tell apart, in order of count.

    ``labels[x]`` is the group of cell x.  Groups are ordered by ``|S_x|``, the
    number of ``ABOVE`` answers in the cell's row (``S_x = {z : c(x) - c(z)
    answered ABOVE}``, [CM15] Lemma 5.10), ties broken by *more* ``ABOVE``
    answers in its column (``{z : c(z) - c(x) answered ABOVE}``: a smaller
    count lies below more cells); without query noise this is the order of
    the counts.

    Attributes
    ----------
    labels : numpy.ndarray of int64, shape (d,)
        Group of each cell.
    group_sizes : numpy.ndarray, shape (G,)
        Number of cells per group.
    scores : numpy.ndarray, shape (G,)
        ``|S_x|`` of each group: the number of ``ABOVE`` answers in its row.
    column_scores : numpy.ndarray, shape (G,)
        Number of ``ABOVE`` answers in each group's column (0 for the
        ``"row"`` grouping, which does not read columns).

    References
    ----------
    See [CM15] (Alg. 3, Lemma 5.10) in the module docstring.

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
    column_scores: np.ndarray

    @property
    def n_groups(self) -> int:
        """Number of groups G."""
        return int(self.group_sizes.size)


def _majority(answers: np.ndarray, copies: int) -> np.ndarray:
    """Majority vote over copies (ABOVE when more than half said ABOVE); with one copy HALTED (-1) stays -1.

    ``2 a > copies`` is ``a > copies // 2`` for integer counts a, compared in the answers' own dtype
    (no int64 copy of 16.8 million answers).
    """
    if copies == 1:
        return answers.astype(np.int8)
    return (answers > copies // 2).view(np.int8)


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
    if not isinstance(oracle, DifferenceOracle) or isinstance(oracle, np.ndarray):
        raise TypeError(f"oracle must provide answer_differences and noisy_group_totals, got {type(oracle).__name__}")
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
                      query_scale: float = 0.0, block: int = 512, grouping: str = "row_and_column") -> OrderedPartition:
    """Algorithm 3 of [CM15]: ordered partition of the domain from threshold answers to all difference queries.

    Against a GPTT oracle (NOT differentially private) the partition orders the cells by count; against an
    honest SVT oracle the halt after c answers leaves it almost uninformative.

    [CM15] Section 5, Algorithm 3: GPTT answers every difference query
    ``q_{x,y} = c(x) - c(y)`` (sensitivity 1), for all ordered pairs of cells,
    with threshold T; two cells x, y are grouped together when, for every cell
    z, GPTT gave the same answer to ``q_{x,z}`` and ``q_{y,z}`` *and* to
    ``q_{z,x}`` and ``q_{z,y}``: x and y are indistinguishable in every query
    they appear in (default ``grouping="row_and_column"``).  The groups are
    ordered by ``|S_x|``, ``S_x = {z : q_{x,z} answered ABOVE}`` (Lemma 5.10),
    ties (possible only between groups that differ in their columns) broken by
    more ABOVE answers in the column (a smaller count lies below more cells).  Without query noise the answer is
    ``c(x) - c(z) >= T^``, so row x is ABOVE for the cells with
    ``c(z) <= c(x) - T^`` and column x for those with ``c(z) >= c(x) + T^``: two
    counts ``i < j`` are separated as soon as some count lies in
    ``(i - T^, j - T^]`` or ``[i + T^, j + T^)``.  With a noisy threshold in
    (0, 1] every level set is its own group; with ``T^ > 1`` the smallest counts
    are still separated by their columns when larger counts are present
    (Theorem 5.12 needs every count ``0..k`` to occur).

    ``grouping="row"`` groups by the answer row alone (an earlier dpviz reading
    of the algorithm, kept to show what it loses: with ``T^ > 1`` every count
    below ``T^`` has an empty row, and all of them merge).  ``calibrate=True``
    first shifts the queries by :func:`calibrate_shift` so that the effective
    threshold lies in (0, 1] (our refinement, not the paper's).

    The oracle is asked the ``d x d`` queries row block by row block; rows and
    columns are packed to bits and the cells grouped by their keys
    (:mod:`dpviz.svt.answer_keys`), so the whole 4096-cell domain (about 16.8
    million queries) takes about 15 ms.  With ``copies > 1`` each answer is the majority vote of
    ``copies`` repetitions.

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
        Rows asked per call, rounded up to a multiple of 64 (memory/speed trade-off).
    grouping : {"row_and_column", "row"}, default "row_and_column"
        Group by every query a cell appears in ([CM15] Alg. 3), or by its row only.

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
        ``query_scale`` is negative, ``grouping`` is not one of :data:`GROUPINGS`,
        or the oracle answers with the wrong shape.

    References
    ----------
    See [CM15] (Section 5: Alg. 3, Lemma 5.10, Thm 5.12) in the module docstring.

    Examples
    --------
    >>> from dpviz.svt import GPTTOracle
    >>> x = [0, 1, 2, 3, 4, 5, 0, 1]
    >>> oracle = GPTTOracle(x, 0.5, rng=5)        # this noisy threshold lies in (2, 3]
    >>> ordered_partition(oracle).labels.tolist()
    [0, 1, 2, 3, 4, 5, 0, 1]
    >>> ordered_partition(oracle, grouping="row").labels.tolist()     # rows alone merge counts 0, 1, 2
    [0, 0, 0, 1, 2, 3, 0, 0]
    """
    if not isinstance(oracle, DifferenceOracle) or isinstance(oracle, np.ndarray):
        raise TypeError(f"oracle must provide answer_differences and noisy_group_totals, got {type(oracle).__name__}")
    copies = check_int("copies", copies, minimum=1, maximum=MAX_COPIES)
    calibrate = check_bool("calibrate", calibrate)
    query_scale = check_nonnegative("query_scale", query_scale)
    block = check_int("block", block, minimum=1)
    check_choice("grouping", grouping, GROUPINGS)
    d = check_int("oracle.domain_size", oracle.domain_size, minimum=1)
    # d * d queries are asked (run time), and min(block, d) * d answers are held at once (memory)
    check_elements(float(d) * d, "difference queries (d x d)", **{"oracle.domain_size": d})
    shift = calibrate_shift(oracle, copies=copies, query_scale=query_scale) if calibrate else 0.0
    keys = AnswerKeys(d, columns=grouping == "row_and_column")
    step = -(-block // WORD_ROWS) * WORD_ROWS     # whole words of column bits per block
    for start in range(0, d, step):
        rows = np.arange(start, min(d, start + step))
        votes = _majority(np.asarray(oracle.answer_differences(rows, copies=copies, shift=shift)), copies)
        if votes.shape != (rows.size, d):
            raise ValueError(f"oracle answered shape {votes.shape}, expected {(rows.size, d)}")
        keys.add(start, votes)
    scores, column_scores = keys.scores, keys.column_scores()
    first, inverse = keys.groups()
    group_score, group_column_score = scores[first], column_scores[first]
    order = np.lexsort((first, -group_column_score, group_score))    # by |S_x|, then more column ABOVEs
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    labels = rank[inverse].astype(np.int64)
    return OrderedPartition(labels=labels, group_sizes=np.bincount(labels, minlength=order.size),
                            scores=group_score[order], column_scores=group_column_score[order])
