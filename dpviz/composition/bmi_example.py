"""The lecture's worked example of sequential vs parallel composition: four counts on a BMI table.

The example (Machanavajjhala, "Building complex DP algorithms using
composition", CompSci 590.01, Duke 2018) answers four counts on a table of
(sex, height, weight): males with BMI < 25, males, females with BMI < 25,
females.  Algorithm 1 answers each with Lap(4/eps) (sequential composition,
eps/4 each): total squared error ``4 * 2 (4/eps)^2 = 128/eps^2``.  Algorithm 2
measures the four disjoint cells (BMI < 25 / >= 25 by sex) with Lap(1/eps)
each (parallel composition [McS09]_) and adds cells to get the totals
(post-processing): total ``2/eps^2 + 4/eps^2 + 2/eps^2 + 4/eps^2 = 12/eps^2``.

References
----------
.. [McS09] F. McSherry. "Privacy Integrated Queries." SIGMOD 2009.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dpviz.accountant import PrivacyAccountant, charge, charge_all, check_accountant, exact, float_at_most
from dpviz.mechanisms import laplace, laplace_scale, laplace_variance
from dpviz.rng import RngLike
from dpviz.validation import (
    MAX_MAGNITUDE,
    blame,
    check_bool,
    check_choice,
    check_elements,
    check_epsilon,
    check_probability,
    check_trials,
)

__all__ = ["BMI_TABLE", "BMI_QUERY_NAMES", "bmi", "bmi_cells", "bmi_queries", "bmi_sequential", "bmi_parallel",
           "bmi_expected_error", "sequential_charges", "check_bmi_table"]


#: The lecture's five-row table: (sex, height in inches, weight in pounds).
BMI_TABLE = np.array(
    [("M", 74, 210), ("F", 63, 190), ("F", 69, 160), ("M", 63, 180), ("M", 79, 250)],
    dtype=[("sex", "U1"), ("height_in", "f8"), ("weight_lb", "f8")],
)
BMI_QUERY_NAMES = ("males with BMI < 25", "males", "females with BMI < 25", "females")


def bmi(table: np.ndarray) -> np.ndarray:
    """Compute the BMI of each row, ``703 * weight_lb / height_in^2`` (a stability-1 row transformation).

    Parameters
    ----------
    table : numpy.ndarray
        Structured array with fields ``sex``, ``height_in`` and ``weight_lb`` (like :data:`BMI_TABLE`).

    Returns
    -------
    numpy.ndarray
        One BMI per row.

    Raises
    ------
    TypeError, ValueError
        As :func:`check_bmi_table`: not such a table, no rows, or a height or weight not finite and > 0.

    Examples
    --------
    >>> bmi(BMI_TABLE).round(2)
    array([26.96, 33.65, 23.63, 31.88, 28.16])
    """
    check_bmi_table(table)  # an empty table, a zero height (BMI inf) or a missing field is refused
    return 703.0 * table["weight_lb"] / table["height_in"] ** 2


def bmi_cells(table: np.ndarray = BMI_TABLE) -> np.ndarray:
    """Count the four disjoint cells: males BMI < 25, males BMI >= 25, females BMI < 25, females BMI >= 25.

    Parameters
    ----------
    table : numpy.ndarray, default BMI_TABLE
        Structured array with fields ``sex``, ``height_in`` and ``weight_lb``.

    Returns
    -------
    numpy.ndarray
        The four counts (float64); adding or removing one row changes one of them by one.

    Examples
    --------
    >>> bmi_cells()
    array([0., 3., 1., 1.])
    """
    low = bmi(table) < 25
    male = table["sex"] == "M"
    return np.array([np.sum(male & low), np.sum(male & ~low), np.sum(~male & low), np.sum(~male & ~low)], float)


def bmi_queries(table: np.ndarray = BMI_TABLE) -> np.ndarray:
    """Answer the four lecture queries exactly, in the order of ``BMI_QUERY_NAMES``.

    Parameters
    ----------
    table : numpy.ndarray, default BMI_TABLE
        Structured array with fields ``sex``, ``height_in`` and ``weight_lb``.

    Returns
    -------
    numpy.ndarray
        Males with BMI < 25, males, females with BMI < 25, females.

    Examples
    --------
    >>> bmi_queries()
    array([0., 3., 1., 2.])
    """
    c = bmi_cells(table)
    return np.array([c[0], c[0] + c[1], c[2], c[2] + c[3]])


def bmi_sequential(table: np.ndarray, epsilon: float, *, share: float = 0.25,
                   accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                   size: int | None = None) -> np.ndarray:
    """Algorithm 1: answer each of the four queries with Lap(1/(share * epsilon)).

    Each count has sensitivity 1, so each answer is (share * epsilon)-DP and by
    sequential composition the four cost ``4 * share * epsilon``; the lecture's
    choice ``share = 1/4`` spends exactly epsilon.  With an ``accountant``, the
    four queries are charged together (one row each, ``share * epsilon`` times
    ``size``) before any noise is drawn, all or nothing: an overspending plan is
    refused with ``BudgetExceededError`` and records nothing.

    Parameters
    ----------
    table : numpy.ndarray
        Structured array with fields ``sex``, ``height_in`` and ``weight_lb``.
    epsilon : float
        Total budget, finite and > 0.
    share : float, default 0.25
        Fraction of ``epsilon`` spent per query, in (0, 1].
    accountant : PrivacyAccountant, optional
        Charged ``size * share * epsilon`` per query (``size`` independent runs, sequential
        composition), before any noise is drawn; a refusal records nothing.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent runs stacked on a new first axis.

    Returns
    -------
    numpy.ndarray
        The four noisy answers, shape (4,) or (size, 4).

    Raises
    ------
    BudgetExceededError
        If the accountant refuses the plan (nothing is recorded).
    ValueError, TypeError
        For an invalid ``epsilon``, ``share``, ``size`` or ``accountant``, or a ``share * epsilon`` so small
        that the Laplace scale overflows (refused before anything is charged).

    Examples
    --------
    >>> bmi_sequential(BMI_TABLE, 1.0, rng=0).shape
    (4,)
    """
    eps = check_epsilon(epsilon)
    share = check_probability("share", share)
    check_accountant(accountant)
    check_bmi_table(table)
    truth = bmi_queries(table)
    charges = sequential_charges(eps, share)
    q_eps = float_at_most(charges[0][1])   # never above the exact share the ledger is charged
    check_elements(4.0 * (check_trials(size) or 1), "noisy BMI answers", size=size)
    laplace_scale(1.0, q_eps, name="share * epsilon")   # a scale that overflows is refused before the charge
    charge_all(accountant, charges, size=size)
    return laplace(truth, 1.0, q_eps, rng=rng, size=size)


def sequential_charges(epsilon: float, share: float = 0.25) -> list[tuple[str, Fraction, Fraction]]:
    """Algorithm 1's four charges for one run, ``(label, share * epsilon, 0)`` each, in exact arithmetic.

    Parameters
    ----------
    epsilon : float
        Total budget, finite and > 0.
    share : float, default 0.25
        Fraction of ``epsilon`` spent per query, in (0, 1].

    Returns
    -------
    list of (str, fractions.Fraction, fractions.Fraction)
        One ``(label, epsilon, delta)`` per query, for :func:`dpviz.accountant.charge_all`.

    Raises
    ------
    ValueError, TypeError
        For an invalid ``epsilon`` or ``share``.

    Examples
    --------
    >>> [str(e) for _, e, _ in sequential_charges(1.0)]
    ['1/4', '1/4', '1/4', '1/4']
    """
    eps = check_epsilon(epsilon)
    share = check_probability("share", share)
    # exact, so four quarters of epsilon add up to epsilon exactly
    q_eps = exact("share", share) * exact("epsilon", eps)
    return [(f"Alg 1: {name}", q_eps, Fraction(0)) for name in BMI_QUERY_NAMES]


def check_bmi_table(table: object) -> np.ndarray:
    """Check that ``table`` is a structured array with the BMI example's fields.

    Parameters
    ----------
    table : numpy.ndarray
        Structured array with fields ``sex``, ``height_in`` and ``weight_lb``.

    Returns
    -------
    numpy.ndarray
        ``table`` itself.

    Raises
    ------
    TypeError
        If ``table`` is not a structured array with those fields.
    ValueError
        If it has no rows, is not 1-D, or a height or weight is not finite, > 0 and at most 1e100.

    Examples
    --------
    >>> check_bmi_table(BMI_TABLE).shape
    (5,)
    """
    names = getattr(getattr(table, "dtype", None), "names", None)
    if not isinstance(table, np.ndarray) or names is None or not {"sex", "height_in", "weight_lb"} <= set(names):
        raise TypeError(f"table must be a structured numpy array with fields sex, height_in and weight_lb "
                        f"(like BMI_TABLE), got {table!r}")
    if table.ndim != 1 or table.size == 0:
        raise ValueError(f"table must be a non-empty 1-D structured array, got shape {table.shape}")
    for field in ("height_in", "weight_lb"):
        col = np.asarray(table[field], dtype=float)
        if not np.all(np.isfinite(col) & (col > 0) & (col <= MAX_MAGNITUDE)):  # 703 w / h^2 must stay finite
            raise ValueError(f"table[{field!r}] must be finite, > 0 and at most {MAX_MAGNITUDE:.0e}, got {col!r}")
    return table


def bmi_parallel(table: np.ndarray, epsilon: float, *, accountant: PrivacyAccountant | None = None,
                 rng: RngLike = None, size: int | None = None) -> np.ndarray:
    """Algorithm 2: measure the four disjoint cells with Lap(1/epsilon), then add cells.

    Parallel composition makes the four measurements epsilon-DP together; the
    sums ``q1, q1 + q2, q3, q3 + q4`` are post-processing and cost nothing more.

    Parameters
    ----------
    table : numpy.ndarray
        Structured array with fields ``sex``, ``height_in`` and ``weight_lb``.
    epsilon : float
        Budget, finite and > 0.
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon``: each run costs epsilon by parallel composition over the four
        disjoint cells, and ``size`` independent runs compose sequentially.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent runs stacked on a new first axis.

    Returns
    -------
    numpy.ndarray
        The four noisy answers, shape (4,) or (size, 4).

    Raises
    ------
    BudgetExceededError
        If the accountant refuses the charge (nothing is recorded).
    ValueError, TypeError
        For an invalid ``epsilon``, ``size`` or ``accountant``, or an ``epsilon`` so small that the
        Laplace scale overflows (refused before anything is charged).

    Examples
    --------
    >>> bmi_parallel(BMI_TABLE, 1.0, rng=0, size=3).shape
    (3, 4)
    """
    eps = check_epsilon(epsilon)
    check_accountant(accountant)
    check_bmi_table(table)
    cells = bmi_cells(table)
    check_elements(4.0 * (check_trials(size) or 1), "noisy BMI cells", size=size)
    laplace_scale(1.0, eps)   # a scale that overflows is refused before the charge
    charge(accountant, eps, size=size, label="Alg 2: 4 disjoint BMI cells", parts=4)
    noisy = laplace(cells, 1.0, eps, rng=rng, size=size)
    return np.stack([noisy[..., 0], noisy[..., 0] + noisy[..., 1], noisy[..., 2], noisy[..., 2] + noisy[..., 3]],
                    axis=-1)


def bmi_expected_error(epsilon: float, algorithm: str, *, share: float = 0.25,
                       per_query: bool = False) -> float | np.ndarray:
    """Expected squared error of Algorithm 1 (``"sequential"``) or 2 (``"parallel"``).

    Sequential: each query ``2/(share eps)^2`` (total ``128/eps^2`` at share 1/4).
    Parallel: ``(v, 2v, v, 2v)`` with ``v = 2/eps^2`` (total ``12/eps^2``).
    Both come from :func:`dpviz.mechanisms.laplace_variance`.

    Parameters
    ----------
    epsilon : float
        Total budget, finite and > 0.
    algorithm : {"sequential", "parallel"}
        Which algorithm.
    share : float, default 0.25
        Algorithm 1's fraction of ``epsilon`` per query, in (0, 1].
    per_query : bool, default False
        Return the four per-query errors instead of their total.

    Returns
    -------
    float or numpy.ndarray
        The total expected squared error, or the four per-query errors.

    Raises
    ------
    ValueError, TypeError
        For an unknown ``algorithm`` or an invalid ``epsilon`` or ``share``.

    Examples
    --------
    >>> bmi_expected_error(1.0, "sequential"), bmi_expected_error(1.0, "parallel")
    (128.0, 12.0)
    """
    check_choice("algorithm", algorithm, ("sequential", "parallel"))
    eps = check_epsilon(epsilon)
    share = check_probability("share", share)
    per_query = check_bool("per_query", per_query)
    if algorithm == "sequential":
        with blame(share=share):  # share * epsilon may be too small for a finite variance
            per = np.full(4, laplace_variance(1.0, share * eps))
    else:
        v = laplace_variance(1.0, eps)
        per = np.array([v, 2 * v, v, 2 * v])
    return per if per_query else float(per.sum())
