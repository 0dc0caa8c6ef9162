"""Exercises of lecture 08 (data-aware mechanisms: Uniform, MWEM, DAWA, and the DPBench comparison).

Neighbours are add/remove-one-record, as in every lecture: a count, a bucket total and a prefix sum each move by
at most one.  Each ``check_*`` computes its expected answer with dpviz (:mod:`dpviz.data_aware`,
:mod:`dpviz.experiments.comparison`) and returns a :class:`~dpviz.exercises.Feedback`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from typing import Any

import numpy as np
from scipy import optimize, special

from dpviz import data_aware, matrix_mechanism, mechanisms, strategies, workloads
from dpviz.exercises.checks import NO_ANSWER, check_array, check_function, check_number, unanswered
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.registry import Exercise
from dpviz.experiments import comparison
from dpviz.histogram_algorithms import ALGORITHMS

__all__ = ["check_mwem_budget", "check_partition_cost", "check_uniform_error", "check_mwem_first_choice",
           "check_dawa_ranking", "check_scale_for_epsilon", "uniform_wins_goal", "winner_changes_goal", "EXERCISES"]

#: Exercise 8.2's histogram, partition (bucket starts) and price per bucket.
COST_X, COST_STARTS, COST_PRICE = np.array([4.0, 4, 4, 4, 0, 0, 9, 1]), np.array([0, 4, 6]), 2.0
#: Exercise 8.4's histogram: 80 records on 8 cells (its total treated as public, as under replace-one neighbours),
#: answered with the 8 prefixes.
CHOICE_X = np.array([0.0, 0, 50, 0, 0, 0, 30, 0])


def check_mwem_budget(answer: Any) -> Feedback:
    """Exercise 8.1: MWEM's selection budget per round (epsilon = 1, T = 10, 5 % on the total, half to selection).

    Parameters
    ----------
    answer : float
        The student's epsilon of one round's exponential-mechanism selection.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_mwem_budget(0.95 / 10 / 2))
    True
    """
    expected = data_aware.mwem([1.0, 2.0], (np.array([0]), np.array([2])), 1.0, rounds=10, rng=0).epsilon_select
    return check_number(
        "8.1 MWEM's budget per round", answer, expected,
        explain="5 % of epsilon buys the noisy total; the other 0.95 is split evenly over the 10 rounds (0.095 each) "
                "and each round gives half to selecting and half to measuring: sequential composition adds them "
                "back up to exactly 1.",
        hint="Follow the accountant's table of section 3: first the total's share, then the rounds, then the split "
             "within a round.",
        mistakes=[(0.05, "That forgets the 5 % spent on the noisy total before the rounds."),
                  (0.095, "That is a whole round's budget; the round splits it between selecting and measuring."),
                  (0.1, "That ignores both the total's share and the split within a round.")])


def check_partition_cost(answer: Any) -> Feedback:
    """Exercise 8.2: DAWA's cost ``sum_B dev(B) + lambda |P|`` of one partition of a small histogram.

    Parameters
    ----------
    answer : float
        The student's cost of the partition ``[0, 4), [4, 6), [6, 8)`` of ``[4, 4, 4, 4, 0, 0, 9, 1]`` with
        ``lambda = 2``.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_partition_cost(14))
    True
    """
    part = data_aware.Partition(COST_STARTS, COST_X.size)
    dev = data_aware.bucket_deviation(COST_X, part)
    return check_number(
        "8.2 The cost of a partition", answer, float(dev.sum() + COST_PRICE * part.n_buckets),
        explain="the first two buckets are flat (deviation 0), the last has mean 5 and deviation |9 - 5| + |1 - 5| "
                "= 8, and three buckets cost 3 x 2 = 6.",
        hint="For each bucket add up |x_i - bucket mean| (data_aware.bucket_deviation), then add lambda for every "
             "bucket.",
        mistakes=[(float(dev.sum()), "That is the deviation alone: each bucket also costs the price lambda."),
                  (float(COST_PRICE * part.n_buckets), "That is the price of the buckets alone: add each bucket's "
                                                       "deviation from its mean."),
                  (float(dev.sum() + COST_PRICE), "lambda is paid for every bucket, not once."),
                  (float(np.sum((COST_X[6:] - COST_X[6:].mean()) ** 2) + COST_PRICE * part.n_buckets),
                   "DAWA's deviation is the L1 distance |x_i - mean|, not the squared one.")])


def _uniform_rms(n: int, epsilon: float, scale: float) -> float:
    """RMS scaled error of Uniform on the prefix workload when the data are exactly uniform (noise only)."""
    k = np.arange(1, int(n) + 1)
    total = mechanisms.laplace_variance(1.0, epsilon) * np.sum((k / n) ** 2)   # prefix [0, k) gets k/n of the noise
    return float(np.sqrt(total) / (n * scale))


@functools.lru_cache(maxsize=1)
def _uniform_cases() -> tuple[tuple[int, float, float], ...]:
    gen = np.random.default_rng(808)
    return tuple((int(n), float(e), float(s)) for n, e, s in zip(
        gen.integers(2, 5000, 20), 10 ** gen.uniform(-3, 1, 20), 10 ** gen.uniform(2, 7, 20), strict=True))


def check_uniform_error(fn: Any) -> Feedback:
    """Exercise 8.3: ``uniform_rms(n, epsilon, scale)``, Uniform's RMS scaled error on prefixes of uniform data.

    Parameters
    ----------
    fn : callable
        The student's ``uniform_rms(n, epsilon, scale)``: the root-mean-square (over the noise) of DPBench's
        scaled error of the Uniform baseline on the n prefix queries, when the data are exactly uniform.

    Returns
    -------
    Feedback
        The verdict, from 20 seeded random (n, epsilon, scale).

    Examples
    --------
    >>> bool(check_uniform_error(lambda n, e, s: math.sqrt(2 / e**2 * (n + 1) * (2 * n + 1) / (6 * n)) / (n * s)))
    True
    """
    return check_function(
        "8.3 Uniform's error on uniform data", fn, _uniform_rms, _uniform_cases(), rtol=1e-6,
        explain="the only noise is the total's Lap(1/epsilon), variance 2 / epsilon^2; the prefix [0, k) gets k/n "
                "of it, so the squared errors add up to (2 / epsilon^2) sum_k (k/n)^2 = (2 / epsilon^2) "
                "(n + 1)(2n + 1) / (6n).",
        hint="Uniform's only noise is that of the total, Lap(1/epsilon) with variance 2 / epsilon^2; the prefix "
             "[0, k) gets the fraction k/n of it. Add the n prefixes' variances, take the square root, divide by "
             "m s = n x scale.")


def check_mwem_first_choice(answer: Any) -> Feedback:
    """Exercise 8.4: the probability that MWEM's first round selects the prefix ``[0, 3)``.

    Parameters
    ----------
    answer : float
        The student's probability, for :data:`CHOICE_X` (total 80 treated as public), the 8 prefixes, epsilon = 1,
        T = 2.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> s = np.array([10, 20, 20, 10, 0, 10, 10, 0])
    >>> bool(check_mwem_first_choice(np.exp(0.25 * 20 / 2) / np.exp(0.25 * s / 2).sum()))
    True
    """
    W = workloads.prefix(CHOICE_X.size)
    total = float(CHOICE_X.sum())
    eps_s = data_aware.mwem(CHOICE_X, W, 1.0, rounds=2, total=total, rng=0).epsilon_select
    p = data_aware.selection_probabilities(CHOICE_X, W, eps_s, np.full(CHOICE_X.size, total / CHOICE_X.size))
    score = np.abs(np.cumsum(np.full(CHOICE_X.size, total / CHOICE_X.size)) - np.cumsum(CHOICE_X))
    eps_s_estimated = data_aware.mwem(CHOICE_X, W, 1.0, rounds=2, rng=0).epsilon_select   # N estimated and charged
    p_estimated = data_aware.selection_probabilities(CHOICE_X, W, eps_s_estimated,
                                                     np.full(CHOICE_X.size, total / CHOICE_X.size))
    return check_number(
        "8.4 MWEM's first choice", answer, float(p[2]), digits=3,
        explain="A_0 = 10 per cell, so the scores |q(A_0) - q(x)| are 10, 20, 20, 10, 0, 10, 10, 0; with eps_s = "
                "1/2/2 = 0.25 the weights are exp(0.25 x score / 2), and [0, 3) gets exp(2.5) over their sum.",
        hint="Start from A_0 = N/n in every cell, score each prefix by |q(A_0) - q(x)|, weigh it by "
             "exp(eps_s x score / 2) with eps_s = the selection budget of one round, and normalise.",
        mistakes=[(float(special.softmax(eps_s * score)[2]), "That weighs by exp(eps_s x score): the exponential "
                   "mechanism uses exp(eps_s x score / 2) (the score's sensitivity is 1), and eps_s is half of a "
                   "round's budget."),
                  (1 / CHOICE_X.size, "The exponential mechanism is not uniform: worse-answered queries are likelier."),
                  (float(2 * p[2]), "That is the chance of picking one of the two worst prefixes, [0, 2) or [0, 3); "
                                    "the question asks for [0, 3) alone."),
                  (0.5, "MWEM does not pick the worst query for sure (that would not be private): each query keeps "
                        "a positive probability."),
                  (float(p_estimated[2]), "That spends 5 % of epsilon on estimating N, as MWEM must under "
                   "add/remove neighbours; this exercise treats N = 80 as public (replace-one neighbours), so each "
                   "round gets epsilon / T in full and eps_s = 0.25.")])


@functools.lru_cache(maxsize=1)
def _dawa_over_identity() -> tuple[float, ...]:
    """DAWA's mean scaled error over Identity's on each shape (256 cells, 10,000 records, epsilon = 0.01)."""
    W = workloads.prefix(256)
    ratios = []
    for shape in comparison.SHAPES:
        x = comparison.make_histogram(shape, 256, scale=10_000, rng=0)
        err = [comparison.run_algorithm(a, x, W, 0.01, trials=20, rng=1).scaled_errors.mean()
               for a in ("DAWA", "Identity")]
        ratios.append(float(err[0] / err[1]))
    return tuple(ratios)


def _ranks(order: Iterable[str]) -> np.ndarray:
    """Position of each of :data:`SHAPES` in ``order``."""
    order = list(order)
    return np.array([order.index(s) for s in comparison.SHAPES], dtype=float)


def check_dawa_ranking(answer: Any) -> Feedback:
    """Exercise 8.5: the five synthetic shapes, from the one that favours DAWA over Identity most to the least.

    Parameters
    ----------
    answer : sequence of str
        The names of :data:`dpviz.experiments.comparison.SHAPES`, ordered by DAWA's error over Identity's,
        smallest first.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_dawa_ranking(["uniform", "smooth", "spikes", "step", "zipf"]))
    True
    """
    title = "8.5 Which data favour DAWA"
    if unanswered(answer):
        return Feedback(title, False, NO_ANSWER)
    hint = ("For each shape build make_histogram(shape, 256, scale=10_000, rng=0), run DAWA and Identity at epsilon "
            "= 0.01 (run_algorithm, 20 trials), and sort the shapes by the ratio of their mean scaled errors.")
    names = [answer] if isinstance(answer, str) else answer
    try:
        names = list(names)
    except TypeError:
        return Feedback(title, False, f"expected a list of the five shape names, got {answer!r}.", hint)
    if sorted(map(str, names)) != sorted(comparison.SHAPES) or not all(isinstance(s, str) for s in names):
        return Feedback(title, False, f"expected each of {', '.join(comparison.SHAPES)} exactly once, got "
                        f"{answer!r}.", hint)
    ratio = np.array(_dawa_over_identity())
    best_first = [comparison.SHAPES[i] for i in np.argsort(ratio)]
    return check_array(
        title, _ranks(names), _ranks(best_first),
        explain="at epsilon = 0.01 every bucket is expensive and DAWA keeps only a few: enough for uniform data and "
                "the smooth bumps, too few for the spikes and for the step (its jumps fall between dyadic boundaries "
                "and each costs a chain of buckets), far too few for zipf, whose counts change all along its head.",
        hint=hint,
        mistakes=[(_ranks(best_first[::-1]), "That is the order from least to most favourable: put the smallest "
                                             "ratio DAWA / Identity first.")])


@functools.lru_cache(maxsize=4)
def _matching_epsilon(epsilon: float, scale: float, new_scale: float, n: int = 256) -> float:
    """The epsilon at which Identity's exact RMS scaled error on ``new_scale`` records equals that at ``epsilon``."""
    W, A = workloads.prefix(n), strategies.identity(n)

    def scaled(eps: float, s: float) -> float:    # DPBench's RMS scaled error of Identity on the prefixes, exactly
        return math.sqrt(matrix_mechanism.expected_error(W, A, eps)) / (n * s)

    target = scaled(epsilon, scale)
    return float(optimize.brentq(lambda e: scaled(e, new_scale) - target, 1e-6, 10.0, xtol=1e-14, rtol=1e-12))


