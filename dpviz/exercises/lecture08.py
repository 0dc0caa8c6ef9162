"""Exercises of lecture 08 (data-aware mechanisms: Uniform, MWEM, DAWA, and the DPBench comparison).

Neighbours are add/remove-one-record, as in every lecture: a count, a bucket total and a prefix sum each move by
at most one.  Each ``check_*`` computes its expected answer for the student's variant (:func:`values`) with dpviz
(:mod:`dpviz.data_aware`, :mod:`dpviz.experiments.comparison`) and returns a :class:`~dpviz.exercises.Feedback`.
The goals the lecture's AlgorithmComparisonExplorer checks live in :mod:`dpviz.exercises.lecture08_goals`
(re-exported here).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from typing import Any

import numpy as np
from scipy import optimize

from dpviz import data_aware, matrix_mechanism, mechanisms, strategies, workloads
from dpviz.exercises.checks import NO_ANSWER, check_array, check_function, check_number, unanswered
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture08_goals import uniform_wins_goal, winner_changes_goal
from dpviz.exercises.registry import Exercise
from dpviz.exercises.variants import Values, start, values
from dpviz.experiments import comparison

__all__ = ["start", "values", "check_mwem_rounds", "check_partition_cost", "check_uniform_error",
           "check_mwem_first_choice", "check_dawa_ranking", "check_scale_for_epsilon", "uniform_wins_goal",
           "winner_changes_goal", "EXERCISES"]


@functools.lru_cache(maxsize=64)
def _mwem_epsilons(epsilon: float, rounds: int, public_total: bool = False) -> tuple[float, float]:
    """(eps_s, eps_m) of one MWEM round, as dpviz's MWEM splits epsilon (5 % on the total unless it is public)."""
    res = data_aware.mwem([1.0, 2.0], (np.array([0]), np.array([2])), epsilon, rounds=rounds,
                          total=3.0 if public_total else None, rng=0)
    return res.epsilon_select, res.epsilon_measure


def _laplace_sd(epsilon: float) -> float:
    """Standard deviation of Laplace noise calibrated to sensitivity 1 and ``epsilon``."""
    return math.sqrt(mechanisms.laplace_variance(1.0, epsilon))


def _rounds_for(epsilon: float, sd_max: float, share: float = 0.95, split: float = 2.0,
                sd: Any = None) -> int:
    """The largest T at which a round's measurement noise has standard deviation <= sd_max (0 if none)."""
    sd = sd or _laplace_sd
    t = 0
    while sd(share * epsilon / (split * (t + 1))) <= sd_max:
        t += 1
    return t


def check_mwem_rounds(answer: Any) -> Feedback:
    """Exercise 8.1: the largest number of MWEM rounds whose measurement noise has SD at most s (epsilon, s: yours).

    Parameters
    ----------
    answer : int
        The student's number of rounds T.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_mwem_rounds(8))
    True
    """
    v = values("8.1")
    t = _rounds_for(v.epsilon, v.sd_max)
    return check_number(
        "8.1 How many rounds MWEM can afford", answer, t,
        explain=f"a round measures with eps_m = 0.95 x {v.epsilon:g} / (2 T), and Lap(1/eps_m) has standard deviation "
                f"sqrt(2) / eps_m = 2 sqrt(2) T / (0.95 x {v.epsilon:g}); that is at most {v.sd_max:g} up to T = {t}.",
        hint="Write the measurement budget eps_m as a function of T (the total's 5 % first, then the rounds, then the "
             "split within a round), then the standard deviation of Lap(1/eps_m), sqrt(2) / eps_m; solve for T and "
             "round down.",
        mistakes=[(w, why) for w, why, _ in _rounds_mistakes(v)])


