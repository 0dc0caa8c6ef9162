"""Exercises of lecture 04 (workloads, strategies and the matrix mechanism), and its explorer goal.

Errors are totals of expected squared errors over a workload's queries, under the Laplace mechanism
(``2 ||A||_1^2 / epsilon^2`` per unit of ``tr(W (A^T A)^{-1} W^T)``), computed by :mod:`dpviz.matrix_mechanism`.
Each ``check_*`` reads the student's values (:func:`~dpviz.exercises.variants.values`) and computes its expected
answer from them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz import matrix_mechanism as mm
from dpviz import workloads
from dpviz.exercises.checks import check_function, check_number
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.registry import Exercise, hints, words
from dpviz.exercises.variants import Values, start, values

__all__ = ["start", "values", "check_workload_sensitivity", "check_direct_error", "check_identity_total",
           "check_lower_bound", "check_total_error_function", "check_least_squares_function", "beat_identity_goal",
           "EXERCISES"]

#: A typical mistake: (wrong answer, a word its hint contains, the hint).
_Mistake = tuple[Any, str, str]


def _ranges_and_prefixes(n: int) -> np.ndarray:
    """The workload of all n (n + 1) / 2 ranges over n cells stacked on the n prefix sums."""
    return np.vstack([workloads.all_ranges(n).matrix().toarray(), np.tril(np.ones((n, n)))])


def check_workload_sensitivity(answer: Any) -> Feedback:
    """Exercise 4.1: the L1 sensitivity of all ranges and all prefix sums over n cells, released together.

    Parameters
    ----------
    answer : float
        The student's sensitivity.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_workload_sensitivity(9))
    True
    """
    n = values("4.1").cells
    column = np.abs(_ranges_and_prefixes(n)).sum(axis=0)
    j = int(np.argmax(column)) + 1
    return check_number(
        "4.1 Sensitivity of ranges and prefixes", answer, float(column.max()),
        explain=f"cell j (from 1) lies in j ({n} - j + 1) ranges and in the {n} - j + 1 prefix sums that reach it: "
                f"(j + 1)({n} - j + 1) answers, the most at j = {j}.",
        hint="One person adds one column of the stacked matrix to the answers: count, for one cell, the ranges and "
             "the prefix sums that contain it, then find the cell where that count is largest.",
        mistakes=hints(_sensitivity_mistakes(n)))


def _sensitivity_mistakes(n: int) -> list[_Mistake]:
    ranges = workloads.all_ranges(n).l1()
    return [(ranges, "alone", f"{ranges:g} is the sensitivity of the ranges alone; the prefix sums count the person "
                              "too."),
            (ranges + n, "one column", "The cell in the most ranges is not the cell in the most prefix sums: add up "
                                       "one column, then take the largest."),
            (n * (n + 1) / 2 + n, "number of queries", "That is the number of queries, not how many of them contain "
                                                       "one cell."),
            (float(n), "alone", f"{n} is the sensitivity of the prefix sums alone; the ranges count the person too.")]


def check_direct_error(answer: Any) -> Feedback:
    """Exercise 4.2: the expected squared error per query of Laplace on all ranges over n cells, at epsilon.

    Parameters
    ----------
    answer : float
        The student's error per query.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_direct_error(1152))
    True
    """
    v = values("4.2")
    W = workloads.all_ranges(v.cells)
    scale = W.l1() / v.epsilon
    return check_number(
        "4.2 Laplace on the workload", answer, mm.direct_laplace_error(W, v.epsilon) / W.n_queries,
        explain=f"every query gets Lap({W.l1():g} / {v.epsilon:g}) noise, of variance 2 x {scale:g}^2.",
        hint="The noise scale is ||W||_1 / epsilon for every query (find ||W||_1 for your n: the cell in the most "
             "ranges); the variance of Lap(b) is 2 b^2.",
        mistakes=hints(_direct_mistakes(v)))


def _direct_mistakes(v: Values) -> list[_Mistake]:
    W = workloads.all_ranges(v.cells)
    b = W.l1() / v.epsilon
    return [(b**2, "2 b^2", f"{b**2:g} is b^2; the variance of Lap(b) is 2 b^2."),
            (2 * b, "Square", "Square the scale: 2 b^2, not 2 b."),
            (W.n_queries * 2 * b**2, "per query", f"That is the total over the {W.n_queries} queries; the question "
                                                  "asks per query.")]


def check_identity_total(answer: Any) -> Feedback:
    """Exercise 4.3: the total error of Identity on all ranges over n cells at epsilon (n, epsilon: your values).

    Parameters
    ----------
    answer : float
        The student's total.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_identity_total(960))
    True
    """
    v = values("4.3")
    n, e = v.cells, v.epsilon
    cells = n * (n + 1) * (n + 2) // 6                         # sum over widths w of w (n + 1 - w)
    return check_number(
        "4.3 Identity on all ranges", answer, mm.expected_error(workloads.all_ranges(n), np.eye(n), e),
        explain=f"a range of width w sums w noisy cells of variance 2 / {e:g}^2 = {2 / e**2:g}; summing "
                f"w ({n + 1} - w) over the widths gives {cells} x {2 / e**2:g}.",
        hint=f"Each cell has variance 2 (1 / epsilon)^2; a range of w cells has w times that; sum over all "
             f"n (n + 1) / 2 ranges (there are {n + 1} - w ranges of width w).",
        mistakes=hints(_identity_mistakes(v)))


def _identity_mistakes(v: Values) -> list[_Mistake]:
    cells = v.cells * (v.cells + 1) * (v.cells + 2) / 6
    return [(2 * cells, "epsilon = 1", "That is the total at epsilon = 1; each cell's variance is 2 / epsilon^2."),
            (cells / v.epsilon**2, "factor 2", "The variance of Lap(1 / epsilon) is 2 / epsilon^2: the factor 2 is "
                                               "missing."),
            (cells, "cells summed", f"{cells:g} counts the cells summed over all ranges; multiply by each cell's "
                                    "variance.")]


def check_lower_bound(answer: Any) -> Feedback:
    """Exercise 4.4: how many times above the SVD lower bound Identity's total error on the n prefix sums is.

    Parameters
    ----------
    answer : float
        The ratio of Identity's total error to the bound.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_lower_bound(3.21))
    True
    """
    n = values("4.4").cells
    W = workloads.prefix(n)
    total, bound = mm.expected_error(W, np.eye(n), 1.0), mm.svd_lower_bound(W, 1.0)
    s = np.linalg.svd(W.matrix().toarray(), compute_uv=False).sum()
    return check_number(
        "4.4 Identity against the lower bound", answer, total / bound,
        explain=f"Identity's total is 2/epsilon^2 x (1 + ... + {n}) = {total:g}/epsilon^2; the singular values of "
                f"the prefix matrix add up to {s:.4g}, so the bound is (2/epsilon^2) {s:.4g}^2 / {n} = "
                f"{bound:.4g}/epsilon^2 and epsilon cancels in the ratio.",
        hint="Identity answers prefix k by adding k noisy cells. The bound of §7 is (2/epsilon^2)(1/n)(sum of the "
             "singular values of W)^2, W the n x n prefix matrix (np.linalg.svd(..., compute_uv=False)). Divide.",
        mistakes=hints(_bound_mistakes(n)), digits=3)


def _bound_mistakes(n: int) -> list[_Mistake]:
    W = workloads.prefix(n)
    ratio = mm.expected_error(W, np.eye(n), 1.0) / mm.svd_lower_bound(W, 1.0)
    return [(ratio / n, "1/n", "The bound divides the squared sum of the singular values by n (1/n in §7)."),
            (float(n), "squares the singular values", "That squares the singular values before adding them; the "
                                                      "bound squares their sum."),
            (1 / ratio, "inverse", "That is the bound divided by Identity's error, its inverse: no strategy is "
                                   "below the bound, so the ratio is at least 1."),
            (ratio / 2, "factor 2", "Identity's cells have variance 2/epsilon^2: the factor 2 is missing."),
            (2 * ratio, "factor 2", "The bound has the factor 2/epsilon^2 of the Laplace variance too.")]


def _total_error(W: Any, A: Any, epsilon: float) -> float:
    return float(mm.expected_error(np.asarray(W, dtype=float), np.asarray(A, dtype=float), epsilon))


def _random_cases(seed: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
    gen = np.random.default_rng(seed)
    cases = []
    for _ in range(12):
        n = int(gen.integers(3, 7))
        W = (gen.random((int(gen.integers(2, 8)), n)) < 0.5).astype(float)
        W[0, :] = 1.0                                    # a total, so no column is zero
        A = gen.normal(size=(n + int(gen.integers(0, 4)), n))
        cases.append((W, A, float(gen.uniform(0.2, 3.0))))
    return cases


def check_total_error_function(fn: Any) -> Feedback:
    """Exercise 4.5: ``total_error(W, A, epsilon)``, the matrix mechanism's expected total squared error (Laplace).

    Parameters
    ----------
    fn : callable
        The student's function of dense ``W`` (m x n), ``A`` (p x n, full column rank) and ``epsilon``.

    Returns
    -------
    Feedback
        The verdict on 12 seeded random (W, A, epsilon).

    Examples
    --------
    >>> def total_error(W, A, epsilon):
    ...     sens = np.abs(A).sum(axis=0).max()
    ...     return 2 * sens**2 / epsilon**2 * np.trace(W @ np.linalg.inv(A.T @ A) @ W.T)
    >>> bool(check_total_error_function(total_error))
    True
    """
    return check_function(
        "4.5 The total error of a strategy", fn, _total_error, _random_cases(404), rtol=1e-6,
        explain="2 ||A||_1^2 / epsilon^2 x trace(W (A^T A)^{-1} W^T); ||A||_1 is the largest column L1 norm.",
        hint="The noise on each strategy answer is Lap(||A||_1 / epsilon), of variance 2 ||A||_1^2 / epsilon^2; "
             "least squares turns it into the covariance (A^T A)^{-1} of x_hat, and W x_hat has total variance "
             "trace(W (A^T A)^{-1} W^T) per unit of noise variance.")


def _least_squares(A: Any, y: Any) -> np.ndarray:
    return np.linalg.lstsq(np.asarray(A, dtype=float), np.asarray(y, dtype=float), rcond=None)[0]


def check_least_squares_function(fn: Any) -> Feedback:
    """Exercise 4.6: ``least_squares(A, y)``, the estimate ``x_hat`` the matrix mechanism answers from.

    Parameters
    ----------
    fn : callable
        The student's function of a full-column-rank ``A`` (p x n) and noisy answers ``y`` (p,).

    Returns
    -------
    Feedback
        The verdict on 12 seeded random (A, y).

    Examples
    --------
    >>> bool(check_least_squares_function(lambda A, y: np.linalg.solve(A.T @ A, A.T @ y)))
    True
    """
    gen = np.random.default_rng(406)
    cases = []
    for _ in range(12):
        n = int(gen.integers(2, 7))
        A = gen.normal(size=(n + int(gen.integers(1, 5)), n))
        cases.append((A, gen.normal(size=A.shape[0]) * 10))
    return check_function(
        "4.6 Least squares", fn, _least_squares, cases, rtol=1e-6, atol=1e-8,
        explain="x_hat = (A^T A)^{-1} A^T y, the x that makes A x closest to y.",
        hint="Minimise ||A x - y||^2: set its gradient to 0 (the normal equations A^T A x = A^T y) and solve them; "
             "A^T y alone is not the estimate.")


def beat_identity_goal(factor: float = 1.5) -> tuple[str, Any]:
    """A goal for the MatrixMechanismExplorer: find a workload and n where some strategy beats Identity by ``factor``.

    Parameters
    ----------
    factor : float, default 1.5
        How many times smaller the best strategy's total error must be than Identity's.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = beat_identity_goal(1.5)
    >>> "Identity" in text
    True
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        c = result.comparison
        ratio = c.total_error[c.names.index("identity")] / c.total_error.min()
        if ratio >= factor:
            return (f"{c.workload}, n = {c.n}: the best strategy's error is {ratio:.2f}x smaller than "
                    "Identity's")
        return None

    return f"find a workload and a domain size n where the best strategy beats Identity by {factor:g}x", test


