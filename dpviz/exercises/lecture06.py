"""Exercises of lecture 06 (the sparse vector technique, GPTT and the attack on it).

Neighbours are add/remove-one-record, as in every lecture; a count query and a difference of two counts have
sensitivity 1.  GPTT is **NOT differentially private**: the exercises compute why, and run the attack it allows.
Each ``check_*`` computes its expected answer for the student's variant (:func:`values`) with :mod:`dpviz.svt`
and returns a :class:`~dpviz.exercises.Feedback`; exercise 6.4's hidden histogram is drawn from the variant's seed
when it is needed, never stored.  The goals the lecture's GPTTAttackExplorer checks live in
:mod:`dpviz.exercises.lecture06_goals` (re-exported here).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from dpviz import mechanisms, svt
from dpviz.exercises.checks import check_array, check_function, check_number
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture06_goals import dp_ceiling_goal, majority_vote_goal
from dpviz.exercises.registry import Exercise
from dpviz.exercises.variants import Values, start, values

__all__ = ["start", "values", "check_break_even", "check_four_answers", "check_copies_needed", "secret_oracle",
           "check_secret_counts", "check_partition", "majority_vote_goal", "dp_ceiling_goal", "EXERCISES"]

#: The output of exercise 6.2: below, above, below, above.
_EVENT = (svt.BELOW, svt.ABOVE, svt.BELOW, svt.ABOVE)


def _below(x: float) -> int:
    """The largest integer strictly below ``x``."""
    return math.ceil(x) - 1


def _break_even(queries: int, share: float) -> int:
    """Largest c whose SVT query noise has a smaller scale than Laplace noise on each of ``queries`` queries."""
    per_query = mechanisms.laplace_scale(1.0, 1.0 / queries)           # sequential composition over m queries
    narrower = [c for c in range(1, queries + 1)
                if svt.svt_noise_scales(1.0, c, threshold_share=share)[1] < per_query]
    return max(narrower, default=0)


def check_break_even(answer: Any) -> Feedback:
    """Exercise 6.1: the largest cut-off c at which SVT's query noise is narrower than Laplace noise per query.

    m threshold questions of sensitivity 1 (m = ``queries``), a total budget epsilon; SVT spends the share
    ``threshold_share`` on its threshold.  Laplace noise on every query with epsilon / m each has scale m / epsilon.

    Parameters
    ----------
    answer : int
        The student's largest c.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_break_even(37))
    True
    """
    v = values("6.1")
    m, share = v.queries, v.threshold_share
    return check_number(
        "6.1 When SVT beats Laplace per query", answer, _break_even(m, share),
        explain=f"SVT's query noise has scale 2 c / eps2 = 2 c / ({1 - share:g} eps), Laplace per query m / eps = "
                f"{m} / eps: epsilon cancels, and 2 c < {1 - share:g} x {m} holds up to that c. Beyond it SVT's "
                "query noise is wider than Laplace noise on every question.",
        hint="Write both noise scales with epsilon as a symbol: SVT's query noise Lap(2 c Delta / eps2) with eps2 the "
             "queries' share, and Laplace per query Lap(Delta / (eps / m)). Solve for c.",
        mistakes=[(w, why) for w, why, _ in _break_even_mistakes(v)])


def _break_even_mistakes(v: Values) -> list[tuple[float, str, str]]:
    """(wrong c, hint, a word of the hint); two mistakes that give the same c share one hint."""
    m, share = v.queries, v.threshold_share
    found = [(_below(m / 2), "That gives SVT's queries the whole budget; they get only eps2 = (1 - share) eps: the "
              "threshold's share pays for the 'below' answers.", "threshold"),
             (_below(m * (1 - share)), "An 'above' answer's noise must absorb a shift of up to 2 Delta (the query "
              "moves by Delta and the threshold by Delta): SVT's query noise is Lap(2 c Delta / eps2).", "2 Delta"),
             (_break_even(m, share) + 1, "At that c SVT's query noise is already wider than Laplace per query: the "
              "question asks for the largest c at which it is narrower.", "wider")]
    if share != 0.5:
        found.append((_below(m / 4), f"That splits epsilon evenly; your threshold gets the share {share:g} of it, "
                       "the queries the rest.", "splits epsilon evenly"))
    merged: dict[int, tuple[str, str]] = {}
    for c, why, word in found:
        merged[c] = (merged[c][0] + " Or: " + why, merged[c][1]) if c in merged else (why, word)
    return [(float(c), why, word) for c, (why, word) in merged.items()]


def _four_answers(v: Values, epsilon1: float | None = None) -> float:
    """P(below, above, below, above) for the variant's answers, threshold and threshold budget (no query noise)."""
    return svt.event_probability(list(v.answers), list(_EVENT), float(v.threshold),
                                 v.epsilon1 if epsilon1 is None else epsilon1)


