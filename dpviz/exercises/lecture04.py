"""Exercises of lecture 04 (workloads, strategies and the matrix mechanism), and its explorer goal.

Errors are totals of expected squared errors over a workload's queries, under the Laplace mechanism
(``2 ||A||_1^2 / epsilon^2`` per unit of ``tr(W (A^T A)^{-1} W^T)``), computed by :mod:`dpviz.matrix_mechanism`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz import matrix_mechanism as mm
from dpviz import workloads
from dpviz.exercises.checks import check_function, check_number
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.registry import Exercise

__all__ = ["check_workload_sensitivity", "check_direct_error", "check_identity_total", "check_lower_bound",
           "check_total_error_function", "check_least_squares_function", "beat_identity_goal", "EXERCISES"]


def check_workload_sensitivity(answer: Any) -> Feedback:
    """Exercise 4.1: the L1 sensitivity of all range queries over 4 cells.

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
    >>> bool(check_workload_sensitivity(6))
    True
    """
    return check_number(
        "4.1 Sensitivity of all ranges", answer, workloads.all_ranges(4).l1(),
        explain="each middle cell lies in 6 of the 10 ranges (2 x 3 choices of endpoints).",
        hint="One person adds one column of W to the answers: count the ranges that contain a middle cell.",
        mistakes=[(10.0, "10 is the number of queries, not how many of them one cell is in."),
                  (4.0, "4 is how many ranges contain an end cell; a middle cell is in more.")])


def check_direct_error(answer: Any) -> Feedback:
    """Exercise 4.2: the expected squared error per query of Laplace on all ranges (n = 4, epsilon = 1).

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
    >>> bool(check_direct_error(72))
    True
    """
    return check_number(
        "4.2 Laplace on the workload", answer, mm.direct_laplace_error(workloads.all_ranges(4), 1.0) / 10,
        explain="every query gets Lap(6 / 1) noise, of variance 2 x 6^2.",
        hint="The noise scale is ||W||_1 / epsilon for every query; the variance of Lap(b) is 2 b^2.",
        mistakes=[(36.0, "36 is b^2; the variance of Lap(b) is 2 b^2."), (12.0, "Square the scale: 2 b^2, not 2 b."),
                  (720.0, "720 is the total over the 10 queries; the question asks per query.")])


def check_identity_total(answer: Any) -> Feedback:
    """Exercise 4.3: the total error of Identity on all ranges over 8 cells at epsilon = 0.5.

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
    W = workloads.all_ranges(8)
    return check_number(
        "4.3 Identity on all ranges", answer, mm.expected_error(W, np.eye(8), 0.5),
        explain="a range of width w sums w noisy cells of variance 2 / 0.5^2 = 8; summing w (9 - w) widths gives "
                "120 x 8.",
        hint="Each cell has variance 2 (1 / epsilon)^2; a range of w cells has w times that; sum over all "
             "n (n + 1) / 2 ranges (there are 9 - w ranges of width w).",
        mistakes=[(240.0, "240 is the total at epsilon = 1; at 0.5 each variance is 4 times larger."),
                  (480.0, "The variance of Lap(1 / epsilon) is 2 / epsilon^2: the factor 2 is missing."),
                  (120.0, "120 counts the cells summed over all ranges; multiply by each cell's variance.")])


def check_lower_bound(answer: Any) -> Feedback:
    """Exercise 4.4: the SVD lower bound for all ranges over 4 cells at epsilon = 1.

    Parameters
    ----------
    answer : float
        The student's bound.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_lower_bound(32.6245))
    True
    """
    W = workloads.all_ranges(4)
    s = np.linalg.svd(W.matrix().toarray(), compute_uv=False)
    return check_number(
        "4.4 The SVD lower bound", answer, mm.svd_lower_bound(W, 1.0),
        explain="(2 / epsilon^2)(1/n)(sum of the singular values)^2.",
        hint="Take the singular values of the 10 x 4 matrix W (np.linalg.svd(..., compute_uv=False)), add them, "
             "square, divide by n = 4 and multiply by 2 / epsilon^2.",
        mistakes=[(float(2 * np.sum(s**2) / 4), "That squares the singular values before adding; the bound squares "
                                                "their sum."),
                  (float(np.sum(s) ** 2 / 4), "The factor 2 / epsilon^2 of the Laplace variance is missing."),
                  (float(2 * np.sum(s) ** 2), "Divide by n = 4, the number of cells.")], digits=3)


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
    Exercise("4.1", "Sensitivity of all ranges", check_workload_sensitivity, 6.0, ((10.0, "number of queries"),),
             "easy"),
    Exercise("4.2", "Laplace on the workload", check_direct_error, 72.0,
             ((36.0, "2 b^2"), (720.0, "per query")), "easy"),
    Exercise("4.3", "Identity on all ranges", check_identity_total, 960.0,
             ((240.0, "epsilon = 1"), (480.0, "factor 2")), "medium"),
    Exercise("4.4", "The SVD lower bound", check_lower_bound, 32.62448566337606,
             ((10.0, "squares the singular values"),), "medium", digits=3),
    Exercise("4.5", "The total error of a strategy", check_total_error_function,
             lambda W, A, e: 2 * np.abs(A).sum(axis=0).max() ** 2 / e**2
             * np.trace(W @ np.linalg.inv(A.T @ A) @ W.T),
             ((lambda W, A, e: 2 / e**2 * np.trace(W @ np.linalg.inv(A.T @ A) @ W.T), "||A||_1"),), "hard"),
    Exercise("4.6", "Least squares", check_least_squares_function, lambda A, y: np.linalg.solve(A.T @ A, A.T @ y),
             ((lambda A, y: A.T @ y, "normal equations"),), "hard"),
)