def _rounds_mistakes(v: Values) -> list[tuple[float, str, str]]:
    """(wrong T, hint, a word of the hint), leaving out any equal to the right T or to an earlier mistake."""
    e, s = v.epsilon, v.sd_max
    right = _rounds_for(e, s)
    found = [(_rounds_for(e, s, sd=lambda eps: 1 / eps), "That bounds the scale b = 1 / eps_m; the standard "
              "deviation of Lap(b) is sqrt(2) b.", "sqrt(2) b"),
             (_rounds_for(e, s, share=1.0), "That forgets the 5 % spent on the noisy total before the rounds.", "5 %"),
             (_rounds_for(e, s, split=1.0), "That gives a round's whole budget to measuring; the round splits it "
              "between selecting and measuring.", "splits"),
             (right + 1, "One round more makes the noise's standard deviation exceed s: round down.", "round down")]
    out: list[tuple[float, str, str]] = []
    for w, why, word in found:
        if w != right and all(w != o for o, _, _ in out):
            out.append((float(w), why, word))
    return out


def _cost(v: Values) -> tuple[float, float, int]:
    """(total deviation, squared deviation, number of buckets) of exercise 8.2's partition."""
    x = np.asarray(v.x, dtype=float)
    part = data_aware.Partition(np.asarray(v.starts), x.size)
    squared = sum(float(np.sum((b - b.mean()) ** 2)) for b in np.split(x, np.asarray(v.starts)[1:]))
    return float(data_aware.bucket_deviation(x, part).sum()), squared, part.n_buckets


def check_partition_cost(answer: Any) -> Feedback:
    """Exercise 8.2: DAWA's cost ``sum_B dev(B) + lambda |P|`` of one partition of a small histogram.

    Parameters
    ----------
    answer : float
        The student's cost of the partition (bucket starts ``starts``) of ``x`` with ``lambda = price``, the
        values of the student's variant.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_partition_cost(14))
    True
    """
    v = values("8.2")
    dev, _, buckets = _cost(v)
    return check_number(
        "8.2 The cost of a partition", answer, dev + v.price * buckets, digits=3,
        explain=f"the buckets' L1 deviations from their means add up to {dev:g}, and {buckets} buckets cost "
                f"{buckets} x {v.price:g}.",
        hint="For each bucket add up |x_i - bucket mean| (data_aware.bucket_deviation), then add lambda for every "
             "bucket.",
        mistakes=[(w, why) for w, why, _ in _cost_mistakes(v)])


def _cost_mistakes(v: Values) -> list[tuple[float, str, str]]:
    """(wrong cost, hint, a word of the hint), leaving out any that equals the right cost or an earlier mistake."""
    dev, squared, buckets = _cost(v)
    found = [(dev, "That is the deviation alone: each bucket also costs the price lambda.", "price"),
             (v.price * buckets, "That is the price of the buckets alone: add each bucket's deviation from its mean.",
              "deviation"),
             (dev + v.price, "lambda is paid for every bucket, not once.", "every bucket"),
             (squared + v.price * buckets, "DAWA's deviation is the L1 distance |x_i - mean|, not the squared one.",
              "squared")]
    out: list[tuple[float, str, str]] = []
    for wrong, why, word in found:
        if not math.isclose(wrong, dev + v.price * buckets) and all(not math.isclose(wrong, w) for w, _, _ in out):
            out.append((float(wrong), why, word))
    return out


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


def _first_choice(v: Values, estimated_total: bool = False, halve: bool = True) -> np.ndarray:
    """MWEM's first-round selection probabilities for exercise 8.4's variant (total N public unless estimated)."""
    x = np.asarray(v.x, dtype=float)
    eps_s = _mwem_epsilons(v.epsilon, v.rounds, public_total=not estimated_total)[0]
    return data_aware.selection_probabilities(x, workloads.prefix(x.size), eps_s if halve else 2 * eps_s,
                                              np.full(x.size, x.sum() / x.size))


def _scores(v: Values) -> np.ndarray:
    x = np.asarray(v.x, dtype=float)
    return np.abs(np.cumsum(np.full(x.size, x.sum() / x.size)) - np.cumsum(x))


def _worst(v: Values) -> int:
    """The index of the prefix the uniform start answers worst (unique in every variant)."""
    return int(np.argmax(_scores(v)))


