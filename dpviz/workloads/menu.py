"""The explorer's workload menu: build a workload by name."""

from __future__ import annotations

from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_int
from dpviz.workloads.one_d import all_ranges, identity, prefix, random_ranges, width_ranges
from dpviz.workloads.workload import Workload

__all__ = ["build", "WORKLOADS"]

#: Names accepted by :func:`build` (the explorer's workload menu).
WORKLOADS = ("identity", "prefix", "all_ranges", "random_ranges", "width_ranges")


def build(name: str, n: int, *, k: int = 64, w: int | None = None, rng: RngLike = 0) -> Workload:
    """Workload by menu name, one of :data:`WORKLOADS`.

    Parameters
    ----------
    name : str
        One of :data:`WORKLOADS`.
    n : int
        Number of bins, >= 1.
    k : int, default 64
        Number of queries of "random_ranges".
    w : int, optional
        Width of "width_ranges" (default ``max(1, n // 4)``).
    rng : None, int, SeedSequence or Generator, default 0
        Seed of "random_ranges" (fixed by default, so the menu entry is one workload).

    Returns
    -------
    Workload
        The workload over n bins.

    Raises
    ------
    ValueError
        If ``name`` is not in :data:`WORKLOADS`, or ``n``, ``k``, ``w`` or ``rng`` are out of range
        (all are checked, whichever workload uses them).
    TypeError
        If ``n``, ``k`` or ``w`` is not an integer, or ``rng`` is not a seed or Generator.

    Examples
    --------
    >>> build("width_ranges", 8).name
    'width-2 ranges'
    """
    check_choice("workload", name, WORKLOADS)
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=1)
    if w is not None:
        w = check_int("w", w, minimum=1, maximum=n)
    if name != "random_ranges":
        as_generator(rng)  # checked, not used: no draw, so a seeded menu stays the same
    if name == "identity":
        return identity(n)
    if name == "prefix":
        return prefix(n)
    if name == "all_ranges":
        return all_ranges(n)
    if name == "random_ranges":
        return random_ranges(n, k, rng=rng)
    return width_ranges(n, max(1, n // 4) if w is None else w)