def check_four_answers(answer: Any) -> Feedback:
    """Exercise 6.2: P(below, above, below, above) for four answers q, threshold T, threshold noise Lap(1/eps1).

    GPTT without query noise; q = ``answers``, T = ``threshold``, eps1 = ``epsilon1`` of the student's variant.

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
    >>> bool(check_four_answers(0.5 * (1 - np.exp(-1))))     # P(1 < 1 + Lap(1) <= 2)
    True
    """
    v = values("6.2")
    q, t = np.asarray(v.answers, dtype=float), float(v.threshold)
    lo, hi = max(q[0], q[2]), min(q[1], q[3])
    return check_number(
        "6.2 Four answers, one threshold", answer, _four_answers(v),
        explain=f"all four answers use the same noisy threshold T^: 'below' for {q[0]:g} and {q[2]:g} needs "
                f"T^ > {lo:g}, 'above' for {q[1]:g} and {q[3]:g} needs T^ <= {hi:g}, so P = P({lo:g} < {t:g} + "
                f"Lap(1/{v.epsilon1:g}) <= {hi:g}): the Laplace cdf at {hi - t:g} minus at {lo - t:g}.",
        hint="Write each answer as a condition on the one noisy threshold T^ = T + Lap(1/eps1): only the largest "
             "'below' answer and the smallest 'above' answer matter. Then take the Laplace cdf at both ends.",
        mistakes=_four_answers_mistakes(v), digits=3)


def _four_answers_mistakes(v: Values) -> list[tuple[float, str]]:
    q, t, e1 = list(v.answers), float(v.threshold), v.epsilon1
    right = _four_answers(v)
    factorised = math.prod(svt.event_probability([a], [s], t, e1) for a, s in zip(q, _EVENT, strict=True))
    out = [(factorised, "That multiplies the four answers' probabilities as if each had its own threshold: the "
                        "flawed factorisation of section 2. All four share one T^."),
           (1 - right, "That is the probability that T^ lies *outside* the interval the output needs."),
           (svt.event_probability(q[:2], [svt.BELOW, svt.ABOVE], t, e1),
            "That uses only the first two answers; the third and fourth narrow the interval T^ must fall in.")]
    if e1 != 1.0:
        out.append((_four_answers(v, 1 / e1), f"That uses Laplace noise of scale {e1:g}; the threshold noise "
                                              f"Lap(1/eps1) has scale 1/{e1:g}."))
    return out


@functools.lru_cache(maxsize=8)
def _log_ratios(epsilon1: float, bound: bool = False) -> tuple[float, ...]:
    """The counterexample's exact log ratio (or its proven lower bound) for t = 1..40, eps2 = 1 - eps1."""
    t = np.arange(1, 41)
    ratio = (svt.counterexample_log_ratio_bound(t, epsilon1, 1 - epsilon1) if bound
             else svt.counterexample_probability(t, epsilon1, 1 - epsilon1).log_ratio)
    return tuple(float(r) for r in ratio)


def _copies_needed(loss: float, epsilon1: float, bound: bool = False) -> int:
    """Smallest t (of 1..40) with the counterexample's log ratio (or its proven lower bound) above ``loss``."""
    ratio = np.array(_log_ratios(epsilon1, bound))
    return int(np.argmax(ratio > loss)) + 1


def check_copies_needed(answer: Any) -> Feedback:
    """Exercise 6.3: the fewest copies t at which GPTT's counterexample shows a privacy loss above L.

    L = ``loss``, eps1 = ``epsilon1`` and eps2 = 1 - eps1 (claimed epsilon 1) of the student's variant.

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
    v = values("6.3")
    return check_number(
        "6.3 How many copies break the claim", answer, _copies_needed(v.loss, v.epsilon1),
        explain=f"the exact log ratio grows with every copy and first exceeds {v.loss} ({v.loss} times the claimed "
                "epsilon = 1) there; no epsilon bounds it for every t.",
        hint=f"Compute svt.counterexample_probability(t, {v.epsilon1:g}, {1 - v.epsilon1:g}).log_ratio for t = 1, "
             f"2, ... and find the first t whose value exceeds {v.loss}.",
        mistakes=_copies_mistakes(v))


def _copies_mistakes(v: Values) -> list[tuple[float, str]]:
    return [(float(_copies_needed(v.loss, v.epsilon1, bound=True)), f"That is where the proven lower bound passes "
             f"{v.loss}; the exact ratio (log_ratio) gets there sooner."),
            (float(_copies_needed(1.0, v.epsilon1)), f"That t breaks the claim epsilon = 1; the question asks for a "
             f"loss above {v.loss}.")]


def _secret(v: Values) -> np.ndarray:
    """Exercise 6.4's hidden histogram: ``cells`` counts in which every count 0..k occurs, drawn from the seed."""
    gen = np.random.default_rng([v.seed, 604])
    extra = gen.integers(0, v.k + 1, size=v.cells - v.k - 1)
    return gen.permutation(np.concatenate([np.arange(v.k + 1), extra])).astype(float)


