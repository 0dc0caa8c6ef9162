"""Composition theorems and the lecture's worked example of sequential vs parallel composition.

Theorems
--------
* basic sequential composition: k mechanisms, each (eps, delta)-DP, are
  (k eps, k delta)-DP [DMNS06]_;
* advanced composition [DRV10]_ (Dwork & Roth Thm 3.20): for any delta' > 0
  they are (eps', k delta + delta')-DP with
  ``eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1)``;
* parallel composition [McS09]_: mechanisms on disjoint parts cost the maximum.

The worked example (Machanavajjhala, "Building complex DP algorithms using
composition", CompSci 590.01, Duke 2018) answers four counts on a table of
(sex, height, weight): males with BMI < 25, males, females with BMI < 25,
females.  Algorithm 1 answers each with Lap(4/eps) (sequential composition,
eps/4 each): total squared error ``4 * 2 (4/eps)^2 = 128/eps^2``.  Algorithm 2
measures the four disjoint cells (BMI < 25 / >= 25 by sex) with Lap(1/eps)
each (parallel composition) and adds cells to get the totals
(post-processing): total ``2/eps^2 + 4/eps^2 + 2/eps^2 + 4/eps^2 = 12/eps^2``.

References
----------
.. [DMNS06] Dwork, McSherry, Nissim, Smith. TCC 2006.
.. [DRV10] C. Dwork, G. Rothblum, S. Vadhan. "Boosting and Differential Privacy." FOCS 2010.
.. [McS09] F. McSherry. "Privacy Integrated Queries." SIGMOD 2009.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from dpviz.accountant import PrivacyAccountant, exact
from dpviz.mechanisms import laplace, laplace_variance
from dpviz.rng import RngLike
from dpviz.validation import check_choice, check_delta, check_epsilon, check_int, check_probability

__all__ = [
    "basic_composition",
    "advanced_composition",
    "advanced_epsilon_per_query",
    "BMI_TABLE",
    "bmi",
    "bmi_queries",
    "bmi_cells",
    "bmi_sequential",
    "bmi_parallel",
    "bmi_expected_error",
    "BMI_QUERY_NAMES",
]


# --------------------------------------------------------------------------- theorems
def basic_composition(epsilon: float, k: int, delta: float = 0.0) -> tuple[float, float]:
    """Total cost of k (epsilon, delta)-DP mechanisms by sequential composition: ``(k eps, k delta)``."""
    eps = check_epsilon(epsilon)
    k = check_int("k", k, minimum=1)
    dlt = check_delta(delta, allow_zero=True)
    return k * eps, k * dlt


def advanced_composition(epsilon: float, k: int, delta_prime: float, delta: float = 0.0) -> tuple[float, float]:
    """Advanced composition [DRV10]_: k-fold adaptive composition of (eps, delta)-DP mechanisms is
    ``(sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), k delta + delta')``-DP.

    Examples
    --------
    >>> e, d = advanced_composition(0.01, 10_000, 1e-6)
    >>> round(e, 3), d
    (6.262, 1e-06)
    """
    eps = check_epsilon(epsilon)
    k = check_int("k", k, minimum=1)
    dp = check_delta(delta_prime, "delta_prime")
    dlt = check_delta(delta, allow_zero=True)
    total = math.sqrt(2 * k * math.log(1 / dp)) * eps + k * eps * math.expm1(eps)
    return total, k * dlt + dp


def advanced_epsilon_per_query(total_epsilon: float, k: int, delta_prime: float) -> float:
    """Largest per-query epsilon whose k-fold advanced composition stays within ``total_epsilon``.

    Solves ``sqrt(2k ln(1/delta')) e + k e (exp(e) - 1) = total_epsilon`` for ``e`` (the left side
    increases in ``e``).  Compare with ``total_epsilon / k`` from basic composition: advanced
    composition pays off when its answer is larger.
    """
    total = check_epsilon(total_epsilon, "total_epsilon")
    k = check_int("k", k, minimum=1)
    dp = check_delta(delta_prime, "delta_prime")
    f = lambda e: math.sqrt(2 * k * math.log(1 / dp)) * e + k * e * math.expm1(e) - total  # noqa: E731
    hi = total
    while f(hi) < 0:
        hi *= 2
    return optimize.brentq(f, 0.0, hi, xtol=1e-15, rtol=1e-13)


# --------------------------------------------------------------------------- worked example
#: The lecture's five-row table: (sex, height in inches, weight in pounds).
BMI_TABLE = np.array(
    [("M", 74, 210), ("F", 63, 190), ("F", 69, 160), ("M", 63, 180), ("M", 79, 250)],
    dtype=[("sex", "U1"), ("height_in", "f8"), ("weight_lb", "f8")],
)
BMI_QUERY_NAMES = ("males with BMI < 25", "males", "females with BMI < 25", "females")


def bmi(table: np.ndarray) -> np.ndarray:
    """BMI of each row, ``703 * weight_lb / height_in^2`` (a stability-1 row transformation)."""
    return 703.0 * table["weight_lb"] / table["height_in"] ** 2


def bmi_cells(table: np.ndarray = BMI_TABLE) -> np.ndarray:
    """The four disjoint counts: males BMI < 25, males BMI >= 25, females BMI < 25, females BMI >= 25."""
    low = bmi(table) < 25
    male = table["sex"] == "M"
    return np.array([np.sum(male & low), np.sum(male & ~low), np.sum(~male & low), np.sum(~male & ~low)], float)


def bmi_queries(table: np.ndarray = BMI_TABLE) -> np.ndarray:
    """True answers to the four lecture queries, in the order of ``BMI_QUERY_NAMES``."""
    c = bmi_cells(table)
    return np.array([c[0], c[0] + c[1], c[2], c[2] + c[3]])


def bmi_sequential(table: np.ndarray, epsilon: float, *, share: float = 0.25,
                   accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                   size: int | None = None) -> np.ndarray:
    """Algorithm 1: answer each of the four queries with Lap(1/(share * epsilon)).

    Each count has sensitivity 1, so each answer is (share * epsilon)-DP and by
    sequential composition the four cost ``4 * share * epsilon``; the lecture's
    choice ``share = 1/4`` spends exactly epsilon.  With an ``accountant``, each
    query is charged before its noise is drawn, so an overspending plan stops at
    the query the accountant refuses (raising ``BudgetExceededError``).
    """
    eps = check_epsilon(epsilon)
    share = check_probability("share", share)
    truth = bmi_queries(table)
    # the per-query charge is computed exactly, so four quarters of epsilon add up to epsilon exactly
    q_eps_exact = exact("share", share) * exact("epsilon", eps)
    q_eps = float(q_eps_exact)
    if accountant is not None:
        for name in BMI_QUERY_NAMES:
            accountant.spend(q_eps_exact, label=f"Alg 1: {name}")
    return laplace(truth, 1.0, q_eps, rng=rng, size=size)


def bmi_parallel(table: np.ndarray, epsilon: float, *, accountant: PrivacyAccountant | None = None,
                 rng: RngLike = None, size: int | None = None) -> np.ndarray:
    """Algorithm 2: measure the four disjoint cells with Lap(1/epsilon), then add cells.

    Parallel composition makes the four measurements epsilon-DP together; the
    sums ``q1, q1 + q2, q3, q3 + q4`` are post-processing and cost nothing more.
    """
    eps = check_epsilon(epsilon)
    cells = bmi_cells(table)
    if accountant is not None:
        accountant.spend_parallel([eps] * 4, label="Alg 2: 4 disjoint BMI cells")
    noisy = laplace(cells, 1.0, eps, rng=rng, size=size)
    return np.stack([noisy[..., 0], noisy[..., 0] + noisy[..., 1], noisy[..., 2], noisy[..., 2] + noisy[..., 3]],
                    axis=-1)


def bmi_expected_error(epsilon: float, algorithm: str, *, share: float = 0.25,
                       per_query: bool = False) -> float | np.ndarray:
    """Expected squared error of Algorithm 1 (``"sequential"``) or 2 (``"parallel"``).

    Sequential: each query ``2/(share eps)^2`` (total ``128/eps^2`` at share 1/4).
    Parallel: ``(v, 2v, v, 2v)`` with ``v = 2/eps^2`` (total ``12/eps^2``).
    """
    check_choice("algorithm", algorithm, ("sequential", "parallel"))
    eps = check_epsilon(epsilon)
    share = check_probability("share", share)
    if algorithm == "sequential":
        per = np.full(4, laplace_variance(1.0, share * eps))
    else:
        v = laplace_variance(1.0, eps)
        per = np.array([v, 2 * v, v, 2 * v])
    return per if per_query else float(per.sum())
