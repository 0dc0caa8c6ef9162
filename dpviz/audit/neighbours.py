"""Neighbouring inputs: the relations an audit can check and ready-made pairs for each."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from dpviz.validation import check_array, check_choice, check_counts, check_int, check_positive

#: The neighbouring relations :func:`check_neighbours` knows.
RELATIONS = ("histogram", "records", "query_answers")

@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring inputs and how they are neighbours (``relation`` is one of :data:`RELATIONS`)."""

    d: np.ndarray
    d_prime: np.ndarray
    relation: str
    description: str


def check_neighbours(d, d_prime, relation: str, *, sensitivity: float = 1.0) -> None:
    """Raise ``ValueError`` unless ``d`` and ``d_prime`` are neighbours under ``relation``.

    * ``"histogram"``: count vectors of the same shape with ``||d - d'||_1 = 1``
      (one record added or removed).
    * ``"records"``: arrays of records (1-D values or 2-D rows) where one is the
      other plus exactly one record.
    * ``"query_answers"``: vectors of answers of queries each of sensitivity
      ``sensitivity``: ``max_i |d_i - d'_i| <= sensitivity`` (the SVT setting).
    """
    check_choice("neighbours", relation, RELATIONS)
    if relation == "histogram":
        a, b = check_counts("d", d, ndim=None), check_counts("d_prime", d_prime, ndim=None)
        if a.shape != b.shape:
            raise ValueError(f"d and d_prime must have the same shape, got {a.shape} and {b.shape}")
        dist = float(np.abs(a - b).sum())
        if dist != 1.0:
            raise ValueError(f"d and d_prime must differ by one record (L1 distance 1), got distance {dist:g}")
    elif relation == "records":
        a, b = check_array("d", d, ndim=(1, 2)), check_array("d_prime", d_prime, ndim=(1, 2))
        if a.ndim != b.ndim or a.shape[1:] != b.shape[1:]:
            raise ValueError(f"d and d_prime must hold records of the same shape, got {a.shape} and {b.shape}")
        big, small = (a, b) if len(a) > len(b) else (b, a)
        ca = Counter(map(lambda r: tuple(np.atleast_1d(r)), big))
        cb = Counter(map(lambda r: tuple(np.atleast_1d(r)), small))
        if len(big) - len(small) != 1 or cb - ca:
            raise ValueError(f"d and d_prime must differ by exactly one added record, got {len(a)} and {len(b)} "
                             "records" + ("" if len(big) - len(small) != 1 else " that differ in more than one"))
    else:
        s = check_positive("sensitivity", sensitivity)
        a, b = check_array("d", d, ndim=1), check_array("d_prime", d_prime, ndim=1)
        if a.shape != b.shape:
            raise ValueError(f"d and d_prime must have the same shape, got {a.shape} and {b.shape}")
        gap = float(np.max(np.abs(a - b))) if a.size else 0.0
        if gap > s:
            raise ValueError(f"d and d_prime must differ by at most sensitivity={s:g} per query, got {gap:g}")


def histogram_pair(counts, cell: int = 0, *, add: bool = True) -> NeighbourPair:
    """Counts ``d`` and ``d'`` = ``d`` with one record added to (or removed from) ``cell``."""
    counts = check_counts("counts", counts)
    cell = check_int("cell", cell, minimum=0, maximum=counts.size - 1)
    other = counts.copy()
    if add:
        other[cell] += 1
    else:
        if counts[cell] < 1:
            raise ValueError(f"cell {cell} is empty: no record to remove")
        other[cell] -= 1
    verb = "added to" if add else "removed from"
    return NeighbourPair(counts, other, "histogram", f"one record {verb} cell {cell}")


def sum_pair(values, record: float) -> NeighbourPair:
    """Records ``d`` and ``d'`` = ``d`` plus one record of value ``record`` (use a large one, e.g. the clip bound)."""
    values = check_array("values", values, ndim=1)
    record = float(check_array("record", record, ndim=0))
    return NeighbourPair(values, np.append(values, record), "records", f"one record of value {record:g} added")


def query_pair(answers, answers_prime, description: str = "") -> NeighbourPair:
    """Answer vectors of sensitivity-1 queries on neighbouring data (checked: ``max |a - a'| <= 1``)."""
    a, b = check_array("answers", answers, ndim=1), check_array("answers_prime", answers_prime, ndim=1)
    check_neighbours(a, b, "query_answers")
    return NeighbourPair(a, b, "query_answers", description or "query answers moving by at most 1")


def statdp_x_pair(m: int = 10) -> NeighbourPair:
    """StatDP's "X" pair of query answers: ``(1,..,1, 0,..,0)`` and ``(0,..,0, 1,..,1)`` (m/2 each).

    Every sensitivity-1 query moves by 1, half up and half down ([DWWZK18]_); the
    event "first half above, second half below" exposes GPTT.
    """
    m = check_int("m", m, minimum=2)
    if m % 2:
        raise ValueError(f"m must be even, got {m}")
    a = np.repeat([1.0, 0.0], m // 2)
    return NeighbourPair(a, 1.0 - a, "query_answers", f"StatDP X pair, {m} queries")