def check_mwem_first_choice(answer: Any) -> Feedback:
    """Exercise 8.4: the probability that MWEM's first round selects the prefix its uniform start answers worst.

    Parameters
    ----------
    answer : float
        The student's probability, for the variant's histogram ``x`` (its total N treated as public), the 8
        prefixes, ``epsilon`` and T = ``rounds``.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> s = np.array([8, 4, 4, 12, 24, 16, 8, 0])
    >>> bool(check_mwem_first_choice(np.exp(0.25 * 24 / 2) / np.exp(0.25 * s / 2).sum()))
    True
    """
    v = values("8.4")
    scores = ", ".join(f"{s:g}" for s in _scores(v))
    eps_s = 0.5 * v.epsilon / v.rounds
    return check_number(
        "8.4 MWEM's first choice", answer, float(_first_choice(v)[_worst(v)]), digits=3,
        explain=f"A_0 = N / 8 per cell, so the scores |q(A_0) - q(x)| of the prefixes are {scores}; with eps_s = "
                f"{v.epsilon:g} / {v.rounds} / 2 = {eps_s:g} the weights are exp({eps_s:g} x score / 2), and "
                f"[0, {_worst(v) + 1}), the worst answered, gets its weight over their sum.",
        hint="Start from A_0 = N/n in every cell, score each prefix by |q(A_0) - q(x)|, weigh it by "
             "exp(eps_s x score / 2) with eps_s = the selection budget of one round, and normalise.",
        mistakes=[(w, why) for w, why, _ in _first_choice_mistakes(v)])


def _first_choice_mistakes(v: Values) -> list[tuple[float, str, str]]:
    """(wrong probability, hint, a word of the hint), leaving out any that is the answer at 3 figures."""
    k = _worst(v)
    right = float(_first_choice(v)[k])
    scores = _scores(v)
    worst = scores == scores.max()
    found = [(float(_first_choice(v, halve=False)[k]), "That weighs by exp(2 eps_s x score / 2): a round's whole "
              "budget epsilon / T goes to selecting, or the score is not halved. The round spends half of it on "
              "selecting, and the exponential mechanism uses exp(eps_s x score / 2) (the score's sensitivity is 1).",
              "score / 2"),
             (1 / scores.size, "The exponential mechanism is not uniform: worse-answered queries are likelier.",
              "not uniform"),
             (float(worst[k]) / worst.sum(), "MWEM does not pick the worst query for sure (that would not be "
              "private): each query keeps a positive probability.", "positive probability"),
             (float(_first_choice(v, estimated_total=True)[k]), "That spends 5 % of epsilon on estimating N, as "
              "MWEM must under add/remove neighbours; this exercise treats N as public (replace-one neighbours), so "
              "each round gets epsilon / T in full.", "replace-one")]
    out: list[tuple[float, str, str]] = []
    for w, why, word in found:
        if abs(w - right) > 1e-3 * right and all(abs(w - o) > 1e-3 * max(o, 1e-12) for o, _, _ in out):
            out.append((w, why, word))
    return out


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