EXERCISES = (
    Exercise("4.1", "Sensitivity of ranges and prefixes", check_workload_sensitivity,
             lambda v: float(np.abs(_ranges_and_prefixes(v.cells)).sum(axis=0).max()),
             lambda v: words(_sensitivity_mistakes(v.cells)), "easy", kind="combine",
             parameters={"cells": (4, 5, 6, 7, 8, 9, 10, 12)}),
    Exercise("4.2", "Laplace on the workload", check_direct_error,
             lambda v: 2 * (workloads.all_ranges(v.cells).l1() / v.epsilon) ** 2, lambda v: words(_direct_mistakes(v)),
             "easy", kind="plug-in", parameters={"cells": (6, 4, 5, 7, 8, 10), "epsilon": (0.5, 1.0, 2.0, 0.25)}),
    Exercise("4.3", "Identity on all ranges", check_identity_total,
             lambda v: v.cells * (v.cells + 1) * (v.cells + 2) / 6 * 2 / v.epsilon**2,
             lambda v: words(_identity_mistakes(v)), "medium", kind="derive",
             parameters={"cells": (8, 5, 6, 7, 9, 10, 12, 16), "epsilon": (0.5, 0.25, 0.4, 2.0, 0.8)}),
    Exercise("4.4", "Identity against the lower bound", check_lower_bound,
             lambda v: v.cells * (v.cells + 1) / mm.svd_lower_bound(workloads.prefix(v.cells), 1.0),
             lambda v: words(_bound_mistakes(v.cells)), "medium", digits=3, kind="combine",
             parameters={"cells": (16, 8, 12, 24, 32, 48, 64, 100)}),
    Exercise("4.5", "The total error of a strategy", check_total_error_function,
             lambda v: lambda W, A, e: 2 * np.abs(A).sum(axis=0).max() ** 2 / e**2
             * np.trace(W @ np.linalg.inv(A.T @ A) @ W.T),
             lambda v: ((lambda W, A, e: 2 / e**2 * np.trace(W @ np.linalg.inv(A.T @ A) @ W.T), "||A||_1"),), "hard",
             kind="implement"),
    Exercise("4.6", "Least squares", check_least_squares_function,
             lambda v: lambda A, y: np.linalg.solve(A.T @ A, A.T @ y),
             lambda v: ((lambda A, y: A.T @ y, "normal equations"),), "hard", kind="implement"),
)
