"""Exercises of lecture 06 (the sparse vector technique, GPTT and the attack on it).

Neighbours are add/remove-one-record, as in every lecture; a count query and a difference of two counts have
sensitivity 1.  GPTT is **NOT differentially private**: the exercises compute why, and run the attack it allows.
Each ``check_*`` computes its expected answer with :mod:`dpviz.svt` and returns a
:class:`~dpviz.exercises.Feedback`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from dpviz import svt
from dpviz.exercises.checks import check_array, check_function, check_number
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.registry import Exercise

__all__ = ["check_above_cost", "check_two_answers", "check_copies_needed", "secret_oracle", "check_secret_counts",
           "check_partition", "majority_vote_goal", "dp_ceiling_goal", "EXERCISES"]

#: The hidden histogram of exercise 6.4: 16 cells in which every count 0..6 occurs (k = 6), shuffled.
_SECRET = np.random.default_rng(616).permutation(np.repeat(np.arange(7), [4, 3, 2, 3, 1, 2, 1])).astype(float)


def check_above_cost(answer: Any) -> Feedback:
    """Exercise 6.1: what one "above" answer of SVT costs (epsilon = 1 split evenly, c = 3, sensitivity 1).

    Parameters
    ----------
    answer : float
        The student's privacy cost of one "above" answer.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_above_cost(1 / 6))
    True
    """
    b_query = svt.svt_noise_scales(1.0, 3)[1]
    return check_number(
        "6.1 The cost of one 'above' answer", answer, 2 * 1.0 / b_query,
        explain="the query noise is Lap(2 c Delta / eps2) = Lap(12); an 'above' answer needs its noise shifted by up "
                "to 2 Delta = 2, which costs 2 / 12 = eps2 / c. Three of them spend eps2 = 0.5; the threshold's "
                "eps1 = 0.5 pays for every 'below' answer at once.",
        hint="Find the scale of the query noise (svt.svt_noise_scales), then what a shift of 2 Delta costs at that "
             "scale.",
        mistakes=[(1 / 3, "That divides the whole budget by c; the threshold's half pays for the 'below' answers."),
                  (0.5, "0.5 is eps2, what all c = 3 'above' answers cost together, not each one."),
                  (1 / 12, "The noise of an 'above' answer must absorb a shift of up to 2 Delta, not Delta: the "
                           "query moves by Delta and the threshold by Delta.")],
        digits=3)


def check_two_answers(answer: Any) -> Feedback:
    """Exercise 6.2: P(below, above) for q = (0, 1), T = 1/2, threshold noise Lap(1/1), no query noise.

    Parameters
    ----------
    answer : float
        The student's probability.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_two_answers(1 - np.exp(-0.5)))
    True
    """
    expected = svt.event_probability([0.0, 1.0], [svt.BELOW, svt.ABOVE], 0.5, 1.0)
    factorised = (svt.event_probability([0.0], [svt.BELOW], 0.5, 1.0)
                  * svt.event_probability([1.0], [svt.ABOVE], 0.5, 1.0))
    return check_number(
        "6.2 Two answers, one threshold", answer, expected,
        explain="both answers use the same noisy threshold: q1 = 0 below needs T^ > 0 and q2 = 1 above needs "
                "T^ <= 1, so P = P(-1/2 < Lap(1) <= 1/2) = 1 - e^(-1/2).",
        hint="Write the event as a condition on the one noisy threshold T^ = 1/2 + Lap(1), then integrate the "
             "Laplace density over that interval.",
        mistakes=[(factorised, "That multiplies P(below) and P(above) as if each answer had its own threshold: "
                               "the flawed factorisation of section 2. Both answers share one T^."),
                  (math.exp(-0.5), "That is the probability that T^ lies *outside* (0, 1]."),
                  (0.5, "Half is the chance that T^ lies on one side of 1/2; the event needs T^ in (0, 1].")],
        digits=3)


@functools.lru_cache(maxsize=4)
def _copies_needed(loss: float, bound: bool = False) -> int:
    """Smallest t with the counterexample's log ratio (or its proven lower bound) above ``loss``, eps1 = eps2 = 1/2."""
    t = np.arange(1, 41)                      # the ratio passes 5 near t = 13, its proven bound near t = 20
    ratio = (svt.counterexample_log_ratio_bound(t, 0.5, 0.5) if bound
             else svt.counterexample_probability(t, 0.5, 0.5).log_ratio)
    return int(t[np.argmax(ratio > loss)])


