"""Neighbouring inputs: the relations an audit can check and ready-made pairs for each.

Differential privacy compares a dataset with its neighbours: the same data with
one record added or removed.  An audit runs the mechanism on such a pair; the
pair may be given as histograms (counts differ by one in one cell), as record
arrays (one record more), or as the answers of sensitivity-bounded queries on
such a pair (the setting of the sparse vector technique).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpviz.validation import (
    check_array,
    check_bool,
    check_choice,
    check_counts,
    check_elements,
    check_int,
    check_positive,
    check_real,
)

#: The neighbouring relations :func:`check_neighbours` knows.
RELATIONS = ("histogram", "records", "query_answers")


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring inputs and how they are neighbours.

    Parameters
    ----------
    d : numpy.ndarray
        The first input (counts, records or query answers).
    d_prime : numpy.ndarray
        Its neighbour.
    relation : str
        How they are neighbours: one of :data:`RELATIONS` (see :func:`check_neighbours`).
    description : str
        A readable statement of the difference, e.g. "one record added to cell 2".

    Raises
    ------
    ValueError, TypeError
        As :func:`check_neighbours`, if ``d`` and ``d_prime`` are not neighbours under ``relation``.

    Examples
    --------
    >>> pair = NeighbourPair(np.array([3.0, 1.0]), np.array([3.0, 2.0]), "histogram", "one record added to cell 1")
    >>> check_neighbours(pair.d, pair.d_prime, pair.relation)
    """

    d: np.ndarray
    d_prime: np.ndarray
    relation: str
    description: str

    def __post_init__(self) -> None:
        check_neighbours(self.d, self.d_prime, self.relation)  # a pair that is not one would audit nothing
        ndim = None if self.relation == "histogram" else (1, 2) if self.relation == "records" else 1
        object.__setattr__(self, "d", check_array("d", self.d, ndim=ndim))
        object.__setattr__(self, "d_prime", check_array("d_prime", self.d_prime, ndim=ndim))


def check_neighbours(d: npt.ArrayLike, d_prime: npt.ArrayLike, relation: str, *, sensitivity: float = 1.0,
                     names: tuple[str, str] = ("d", "d_prime")) -> None:
    """Raise ``ValueError`` unless ``d`` and ``d_prime`` are neighbours under ``relation``.

    * ``"histogram"``: count vectors of the same shape with ``||d - d'||_1 = 1``
      (one record added or removed).
    * ``"records"``: arrays of records (1-D values or 2-D rows) where one is the
      other plus exactly one record.
    * ``"query_answers"``: vectors of answers of queries each of sensitivity
      ``sensitivity``: ``max_i |d_i - d'_i| <= sensitivity`` (the SVT setting).

    Parameters
    ----------
    d : array_like
        The first input.
    d_prime : array_like
        The second input.
    relation : {"histogram", "records", "query_answers"}
        The neighbouring relation to check.
    sensitivity : float
        For ``"query_answers"``: the largest allowed change of one answer, > 0.
    names : pair of str, default ("d", "d_prime")
        How the caller calls the two inputs, used in the error messages.

    Raises
    ------
    ValueError
        If ``relation`` is unknown, the inputs are not neighbours under it (shapes
        differ, L1 distance is not 1, more or other than one record differs, an
        answer moves by more than ``sensitivity``), counts are negative, or
        ``sensitivity`` <= 0.
    TypeError
        If an input is not array-like of numbers.

    Examples
    --------
    >>> check_neighbours([3, 0, 2], [3, 1, 2], "histogram")
    >>> check_neighbours([1.0, 2.0], [1.0, 2.0, 7.5], "records")
    >>> check_neighbours([0, 0], [0, 2], "query_answers")
    Traceback (most recent call last):
    ...
    ValueError: d and d_prime must differ by at most sensitivity=1 per query, got 2
    """
    check_choice("relation", relation, RELATIONS)
    s = check_positive("sensitivity", sensitivity)
    n1, n2 = names
    if relation == "histogram":
        a, b = check_counts(n1, d, ndim=None), check_counts(n2, d_prime, ndim=None)
        if a.shape != b.shape:
            raise ValueError(f"{n1} and {n2} must have the same shape, got {a.shape} and {b.shape}")
        dist = float(np.abs(a - b).sum())
        if dist != 1.0:
            raise ValueError(f"{n1} and {n2} must differ by one record (L1 distance 1), got distance {dist:g}")
    elif relation == "records":
        a, b = check_array(n1, d, ndim=(1, 2)), check_array(n2, d_prime, ndim=(1, 2))
        if a.ndim != b.ndim or a.shape[1:] != b.shape[1:]:
            raise ValueError(f"{n1} and {n2} must hold records of the same shape, got {a.shape} and {b.shape}")
        big, small = (a, b) if len(a) > len(b) else (b, a)
        ca = Counter(map(lambda r: tuple(np.atleast_1d(r)), big))
        cb = Counter(map(lambda r: tuple(np.atleast_1d(r)), small))
        if len(big) - len(small) != 1 or cb - ca:
            raise ValueError(f"{n1} and {n2} must differ by exactly one added record, got {len(a)} and {len(b)} "
                             "records" + ("" if len(big) - len(small) != 1 else " that differ in more than one"))
    else:
        a, b = check_array(n1, d, ndim=1), check_array(n2, d_prime, ndim=1)
        if a.shape != b.shape:
            raise ValueError(f"{n1} and {n2} must have the same shape, got {a.shape} and {b.shape}")
        gap = float(np.max(np.abs(a - b))) if a.size else 0.0
        if gap > s:
            raise ValueError(f"{n1} and {n2} must differ by at most sensitivity={s:g} per query, got {gap:g}")


