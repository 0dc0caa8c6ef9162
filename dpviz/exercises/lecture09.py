"""Exercises of lecture 09 (choosing privately: the exponential mechanism, report-noisy-max, permute-and-flip).

Neighbours are add/remove-one-record, as in every lecture; a score of sensitivity Delta moves by at most
Delta between neighbours.  ``ex.start(id)`` gives each student their own numbers (``ex.values("9.k")``); each
``check_*`` computes the expected answer for them with :mod:`dpviz.selection` and returns a
:class:`~dpviz.exercises.Feedback`; the goal functions that give the lecture's
:class:`SelectionExplorer` something to check live in :mod:`dpviz.exercises.lecture09_goals` (re-exported here).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from dpviz import selection
from dpviz.audit import epsilon_lower_bound

# check_array is aliased: the exercise checkers answer every input with feedback and never raise, unlike
# dpviz.validation.check_array, whose name they would otherwise share
from dpviz.exercises.checks import NO_ANSWER, check_number, check_private, real_array, unanswered
from dpviz.exercises.checks import check_array as check_answer_array
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture09_goals import advantage_goal, best_probability_goal, largest_advantage
from dpviz.exercises.registry import Exercise
from dpviz.exercises.variants import Values, start, values
from dpviz.experiments.selection import selection_scores
from dpviz.mechanisms import selection_scale

__all__ = ["start", "values", "check_em_best_of_three", "check_counting_noise_scale", "check_utility_guarantee",
           "check_expected_scores", "check_exponential_mechanism", "check_too_little_noise", "half_noise_max",
           "best_probability_goal", "largest_advantage", "advantage_goal", "EXERCISES"]

def check_em_best_of_three(answer: Any) -> Feedback:
    """Exercise 9.1: the exponential mechanism's probability of picking the first of three counts (your variant's).

    Parameters
    ----------
    answer : float
        The student's probability (sensitivity 1, scale 2 Delta / epsilon; counts and epsilon from their variant).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> w = np.exp(0.2 * np.array([30, 25, 10]) / 2)
    >>> bool(check_em_best_of_three(w[0] / w.sum()))
    True
    """
    v = values("9.1")
    p = selection.exponential_probabilities(v.counts, v.epsilon)
    return check_number(
        "9.1 The exponential mechanism's pick", answer, float(p[0]),
        explain=f"the weights are exp({v.epsilon:g} u / 2) for u = {', '.join(map(str, v.counts))}, and the first "
                f"holds {p[0]:.3f} of their total.",
        hint="Weight each candidate by exp(epsilon * score / (2 * sensitivity)) and divide the first weight by "
             "the sum of all three.",
        mistakes=_pick_mistakes(v), digits=3)


def _pick_mistakes(v: Values) -> list[tuple[float, str]]:
    return [(float(selection.exponential_probabilities(v.counts, v.epsilon, monotone=True)[0]),
             "You used exp(epsilon * score): the exponential mechanism divides by 2 Delta (that factor 2 pays for "
             "scores that move in opposite directions)."),
            (1.0 / 3.0, "1/3 treats the candidates alike: the weights grow with the score."),
            (1.0, "The mechanism is randomised: the best count is likely, not certain.")]


def check_counting_noise_scale(answer: Any) -> Feedback:
    """Exercise 9.2: the Laplace scale of each of k rounds of report-noisy-max over 10 counts, epsilon-DP in total.

    Each round reports the largest remaining count and removes it (the top k, one at a time); k and epsilon come
    from the student's variant.

    Parameters
    ----------
    answer : float
        The student's noise scale per round.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_counting_noise_scale(6.0))
    True
    """
    v = values("9.2")
    expected = v.rounds * selection_scale(1.0, v.epsilon, monotone=True)    # Delta / (epsilon / k)
    return check_number(
        "9.2 Noise for report-noisy-max over counts", answer, expected,
        explain=f"sequential composition gives each of the {v.rounds} rounds epsilon / {v.rounds}, and counts are "
                f"monotone (a new person raises one count and lowers none), so Lap(Delta / (epsilon / {v.rounds})) "
                "noise makes each round private at its share (Dwork & Roth, Claim 3.9).",
        hint="Two steps: how much of epsilon may each round spend, if the rounds together must be epsilon-DP? And "
             "which scale does report-noisy-max over counts need for that share (Claim 3.9 of Dwork & Roth)?",
        mistakes=_scale_mistakes(v))


def _scale_mistakes(v: Values) -> list[tuple[float, str]]:
    k, eps = v.rounds, v.epsilon
    return [(2 * k / eps, "2 Delta / epsilon' is the general scale; counts are monotone (all move the same way), so "
                          "Delta / epsilon' is enough."),
            (1 / eps, f"That spends all of epsilon in each round: {k} rounds compose sequentially."),
            (eps / k, "The scale divides the sensitivity by the round's share of epsilon."),
            (2 / eps, "That is the general scale of a single round: counts need only Delta / epsilon', and each "
                      "round gets only part of epsilon.")]


def _guarantee_epsilon(v: Values, *, monotone: bool = False, t: float | None = None, gap: float | None = None) \
        -> float:
    """The epsilon at which the guarantee promises a count above v.level with probability v.probability (ADULT)."""
    scores, _ = selection_scores("adult")
    t = -math.log(1.0 - v.probability) if t is None else t
    gap = float(scores.max()) - v.level if gap is None else gap
    return selection.exponential_utility_gap(1.0, scores.size, t, monotone=monotone) / gap   # gap(eps) = gap(1)/eps


def check_utility_guarantee(answer: Any) -> Feedback:
    """Exercise 9.3: the smallest epsilon at which the utility guarantee promises a count above c on the ADULT bins.

    Parameters
    ----------
    answer : float
        The epsilon at which ``OPT - (2 Delta / epsilon)(ln m + t)`` equals c, with m = 10, ``e^{-t} = 1 - q``
        (c and q from the student's variant).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_utility_guarantee(2 * (np.log(10) + np.log(20)) / (116 - 80)))
    True
    """
    v = values("9.3")
    return check_number(
        "9.3 The utility guarantee", answer, _guarantee_epsilon(v), digits=3,
        explain=f"OPT - (2 / epsilon)(ln 10 + t) = {v.level} with t = ln(1 / (1 - {v.probability:g})): from that "
                f"epsilon on, the chosen count is above {v.level} with probability at least {v.probability:g} "
                "(Dwork & Roth, Corollary 3.12).",
        hint="Use P(u <= OPT - (2 Delta / epsilon)(ln m + t)) <= e^(-t) with m = 10 and OPT the best count: choose t "
             "from the probability, set the bound equal to your count and solve for epsilon.",
        mistakes=_guarantee_mistakes(v))


def _guarantee_mistakes(v: Values) -> list[tuple[float, str]]:
    return [(_guarantee_epsilon(v, monotone=True), "You used Delta / epsilon: the guarantee of the exponential "
                                                   "mechanism as defined has 2 Delta / epsilon."),
            (_guarantee_epsilon(v, t=0.0), f"With t = 0 the bound fails with probability e^(-t) = 1: choose t with "
                                           f"e^(-t) = 1 - {v.probability:g}."),
            (_guarantee_epsilon(v, gap=float(v.level)), f"The bound is on the shortfall OPT - u: the gap to close is "
                                                        f"OPT - {v.level}, not {v.level}."),
            (_guarantee_epsilon(v, t=1.0), "t = 1 gives the bound on the expected shortfall; for a probability use "
                                           "e^(-t) = 1 - q.")]


def check_expected_scores(answer: Any) -> Feedback:
    """Exercise 9.4: expected scores [exponential mechanism, permute-and-flip] on the "clear winner" scores.

    Parameters
    ----------
    answer : array_like, shape (2,)
        The two exact expected scores at the student's epsilon (sensitivity 1, scale 2 Delta / epsilon).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> from dpviz import selection as S
    >>> u, _ = selection_scores("clear winner")
    >>> bool(check_expected_scores([S.exponential_probabilities(u, 0.1) @ u,
    ...                             S.permute_and_flip_probabilities(u, 0.1) @ u]))
    True
    """
    v = values("9.4")
    (em, pf), u = _winner(v.epsilon), selection_scores("clear winner")[0]
    return check_answer_array(
        "9.4 Permute-and-flip against the exponential mechanism", answer, [em @ u, pf @ u], digits=3,
        explain=f"the exponential mechanism expects {em @ u:.2f}, permute-and-flip {pf @ u:.2f}: never less "
                "(McKenna & Sheldon, NeurIPS 2020), here closer to the best score 40.",
        hint="The expected score is sum_r P(r) u_r; take P from selection.exponential_probabilities and "
             "selection.permute_and_flip_probabilities at your epsilon.",
        mistakes=_winner_mistakes(v))


def _winner(epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The exponential mechanism's and permute-and-flip's probabilities on the "clear winner" scores."""
    u, _ = selection_scores("clear winner")
    return selection.exponential_probabilities(u, epsilon), selection.permute_and_flip_probabilities(u, epsilon)


def _winner_mistakes(v: Values) -> list[tuple[list[float], str]]:
    (em, pf), u = _winner(v.epsilon), selection_scores("clear winner")[0]
    return [([float(pf @ u), float(em @ u)], "The order is [exponential mechanism, permute-and-flip]."),
            ([float(em[0]), float(pf[0])], "Those are the probabilities of choosing the winner; the exercise asks for "
                                           "the expected score sum_r P(r) u_r.")]


def _em_solution(scores: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    u = np.asarray(scores, dtype=float)
    w = np.exp((u - u.max()) / 2.0)
    return rng.choice(u.size, size=size, p=w / w.sum())


_EM_PAIRS = [(np.array([0.0, 1.0, 1.0, 1.0, 1.0]), np.array([1.0, 0.0, 0.0, 0.0, 0.0])),
             (np.array([3.0, 2.0, 0.0]), np.array([2.0, 3.0, 1.0])),
             (np.array([0.0, 0.0]), np.array([1.0, -1.0]))]


def _is_exponential_mechanism(mechanism: Any) -> str | None:
    """None if the mechanism's choices on two score vectors follow the exponential mechanism (chi-square)."""
    for u in (np.array([3.0, 2.0, 0.0, 1.0]), np.array([10.0, 9.0, 5.0, 5.0, 0.0])):
        picks = np.asarray(mechanism(u, rng=np.random.default_rng(7), size=20_000))
        if picks.shape != (20_000,) or not np.issubdtype(picks.dtype, np.integer) or picks.min() < 0 \
                or picks.max() >= u.size:
            return "it must return `size` candidate indices (integers from 0 to m - 1)."
        p = selection.exponential_probabilities(u, 1.0)
        counts = np.bincount(picks, minlength=u.size)
        stat = float(((counts - 20_000 * p) ** 2 / (20_000 * p)).sum())
        if stat > stats.chi2.ppf(1 - 1e-6, u.size - 1):
            return (f"on the scores {u.tolist()} its choices do not follow the exponential mechanism's "
                    "probabilities exp(epsilon u / 2) / sum.")
    return None


def check_exponential_mechanism(mechanism: Any) -> Feedback:
    """Exercise 9.5: write ``exponential(scores, rng, size)``, the exponential mechanism at epsilon = 1, Delta = 1.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(scores, rng=Generator, size=k)`` returning k chosen indices.

    Returns
    -------
    Feedback
        The verdict of the empirical auditor on three pairs of neighbouring score vectors, then a chi-square
        check of its choices against the exact probabilities.

    Examples
    --------
    >>> bool(check_exponential_mechanism(_em_solution))
    True
    """
    return check_private(
        "9.5 The exponential mechanism, audited", mechanism, 1.0, _EM_PAIRS, useful=_is_exponential_mechanism,
        explain="weights exp(epsilon u / (2 Delta)) give exactly the exponential mechanism, which is 1-DP.",
        hint="Weight candidate r by exp(epsilon * u_r / (2 * sensitivity)) (subtract max(u) first to avoid "
             "overflow), normalise, and draw with rng.choice(m, size=size, p=...).")


def half_noise_max(scores: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    """Report-noisy-max with Laplace noise of scale Delta / epsilon (epsilon = 1): private only for monotone scores.

    The noise of Dwork & Roth's Claim 3.9 for counting queries, used on any scores: exercise 9.6 finds
    neighbours on which it loses more than epsilon = 1.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores.
    rng : numpy.random.Generator
        Source of randomness.
    size : int
        Number of releases.

    Returns
    -------
    numpy.ndarray
        ``size`` reported indices.

    Examples
    --------
    >>> half_noise_max([5.0, 0.0], np.random.default_rng(0), 3).tolist()
    [0, 0, 0]
    """
    return np.asarray(selection.noisy_max_select(scores, 1.0, "laplace", monotone=True, rng=rng, size=size))


def _pair(answer: Any) -> tuple[np.ndarray, np.ndarray] | str:
    """The two score vectors of an answer, or why they are not a valid pair of neighbours."""
    try:
        d, d_prime = (real_array(v) for v in answer)
    except (TypeError, ValueError):
        return "expected a pair (scores, scores_prime) of two score vectors."
    if d is None or d_prime is None:
        return "expected a pair (scores, scores_prime) of two vectors of real numbers."
    if d.ndim != 1 or d.shape != d_prime.shape or not 2 <= d.size <= 10:
        return "expected two score vectors of the same length, 2 to 10 candidates each."
    if not (np.all(np.isfinite(d)) and np.all(np.isfinite(d_prime))):
        return "the scores must be finite numbers."
    if np.max(np.abs(d - d_prime)) > 1 + 1e-12:
        return ("these are not neighbours: each score may move by at most 1 (the sensitivity) when one "
                "record is added or removed.")
    return d, d_prime


def check_too_little_noise(answer: Any) -> Feedback:
    """Exercise 9.6: neighbouring score vectors on which ``half_noise_max`` provably loses more than epsilon = 1.

    Parameters
    ----------
    answer : tuple of two array_like
        ``(scores, scores_prime)``: every score moves by at most 1, in any direction.

    Returns
    -------
    Feedback
        Correct when the empirical auditor (99.9 % confidence) proves a loss above 1 on the pair.

    Examples
    --------
    >>> bool(check_too_little_noise(([0, 1, 1, 1, 1], [1, 0, 0, 0, 0])))
    True
    """
    title = "9.6 Too little noise leaks"
    hint = ("Make the candidate you watch lose on one dataset and win on the other: move its score up by 1 "
            "while every other score moves down by 1, with several other candidates.")
    if unanswered(answer):
        return Feedback(title, False, NO_ANSWER)
    pair = _pair(answer)
    if isinstance(pair, str):
        return Feedback(title, False, pair, hint)
    d, d_prime = pair
    exact = float(np.max(np.abs(selection.noisy_max_log_probabilities(d, 1.0, "laplace", monotone=True)
                                - selection.noisy_max_log_probabilities(d_prime, 1.0, "laplace", monotone=True))))
    audit = epsilon_lower_bound(half_noise_max, d, d_prime, samples=50_000, confidence=0.999, rng=9)
    if audit.epsilon_lower > 1.0:
        return Feedback(title, True, f"the auditor proves a loss of at least {audit.epsilon_lower:.3f} > 1 "
                        f"(exact loss {exact:.3f}): with scores moving apart, Laplace noise of scale Delta / epsilon "
                        "is not enough; 2 Delta / epsilon is.")
    d_diff = d_prime - d
    if np.all(d_diff >= 0) or np.all(d_diff <= 0):
        return Feedback(title, False, f"on this pair the exact loss is {exact:.3f} <= 1.",
                        "All scores move in the same direction here (monotone, like counts): then Lap(Delta / "
                        "epsilon) is enough (Dwork & Roth, Claim 3.9). Move them in opposite directions.")
    if d.size == 2:
        return Feedback(title, False, f"on this pair the exact loss is {exact:.3f}; the auditor proved only "
                        f"{audit.epsilon_lower:.3f}.", "With two candidates the loss stays near epsilon: use "
                        "more candidates, all moving against the one you watch.")
    return Feedback(title, False, f"the exact loss on this pair is {exact:.3f}; the auditor proved "
                    f"{audit.epsilon_lower:.3f}, not above 1.", hint)


def _words(mistakes: list[tuple[Any, str]], words: tuple[str, ...]) -> tuple[tuple[Any, str], ...]:
    """The typical wrong answers with a word of each one's hint, for the registry."""
    return tuple(zip((w for w, _ in mistakes), words, strict=True))


EXERCISES = (
    Exercise("9.1", "The exponential mechanism's pick", check_em_best_of_three,
             lambda v: float(selection.exponential_probabilities(v.counts, v.epsilon)[0]),
             lambda v: _words(_pick_mistakes(v), ("2 Delta", "weights", "randomised")), "easy", digits=3,
             kind="plug-in", parameters={"counts": ((30, 25, 10), (24, 21, 8), (36, 30, 20), (40, 33, 15),
                                                    (50, 42, 30), (60, 54, 35)),
                                         "epsilon": (0.2, 0.1, 0.25, 0.3, 0.4)}),
    Exercise("9.2", "Noise for report-noisy-max over counts", check_counting_noise_scale,
             lambda v: v.rounds / v.epsilon,
             lambda v: _words(_scale_mistakes(v), ("monotone", "compose", "divides", "part of epsilon")), "medium",
             kind="combine", parameters={"rounds": (3, 5, 6, 7, 8, 9), "epsilon": (0.5, 0.25, 2.0)}),
    Exercise("9.3", "The utility guarantee", check_utility_guarantee, _guarantee_epsilon,
             lambda v: _words(_guarantee_mistakes(v), ("2 Delta / epsilon", "e^(-t)", "shortfall", "expected")),
             "medium", digits=3, kind="derive",
             parameters={"level": (80, 50, 60, 70, 90, 100), "probability": (0.95, 0.98, 0.99)}),
    Exercise("9.4", "Permute-and-flip against the exponential mechanism", check_expected_scores,
             lambda v: [float(p @ selection_scores("clear winner")[0]) for p in _winner(v.epsilon)],
             lambda v: _words(_winner_mistakes(v), ("order", "probabilities")), "medium", digits=3, kind="plug-in",
             parameters={"epsilon": (0.1, 0.05, 0.08, 0.12, 0.15, 0.2, 0.3)}),
    Exercise("9.5", "The exponential mechanism, audited", check_exponential_mechanism, lambda v: _em_solution,
             lambda v: ((lambda u, rng, size: rng.choice(len(u), size=size, p=np.exp(np.asarray(u, float) - np.max(u))
                                                         / np.exp(np.asarray(u, float) - np.max(u)).sum()), "not 1-DP"),
                        (lambda u, rng, size: rng.integers(0, len(u), size=size), "do not follow"),
                        (lambda u, rng, size: np.asarray(selection.noisy_max_select(u, 1.0, "laplace", rng=rng,
                                                                                    size=size)),
                         "exponential mechanism")), "hard", kind="implement"),
    Exercise("9.6", "Too little noise leaks", check_too_little_noise,
             lambda v: ([0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0, 0.0]),
             lambda v: ((([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]), "monotone"), (([0.0, 1.0], [1.0, 0.0]), "two candidates"),
                        (([0.0, 0.0], [3.0, 0.0]), "neighbours")), "hard", kind="counterexample"),
)