def check_copies_needed(answer: Any) -> Feedback:
    """Exercise 6.3: the fewest copies t at which GPTT's counterexample shows a privacy loss above 5.

    Parameters
    ----------
    answer : int
        The student's number of copies.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_copies_needed(13))
    True
    """
    return check_number(
        "6.3 How many copies break the claim", answer, _copies_needed(5.0),
        explain="the exact log ratio grows by about 0.4 per copy and first exceeds 5 (five times the claimed "
                "epsilon = 1) there; no epsilon bounds it for every t.",
        hint="Compute svt.counterexample_probability(t, 0.5, 0.5).log_ratio for t = 1, 2, ... and find the first "
             "t whose value exceeds 5.",
        mistakes=[(_copies_needed(5.0, bound=True), "That is where the proven lower bound passes 5; the exact ratio "
                                                    "(log_ratio) gets there sooner."),
                  (_copies_needed(1.0), "That t breaks the claim epsilon = 1; the question asks for a loss above 5.")])


def secret_oracle() -> svt.GPTTOracle:
    """Exercise 6.4's oracle: GPTT (NOT differentially private) over a hidden 16-cell histogram.

    Every count 0, 1, ..., 6 occurs in the hidden histogram (k = 6).  The oracle
    answers difference queries with threshold noise of budget 0.5 and no query
    noise; each call returns the same oracle (the same noisy threshold).

    Returns
    -------
    dpviz.svt.GPTTOracle
        The oracle (the counts are not readable through it).

    Examples
    --------
    >>> secret_oracle().domain_size
    16
    """
    return svt.GPTTOracle(_SECRET, 0.5, rng=7)


def check_secret_counts(answer: Any) -> Feedback:
    """Exercise 6.4: the 16 counts hidden behind :func:`secret_oracle`, recovered by the attack.

    Parameters
    ----------
    answer : array_like, shape (16,)
        The student's guessed counts.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_secret_counts(svt.ordered_partition(secret_oracle()).labels))
    True
    """
    return check_array(
        "6.4 Attack a hidden histogram", answer, _SECRET,
        explain="Algorithm 3's groups are the level sets in increasing order, and since every count 0..6 occurs, "
                "group i holds count i (Theorem 5.12): all 16 counts, without spending anything on totals.",
        hint="Run svt.ordered_partition on the oracle: which count must the i-th group hold if every count 0..k "
             "occurs?",
        mistakes=[(svt.ordered_partition(secret_oracle(), grouping="row").labels,
                   "Those groups come from the rows alone; with this noisy threshold some small counts have the "
                   "same (empty) row. Group by rows and columns (the default)."),
                  (svt.reconstruct_from_oracle(secret_oracle(), 0.5).guess,
                   "Those are Algorithm 4's rounded noisy averages: with groups of 1 to 4 cells the Lap(2) noise of "
                   "each total is too large to round to the right count. Use the order of the groups instead.")])


class _AnswerMatrix:
    """A difference oracle that serves a fixed matrix of GPTT answers (to grade a student's Algorithm 3)."""

    def __init__(self, answers: np.ndarray) -> None:
        self._answers = answers
        self.domain_size = int(answers.shape[0])

    def answer_differences(self, rows: np.ndarray, copies: int = 1, shift: float = 0.0) -> np.ndarray:
        return self._answers[np.asarray(rows)]

    def noisy_group_totals(self, labels: np.ndarray, epsilon: float) -> np.ndarray:
        raise NotImplementedError("a matrix of answers has no totals")


def _reference_partition(answers: np.ndarray) -> np.ndarray:
    return svt.ordered_partition(_AnswerMatrix(np.asarray(answers, dtype=np.uint8))).labels


@functools.lru_cache(maxsize=1)
def _partition_cases() -> tuple[tuple[np.ndarray], ...]:
    """GPTT answer matrices of 12 random small histograms, with noisy thresholds spread over several integers."""
    gen = np.random.default_rng(606)
    cases = []
    for _ in range(12):
        counts = gen.integers(0, 7, size=int(gen.integers(5, 15)))
        oracle = svt.GPTTOracle(counts, 0.5, threshold=float(gen.uniform(-2.5, 3.5)), rng=gen)
        cases.append((oracle.answer_differences(np.arange(counts.size)).astype(np.int64),))
    return tuple(cases)


def check_partition(fn: Any) -> Feedback:
    """Exercise 6.5: ``partition(answers)``, Algorithm 3 of Chen & Machanavajjhala on a matrix of GPTT answers.

    Parameters
    ----------
    fn : callable
        The student's ``partition(answers) -> labels``: ``answers[x, y]`` is 1 when GPTT answered
        ``c(x) - c(y)`` "above", and ``labels[x]`` the group of cell x (0, 1, ... in the order of the counts).

    Returns
    -------
    Feedback
        The verdict, from 12 answer matrices of random small histograms.

    Examples
    --------
    >>> bool(check_partition(_reference_partition))
    True
    """
    return check_function(
        "6.5 Write Algorithm 3", fn, _reference_partition, _partition_cases(),
        explain="cells with the same row and the same column are indistinguishable in every query; ordering the "
                "groups by |S_x| (ties: more 1s in the column) puts them in the order of the counts.",
        hint="Put two cells in one group only when both their rows and their columns agree. Then order the groups "
             "by the number of 1s in the row (fewest first) and, when two groups tie, by the number of 1s in the "
             "column (most first): a smaller count lies below more cells.")