def check_scale_for_epsilon(answer: Any) -> Feedback:
    """Exercise 8.6: the epsilon at which Identity on 100,000 records matches its error at epsilon = 1 on 1,000.

    Parameters
    ----------
    answer : float
        The student's epsilon.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_scale_for_epsilon(0.01))
    True
    """
    return check_number(
        "8.6 Scale acts like epsilon", answer, _matching_epsilon(1.0, 1_000, 100_000), rtol=1e-6,
        explain="Identity's scaled error is sqrt((n + 1)/n) / (epsilon s): only epsilon x s matters, so 100 times "
                "the records buy the same error at a hundredth of the epsilon.",
        hint="Write the scaled error of section 1 for both scales and set them equal.",
        mistakes=[(100.0, "More records make the *relative* error smaller, so less epsilon is needed, not more."),
                  (0.1, "The error falls like 1 / (epsilon s), not like its square root.")])


def _best(result: Any) -> str | None:
    """The algorithm with the lowest mean scaled error, or None when some algorithms are not shown."""
    if set(result.algorithms) != set(comparison.available_algorithms()):
        return None
    return min(result.algorithms, key=lambda a: result.runs[a].scaled_errors.mean())


def uniform_wins_goal() -> tuple[str, Any]:
    """A goal for the AlgorithmComparisonExplorer: find a setting where the one-bucket Uniform baseline wins.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = uniform_wins_goal()
    >>> text
    'with every algorithm ticked, find data and an epsilon at which the Uniform baseline has the lowest error'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if _best(result) == "Uniform":
            return f"{result.source}, epsilon = {result.epsilon:.3g}: Uniform wins"
        return None

    return ("with every algorithm ticked, find data and an epsilon at which the Uniform baseline has the lowest "
            "error", test)


def winner_changes_goal() -> tuple[str, Any]:
    """A goal for the AlgorithmComparisonExplorer: on the same data, a data-aware and a workload-aware winner.

    The test remembers the winners it has seen for each setting of the data (dataset, scale, n, workload).

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = winner_changes_goal()
    >>> text.startswith("on the same data")
    True
    """
    seen: dict[tuple[Any, ...], dict[str, float]] = {}

    def test(result: Any, values: dict[str, Any]) -> str | None:
        best = _best(result)
        if best is None:
            return None
        family = "workload-aware" if ALGORITHMS[best].family == "workload-aware" else "data-aware"
        key = (result.source, result.scale, result.n, result.workload)
        seen.setdefault(key, {}).setdefault(f"{family}:{best}", result.epsilon)
        families = {k.split(":")[0]: (k.split(":")[1], e) for k, e in seen[key].items()}
        if len(families) == 2:
            (a, ea), (b, eb) = families["data-aware"], families["workload-aware"]
            return f"{result.source}: {a} wins at epsilon = {ea:.3g}, {b} at epsilon = {eb:.3g}"
        return None

    return ("on the same data, find one epsilon where a data-aware algorithm wins and another where a workload-aware "
            "one does", test)


def _solution_uniform_rms(n: int, epsilon: float, scale: float) -> float:
    variance = 2 / epsilon**2                                  # Lap(1/epsilon) on the total
    k = np.arange(1, n + 1)
    return float(np.sqrt(np.sum((k / n) ** 2 * variance)) / (n * scale))


EXERCISES = (
    Exercise("8.1", "MWEM's budget per round", check_mwem_budget, 0.95 / 10 / 2,
             ((0.05, "noisy total"), (0.095, "splits"), (0.1, "both")), "easy"),
    Exercise("8.2", "The cost of a partition", check_partition_cost, 14.0,
             ((8.0, "price"), (6.0, "deviation"), (10.0, "every bucket"), (38.0, "squared")), "easy"),
    Exercise("8.3", "Uniform's error on uniform data", check_uniform_error, _solution_uniform_rms,
             ((lambda n, e, s: math.sqrt((n + 1) / n) / (e * s), "k/n"),
              (lambda n, e, s: _solution_uniform_rms(n, e, s) / math.sqrt(2), "2 / epsilon^2")), "medium"),
    Exercise("8.4", "MWEM's first choice", check_mwem_first_choice,
             float(np.exp(0.25 * 20 / 2) / np.exp(0.25 * np.array([10, 20, 20, 10, 0, 10, 10, 0]) / 2).sum()),
             ((0.125, "not uniform"), (0.5, "positive probability")), "hard", digits=3),
    Exercise("8.5", "Which data favour DAWA", check_dawa_ranking, ["uniform", "smooth", "spikes", "step", "zipf"],
             ((["zipf", "step", "spikes", "smooth", "uniform"], "smallest ratio"),
              (["uniform", "step", "spikes", "smooth", "zipf"], "sort the shapes")), "medium"),
    Exercise("8.6", "Scale acts like epsilon", check_scale_for_epsilon, 0.01,
             ((100.0, "less epsilon"), (0.1, "square root")), "easy"),
)