def _oracle(v: Values) -> tuple[np.ndarray, svt.GPTTOracle]:
    """The hidden histogram and a fresh oracle over it whose noisy threshold lies in (1, 2].

    There rows alone merge the counts 0 and 1, rows and columns recover every count, and Algorithm 4's rounded
    averages miss some: the first of the oracle seeds ``(seed, 0), (seed, 1), ...`` for which all three hold.
    """
    counts = _secret(v)
    for r in range(1000):
        make = functools.partial(svt.GPTTOracle, counts, 0.5, rng=np.random.SeedSequence([v.seed, r]))
        probe = [int(make().answer_differences(np.array([0]), shift=s)[0, 0]) for s in (1.0, 2.0)]  # s >= T^ ?
        if probe == [0, 1] and np.array_equal(svt.ordered_partition(make()).labels, counts) \
                and not np.array_equal(svt.reconstruct_from_oracle(make(), 0.5).guess, counts):
            return counts, make()
    raise RuntimeError("no oracle seed found")   # pragma: no cover - P(none of 1000) is below 1e-50


def secret_oracle() -> svt.GPTTOracle:
    """Exercise 6.4's oracle: GPTT (NOT differentially private) over your hidden histogram.

    The histogram has ``cells`` cells in which every count 0, 1, ..., k occurs (``k`` of your values).  The
    oracle answers difference queries with threshold noise of budget 0.5 and no query noise; each call returns
    the same oracle (the same noisy threshold).

    Returns
    -------
    dpviz.svt.GPTTOracle
        The oracle. It holds the counts (Python hides nothing from a determined reader: the grade comes from
        the instructor's hidden tests, see docs/course.md).

    Examples
    --------
    >>> secret_oracle().domain_size
    16
    """
    return _oracle(values("6.4"))[1]


def check_secret_counts(answer: Any) -> Feedback:
    """Exercise 6.4: the counts hidden behind :func:`secret_oracle`, recovered by the attack.

    Parameters
    ----------
    answer : array_like, shape (cells,)
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
    v = values("6.4")
    return check_array(
        "6.4 Attack a hidden histogram", answer, _oracle(v)[0],
        explain=f"Algorithm 3's groups are the level sets in increasing order, and since every count 0..{v.k} "
                f"occurs, group i holds count i (Theorem 5.12): all {v.cells} counts, without spending anything on "
                "totals.",
        hint="Run svt.ordered_partition on the oracle: which count must the i-th group hold if every count 0..k "
             "occurs?",
        mistakes=_secret_mistakes(v))


def _secret_mistakes(v: Values) -> list[tuple[np.ndarray, str]]:
    _, oracle = _oracle(v)
    rows = svt.ordered_partition(oracle, grouping="row").labels
    return [(rows, "Those groups come from the rows alone; with this noisy threshold the counts 0 and 1 both have "
                   "an empty row. Group by rows and columns (the default)."),
            (svt.reconstruct_from_oracle(_oracle(v)[1], 0.5).guess,
             "Those are Algorithm 4's rounded noisy averages: with groups of a few cells the Lap(2) noise of each "
             "total is too large to round to the right count. Use the order of the groups instead.")]


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


#: Exercise 6.2's answer vectors: the largest "below" answer and the smallest "above" one are never both among the
#: first two answers.
_FOUR = ((0, 3, 1, 2), (2, 5, 3, 4), (1, 3, 0, 2), (0, 4, 2, 3), (1, 4, 0, 2), (3, 5, 1, 4), (0, 5, 1, 4))

EXERCISES = (
    Exercise("6.1", "When SVT beats Laplace per query", check_break_even,
             lambda v: _break_even(v.queries, v.threshold_share),
             lambda v: tuple((w, word) for w, _, word in _break_even_mistakes(v)),
             "medium", kind="combine",
             parameters={"queries": (150, 90, 110, 130, 170, 190, 230, 250), "threshold_share": (0.5, 0.25, 0.75)}),
    Exercise("6.2", "Four answers, one threshold", check_four_answers, _four_answers,
             lambda v: tuple(zip((w for w, _ in _four_answers_mistakes(v)),
                                 ("share one", "outside", "first two", "scale"), strict=False)),
             "medium", digits=3, kind="derive",
             parameters={"answers": _FOUR, "threshold": (1.0, 2.0, 3.0), "epsilon1": (1.0, 0.5, 2.0, 0.8, 1.5)}),
    Exercise("6.3", "How many copies break the claim", check_copies_needed,
             lambda v: _copies_needed(v.loss, v.epsilon1),
             lambda v: tuple(zip((w for w, _ in _copies_mistakes(v)), ("lower bound", "breaks the claim"),
                                 strict=True)),
             "easy", kind="plug-in", parameters={"loss": (5, 3, 4, 6, 7, 8), "epsilon1": (0.5, 0.25, 0.4)}),
    Exercise("6.4", "Attack a hidden histogram", check_secret_counts, lambda v: _oracle(v)[0],
             lambda v: tuple(zip((w for w, _ in _secret_mistakes(v)), ("rows and columns", "noise"), strict=True)),
             "medium", kind="plug-in", parameters={"cells": (16, 12, 14, 18, 20, 24), "k": (6, 4, 5, 7, 8)}),
    Exercise("6.5", "Write Algorithm 3", check_partition, lambda v: _solution_partition,
             lambda v: ((_rows_only_partition, "columns"), (lambda a: _solution_partition(a)[::-1], "order")),
             "hard", kind="implement"),
)