def _dp_ceiling(epsilon: float) -> float:
    """The largest probability with which an epsilon-DP release lets anyone guess both of two neighbouring counts."""
    return math.exp(epsilon) / (1.0 + math.exp(epsilon))


def majority_vote_goal(target: float = 0.95) -> tuple[str, Any]:
    """A goal for the GPTTAttackExplorer: with query noise, raise the copies until the attack works again.

    Parameters
    ----------
    target : float, default 0.95
        The fraction of the cells with count <= k the GPTT attack must guess exactly.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = majority_vote_goal()
    >>> class Acc:
    ...     small = 0.99
    >>> class R:
    ...     gptt_accuracy, copies = Acc(), 10_001
    >>> test(R(), {"query_share": 0.5})
    '10,001 copies per query: 99.0 % of the cells with count <= k guessed exactly'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if values.get("query_share", 0.0) > 0 and result.gptt_accuracy.small >= target:
            return (f"{result.copies:,} copies per query: {100 * result.gptt_accuracy.small:.1f} % of the cells "
                    f"with count <= k guessed exactly")
        return None

    return (f"add query noise, then raise the copies until GPTT again gives away at least {100 * target:g} % of the "
            "cells with count <= k", test)


def dp_ceiling_goal(epsilon: float = 0.01) -> tuple[str, Any]:
    """A goal for the GPTTAttackExplorer: at a claimed epsilon this small, still beat what any DP release allows.

    Parameters
    ----------
    epsilon : float, default 0.01
        The claimed epsilon to reach (the slider's minimum), within 5 %.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = dp_ceiling_goal()
    >>> class Acc:
    ...     small_nonzero = 0.6
    >>> class R:
    ...     epsilon, gptt_accuracy = 0.01, Acc()
    >>> test(R(), {})
    'epsilon = 0.01: GPTT guesses 60.0 % of the counts 1..k, any 0.01-DP release at most 50.2 %'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        ceiling = _dp_ceiling(result.epsilon)
        if result.epsilon <= 1.05 * epsilon and result.gptt_accuracy.small_nonzero > ceiling:
            return (f"epsilon = {result.epsilon:.3g}: GPTT guesses {100 * result.gptt_accuracy.small_nonzero:.1f} % "
                    f"of the counts 1..k, any {result.epsilon:.3g}-DP release at most {100 * ceiling:.1f} %")
        return None

    return (f"lower the claimed epsilon to {epsilon:g} and still guess more non-zero small counts than any "
            f"{epsilon:g}-DP release could", test)


def _solution_partition(answers: Any) -> list[int]:
    A = np.asarray(answers, dtype=int)
    keys = [tuple(A[x]) + tuple(A[:, x]) for x in range(len(A))]
    groups = sorted(set(keys), key=lambda k: (sum(k[:len(A)]), -sum(k[len(A):])))
    return [groups.index(k) for k in keys]


def _rows_only_partition(answers: Any) -> list[int]:
    A = np.asarray(answers, dtype=int)
    keys = [tuple(row) for row in A]
    groups = sorted(set(keys), key=sum)
    return [groups.index(k) for k in keys]


EXERCISES = (
    Exercise("6.1", "The cost of one 'above' answer", check_above_cost, 1 / 6,
             ((1 / 3, "threshold"), (0.5, "together"), (1 / 12, "2 Delta")), "easy", digits=3),
    Exercise("6.2", "Two answers, one threshold", check_two_answers, 1 - math.exp(-0.5),
             ((svt.event_probability([0.0], [svt.BELOW], 0.5, 1.0)
               * svt.event_probability([1.0], [svt.ABOVE], 0.5, 1.0), "share"), (math.exp(-0.5), "outside")), "medium",
             digits=3),
    Exercise("6.3", "How many copies break the claim", check_copies_needed, 13,
             ((20, "lower bound"), (3, "breaks the claim")), "medium"),
    Exercise("6.4", "Attack a hidden histogram", check_secret_counts, _SECRET.copy(),
             ((svt.ordered_partition(secret_oracle(), grouping="row").labels, "rows and columns"),
              (svt.reconstruct_from_oracle(secret_oracle(), 0.5).guess, "noise")), "medium"),
    Exercise("6.5", "Write Algorithm 3", check_partition, _solution_partition,
             ((_rows_only_partition, "columns"),
              (lambda a: _solution_partition(a)[::-1], "order")), "hard"),
)