def _dawa_ranking() -> list[str]:
    """The shapes from the one that favours DAWA over Identity most to the least."""
    return [comparison.SHAPES[i] for i in np.argsort(_dawa_over_identity())]


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
    best_first = _dawa_ranking()
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
    """Exercise 8.6: the epsilon at which Identity on s' records matches its error at epsilon on s records.

    epsilon, s and s' are ``epsilon``, ``records`` and ``new_records`` of the student's variant.

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
    v = values("8.6")
    ratio = v.new_records / v.records
    return check_number(
        "8.6 Scale acts like epsilon", answer, _matching_epsilon(v.epsilon, v.records, v.new_records), rtol=1e-6,
        explain=f"Identity's scaled error is sqrt((n + 1)/n) / (epsilon s): only epsilon x s matters, so {ratio:g} "
                f"times the records buy the same error at 1/{ratio:g} of the epsilon.",
        hint="Write the scaled error of section 1 for both scales and set them equal.",
        mistakes=_scale_mistakes(v))


def _scale_mistakes(v: Values) -> list[tuple[float, str]]:
    ratio = v.new_records / v.records
    return [(v.epsilon * ratio, "More records make the *relative* error smaller, so less epsilon is needed, not "
                                "more."),
            (v.epsilon / math.sqrt(ratio), "The error falls like 1 / (epsilon s), not like its square root.")]


def _solution_uniform_rms(n: int, epsilon: float, scale: float) -> float:
    variance = 2 / epsilon**2                                  # Lap(1/epsilon) on the total
    k = np.arange(1, n + 1)
    return float(np.sqrt(np.sum((k / n) ** 2 * variance)) / (n * scale))


#: Exercise 8.4's histograms: 8 cells, each total a multiple of 8 (A_0 = N / 8 is a whole number), one prefix
#: answered worst by A_0.
_CHOICE_X = ((0, 20, 0, 0, 44, 0, 0, 0), (30, 0, 0, 0, 0, 10, 0, 0), (0, 0, 0, 60, 0, 20, 0, 16),
             (0, 40, 0, 0, 0, 0, 0, 40), (0, 0, 0, 0, 60, 4, 0, 0), (0, 10, 0, 30, 0, 0, 0, 0),
             (40, 0, 0, 0, 0, 0, 0, 8), (0, 0, 30, 0, 0, 0, 0, 50))
#: Exercise 8.2's histograms and partitions (bucket starts).
_COST_X = ((4, 4, 4, 4, 0, 0, 9, 1), (2, 2, 6, 6, 0, 0, 5, 3), (1, 1, 1, 1, 8, 0, 3, 3), (0, 0, 7, 7, 7, 1, 2, 6),
           (5, 5, 1, 3, 3, 3, 0, 8), (3, 3, 3, 3, 6, 2, 2, 2))
_COST_STARTS = ((0, 4, 6), (0, 2, 4, 6), (0, 4), (0, 2, 6), (0, 6))

EXERCISES = (
    Exercise("8.1", "How many rounds MWEM can afford", check_mwem_rounds,
             lambda v: float(_rounds_for(v.epsilon, v.sd_max)),
             lambda v: tuple((w, word) for w, _, word in _rounds_mistakes(v)), "medium", kind="derive",
             parameters={"epsilon": (1.0, 0.5, 0.3, 2.0, 0.8, 0.25), "sd_max": (25, 30, 40, 50, 60, 80, 100)}),
    Exercise("8.2", "The cost of a partition", check_partition_cost, lambda v: _cost(v)[0] + v.price * _cost(v)[2],
             lambda v: tuple((w, word) for w, _, word in _cost_mistakes(v)), "easy", digits=3, kind="plug-in",
             parameters={"x": _COST_X, "starts": _COST_STARTS, "price": (2.0, 1.0, 3.0, 0.5, 4.0)}),
    Exercise("8.3", "Uniform's error on uniform data", check_uniform_error, lambda v: _solution_uniform_rms,
             lambda v: ((lambda n, e, s: math.sqrt((n + 1) / n) / (e * s), "k/n"),
                        (lambda n, e, s: _solution_uniform_rms(n, e, s) / math.sqrt(2), "2 / epsilon^2")),
             "medium", kind="derive"),
    Exercise("8.4", "MWEM's first choice", check_mwem_first_choice, lambda v: float(_first_choice(v)[_worst(v)]),
             lambda v: tuple((w, word) for w, _, word in _first_choice_mistakes(v)), "hard", digits=3,
             kind="combine", parameters={"x": _CHOICE_X, "epsilon": (1.0, 2.0, 1.5), "rounds": (2, 3)}),
    Exercise("8.5", "Which data favour DAWA", check_dawa_ranking, lambda v: _dawa_ranking(),
             lambda v: ((_dawa_ranking()[::-1], "smallest ratio"),
                        ([_dawa_ranking()[i] for i in (0, 3, 2, 1, 4)], "sort the shapes")),
             "medium", kind="plug-in"),
    Exercise("8.6", "Scale acts like epsilon", check_scale_for_epsilon,
             lambda v: v.epsilon * v.records / v.new_records,
             lambda v: tuple(zip((w for w, _ in _scale_mistakes(v)), ("less epsilon", "square root"), strict=True)),
             "easy", kind="plug-in",
             parameters={"epsilon": (1.0, 0.5, 2.0, 0.1, 0.2), "records": (1_000, 2_000, 5_000, 500),
                         "new_records": (100_000, 50_000, 20_000, 200_000, 10_000)}),
)