def histogram_pair(counts: npt.ArrayLike, cell: int = 0, *, add: bool = True) -> NeighbourPair:
    """Counts ``d`` and ``d'`` = ``d`` with one record added to (or removed from) ``cell``.

    Parameters
    ----------
    counts : array_like
        The histogram ``d``: a 1-D array of non-negative counts.
    cell : int
        Index of the cell that gains (or loses) the record.
    add : bool
        True: add a record to ``cell``; False: remove one.

    Returns
    -------
    NeighbourPair
        ``(d, d')`` with relation ``"histogram"``.

    Raises
    ------
    ValueError
        If ``counts`` is empty or negative, ``cell`` is out of range, or
        ``add=False`` and ``cell`` is empty.
    TypeError
        If ``counts`` is not array-like of numbers, ``cell`` is not an integer or ``add`` is not a bool.

    Examples
    --------
    >>> pair = histogram_pair([12.0, 7.0, 3.0], cell=2)
    >>> pair.d_prime.tolist(), pair.description
    ([12.0, 7.0, 4.0], 'one record added to cell 2')
    """
    counts = check_counts("counts", counts)
    add = check_bool("add", add)
    cell = check_int("cell", cell)
    if not 0 <= cell < counts.size:
        raise ValueError(f"cell={cell} is not a cell of counts (length {counts.size}): cell must be an integer in "
                         f"[0, {counts.size - 1}]")
    other = counts.copy()
    if add:
        other[cell] += 1
    else:
        if counts[cell] < 1:
            raise ValueError(f"cell {cell} is empty: no record to remove")
        other[cell] -= 1
    verb = "added to" if add else "removed from"
    return NeighbourPair(counts, other, "histogram", f"one record {verb} cell {cell}")


def sum_pair(values: npt.ArrayLike, record: float) -> NeighbourPair:
    """Records ``d`` and ``d'`` = ``d`` plus one record of value ``record`` (use a large one, e.g. the clip bound).

    Parameters
    ----------
    values : array_like
        The records of ``d``, 1-D.
    record : float
        Value of the record added to form ``d'``.

    Returns
    -------
    NeighbourPair
        ``(d, d')`` with relation ``"records"``.

    Raises
    ------
    ValueError
        If ``values`` is not 1-D or ``record`` is not a scalar.
    TypeError
        If either is not numeric.

    Examples
    --------
    >>> sum_pair([5.0, 12.0], 100.0).d_prime.tolist()
    [5.0, 12.0, 100.0]
    """
    values = check_array("values", values, ndim=1)
    record = check_real("record", record)
    return NeighbourPair(values, np.append(values, record), "records", f"one record of value {record:g} added")


def query_pair(answers: npt.ArrayLike, answers_prime: npt.ArrayLike, description: str = "") -> NeighbourPair:
    """Answer vectors of sensitivity-1 queries on neighbouring data (checked: ``max |a - a'| <= 1``).

    Parameters
    ----------
    answers : array_like
        The query answers on ``d``, 1-D.
    answers_prime : array_like
        The answers on its neighbour, same shape.
    description : str
        A readable statement of the pair (default: a generic one).

    Returns
    -------
    NeighbourPair
        The two answer vectors with relation ``"query_answers"``.

    Raises
    ------
    ValueError
        If the vectors are not 1-D, differ in shape, or an answer moves by more than 1.
    TypeError
        If either is not array-like of numbers.

    Examples
    --------
    >>> query_pair([0.0, 1.0], [1.0, 0.0]).relation
    'query_answers'
    """
    a, b = check_array("answers", answers, ndim=1), check_array("answers_prime", answers_prime, ndim=1)
    check_neighbours(a, b, "query_answers", names=("answers", "answers_prime"))
    return NeighbourPair(a, b, "query_answers", description or "query answers moving by at most 1")


def statdp_x_pair(m: int = 10) -> NeighbourPair:
    """StatDP's "X" pair of query answers: ``(1,..,1, 0,..,0)`` and ``(0,..,0, 1,..,1)`` (m/2 each).

    Every sensitivity-1 query moves by 1, half up and half down ([DWWZK18]); the
    event "first half above, second half below" exposes GPTT.

    Parameters
    ----------
    m : int
        Number of queries, even and >= 2.

    Returns
    -------
    NeighbourPair
        The two answer vectors with relation ``"query_answers"``.

    Raises
    ------
    ValueError
        If ``m`` < 2, odd or above :data:`dpviz.validation.MAX_ELEMENTS`.
    TypeError
        If ``m`` is not an integer.

    References
    ----------
    Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer. "Detecting Violations of
    Differential Privacy." CCS 2018 (StatDP; [DWWZK18] in :mod:`dpviz.audit`).

    Examples
    --------
    >>> statdp_x_pair(4).d.tolist()
    [1.0, 1.0, 0.0, 0.0]
    """
    m = check_int("m", m, minimum=2)
    check_elements(float(m), "query answers per vector", m=m)
    if m % 2:
        raise ValueError(f"m must be even, got {m}")
    a = np.repeat([1.0, 0.0], m // 2)
    return NeighbourPair(a, 1.0 - a, "query_answers", f"StatDP X pair, {m} queries")
