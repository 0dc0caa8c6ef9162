"""When parallel composition holds, and three ways it fails.

Parallel composition [McS09]_: split the records into parts by a rule that looks at *one record at a time* and is
fixed before the data is seen, run an eps_i-DP mechanism on part i; adding or removing one record changes one part
only, so the whole costs ``max_i eps_i`` under add/remove neighbours.  Each condition matters:

* **overlapping parts**: a record that falls in several parts changes each of them; it pays the *sum* of their
  epsilons (sequential composition over those parts), :func:`partition_epsilon`;
* **replace-one neighbours**: replacing one record by another removes it from one part and adds it to another:
  ``eps_i + eps_j``, up to ``2 max eps`` (``neighbours="replace-one"``);
* **parts chosen from the data**: if the rule itself depends on the data (e.g. "below or above the mean"), one
  added record can move the boundary and many other records with it: :func:`split_at_mean_counts` claims eps and
  is not eps-DP (its true cost grows with the records that cross the boundary).

The parts here are released as counts, each with ``Lap(1/eps_i)`` noise, as in the lecture's BMI example.

References
----------
.. [McS09] F. McSherry. "Privacy Integrated Queries: An Extensible Platform for Privacy-Preserving Data Analysis."
   SIGMOD 2009, Theorem 4 (parallel composition over disjoint parts).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.mechanisms import laplace
from dpviz.rng import RngLike
from dpviz.validation import check_array, check_choice, check_elements, check_epsilon, check_trials

__all__ = ["partition_epsilon", "split_at_mean", "split_at_mean_counts", "NEIGHBOURS"]

#: The neighbouring relations :func:`partition_epsilon` knows.
NEIGHBOURS = ("add/remove", "replace-one")


def partition_epsilon(epsilons: ArrayLike, membership: ArrayLike, neighbours: str = "add/remove") -> float:
    """The epsilon of releasing one noisy count per part, ``Lap(1/eps_i)`` for part i, given which parts a record joins.

    ``membership[r, i]`` says whether a record of kind r (e.g. an age) is counted in part i -- a per-record rule,
    fixed before the data is seen.  Under add/remove neighbours a record of kind r changes the counts of its parts
    by one each, costing ``sum_i eps_i membership[r, i]``; the plan costs the maximum over kinds (parallel
    composition when every kind is in at most one part).  Under replace-one neighbours a record of kind r becomes
    one of kind s: part i's count moves by ``|membership[r, i] - membership[s, i]|``, and the plan costs the
    maximum over pairs (r, s) of ``sum_i eps_i |membership[r, i] - membership[s, i]|``.

    Parameters
    ----------
    epsilons : array_like
        Epsilon of each part's count, 1-D, each finite and > 0.
    membership : array_like of bool
        Shape (kinds, parts): which parts a record of each kind is counted in.
    neighbours : {"add/remove", "replace-one"}
        The neighbouring relation.

    Returns
    -------
    float
        The plan's epsilon (exact for Laplace counts: an event far in the tails attains it).

    Raises
    ------
    ValueError, TypeError
        For epsilons that are not finite and > 0, a membership matrix of the wrong shape or not of 0/1 values, or
        an unknown relation.

    References
    ----------
    McSherry, SIGMOD 2009, Theorem 4.

    Examples
    --------
    >>> disjoint = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> partition_epsilon([0.5, 0.3, 0.5], disjoint), partition_epsilon([0.5, 0.3, 0.5], disjoint, "replace-one")
    (0.5, 1.0)
    >>> partition_epsilon([0.5, 0.5], [[1, 0], [1, 1], [0, 1]])   # the middle kind is in both parts
    1.0
    """
    eps = check_array("epsilons", epsilons, ndim=1)
    if eps.size == 0 or np.any(eps <= 0):
        raise ValueError("epsilons must be a non-empty list of finite numbers > 0, one per part")
    m = check_array("membership", membership, ndim=2, allow_bool=True)  # 0/1 or False/True
    if m.shape[1] != eps.size or m.shape[0] == 0:
        raise ValueError(f"membership must have one column per part (epsilons has {eps.size}) and at least one row "
                         f"(kind of record), got shape {m.shape}")
    if not np.all((m == 0) | (m == 1)):
        raise ValueError("membership must hold only 0/1 (False/True): whether a kind of record is in each part")
    check_choice("neighbours", neighbours, NEIGHBOURS)
    if neighbours == "add/remove":
        return float(np.max(m @ eps))
    check_elements(float(m.shape[0]) ** 2 * m.shape[1], "pairs of kinds x parts", membership=m.shape)
    moved = np.abs(m[:, None, :] - m[None, :, :]) @ eps
    return float(np.max(moved))


def split_at_mean(values: ArrayLike) -> np.ndarray:
    """The counts of records below the data's mean and at or above it: parts chosen *from the data*.

    Parameters
    ----------
    values : array_like
        One number per record, 1-D, finite, at least one record.

    Returns
    -------
    numpy.ndarray
        ``[count below the mean, count at or above the mean]`` (float).

    Raises
    ------
    ValueError, TypeError
        If values is not a non-empty 1-D array of finite numbers.

    Examples
    --------
    >>> split_at_mean([0, 0, 0, 10, 10, 10]), split_at_mean([0, 0, 0, 10, 10, 10, 100])
    (array([3., 3.]), array([6., 1.]))
    """
    x = check_array("values", values, ndim=1)
    if x.size == 0:
        raise ValueError("values must hold at least one record (the mean of no records is undefined)")
    below = float(np.sum(x < x.mean()))
    return np.array([below, x.size - below])


def split_at_mean_counts(values: ArrayLike, epsilon: float, *, rng: RngLike = None,
                         size: int | None = None) -> np.ndarray:
    """NOT epsilon-DP: split the records at their mean, count each part with ``Lap(1/epsilon)``.

    It *claims* epsilon by parallel composition (the two parts are disjoint), but the parts are chosen from the
    data: one added record moves the mean, and every record that crosses it changes both counts.  A lecture's
    counterexample, to be broken with the auditor; never use it on real data.

    Parameters
    ----------
    values : array_like
        One number per record, 1-D, finite, at least one record.
    epsilon : float
        The epsilon it claims (and the noise it adds to each count), finite and > 0.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent releases stacked on a new first axis.

    Returns
    -------
    numpy.ndarray
        The two noisy counts, shape (2,) or (size, 2).

    Raises
    ------
    ValueError, TypeError
        For invalid values, epsilon or size.

    Examples
    --------
    >>> split_at_mean_counts([0, 0, 0, 10, 10, 10], 0.5, rng=0, size=4).shape
    (4, 2)
    """
    counts = split_at_mean(values)
    eps = check_epsilon(epsilon)
    check_elements(2.0 * (check_trials(size) or 1), "noisy counts", size=size)
    return laplace(counts, 1.0, eps, rng=rng, size=size)
