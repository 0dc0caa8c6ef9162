"""Exercises of lecture 02 (composition); the goals its three explorers check are re-exported from
:mod:`dpviz.exercises.lecture02_goals`.

Neighbours are add/remove-one-record unless an exercise says otherwise.  Each ``check_*`` computes its expected
answer with dpviz (the accountant, the composition theorems, the zCDP conversion, the auditor) and returns a
:class:`~dpviz.exercises.Feedback`; none raises on a student's answer.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpviz import composition, mechanisms
from dpviz.accountant import PrivacyAccountant
from dpviz.audit import check_neighbours, epsilon_lower_bound
from dpviz.exercises.checks import NO_ANSWER, check_function, check_number, real_array, unanswered
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture02_goals import amplification_goal, crossover_goal, gaussian_budget_goal, refusal_goal
from dpviz.exercises.registry import Exercise
from dpviz.exercises.variants import Values, start, values

__all__ = ["start", "values", "check_plan_total", "check_histogram_parallel", "check_subsampled_advanced",
           "check_gaussian_zcdp", "check_overlapping_plan", "check_total_loss_variance", "check_break_data_split",
           "refusal_goal", "amplification_goal", "crossover_goal", "gaussian_budget_goal", "EXERCISES"]


def _plan_total(v: Values) -> float:
    """Exercise 2.1's plan, charged to an accountant: count, sum, the count again; the rest is free."""
    acc = PrivacyAccountant(10.0)
    acc.spend(v.count_epsilon, label="noisy count")
    acc.spend(v.sum_epsilon, label="noisy sum of clipped ages")
    acc.spend(v.count_epsilon, label="the count again, fresh noise")
    return round(float(acc.spent.epsilon), 12)   # the mean and the average of the two counts are post-processing


def check_plan_total(answer: Any) -> Feedback:
    """Exercise 2.1: the total epsilon of a plan of releases on one table (basic composition, post-processing).

    Parameters
    ----------
    answer : float
        The student's total epsilon.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_plan_total(0.5))
    True
    """
    v = values("2.1")
    return check_number(
        "2.1 The total of a plan", answer, _plan_total(v),
        explain=f"three releases touch the data ({v.count_epsilon:g} + {v.sum_epsilon:g} + {v.count_epsilon:g}, "
                "sequential composition); the mean and the average of the two counts are computed from released "
                "numbers only (post-processing, free).",
        hint="List the steps that look at the data and add their epsilons; a step that only combines released "
             "numbers costs nothing.",
        mistakes=_plan_mistakes(v))


def _plan_mistakes(v: Values) -> list[tuple[float, str]]:
    c, s = v.count_epsilon, v.sum_epsilon
    return [(max(c, s), "The maximum is parallel composition, which needs disjoint data; all three releases read "
                        "the same table, so their epsilons add."),
            (c + s, "The second count is a new release with fresh noise: it costs its epsilon again."),
            (3 * c + 2 * s, "The mean is computed from the two released numbers: post-processing costs nothing.")]


def _histogram_total(v: Values, neighbours: str = "add/remove") -> float:
    """Exercise 2.2: the bins (one part each) and the total (every record), as parts of one plan."""
    eps = np.append(v.bins, v.total_epsilon)
    member = np.hstack([np.eye(len(v.bins)), np.ones((len(v.bins), 1))])
    return round(composition.partition_epsilon(eps, member, neighbours), 12)


def check_histogram_parallel(answer: Any) -> Feedback:
    """Exercise 2.2: the epsilon of a histogram of disjoint bins (each its own epsilon) released with its total.

    Parameters
    ----------
    answer : float
        The student's epsilon of the whole release (add/remove neighbours).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_histogram_parallel(1.2))
    True
    """
    v = values("2.2")
    return check_number(
        "2.2 A histogram and its total", answer, _histogram_total(v),
        explain="the bins are fixed in advance and one person falls in exactly one, so adding or removing them "
                "changes one bin (parallel composition: the largest bin's epsilon) and the total, a second "
                f"release on the same person (sequential composition: + {v.total_epsilon:g}).",
        hint="Ask which released numbers one added or removed person changes: how many bins, and the total?",
        mistakes=_histogram_mistakes(v))


def _histogram_mistakes(v: Values) -> list[tuple[float, str]]:
    bins, t = np.asarray(v.bins), v.total_epsilon
    return [(float(bins.sum()) + t, "The bins are disjoint: one person changes one bin, so the bins' epsilons do "
                                    "not add (that is sequential composition)."),
            (float(bins.max()), "That is the histogram alone; the total is counted with its own noise, and every "
                                "person is in it too."),
            (_histogram_total(v, "replace-one"), "That is the cost under replace-one neighbours (a person moves "
                                                  "from one bin to another and the total stays); the lectures use "
                                                  "add/remove."),
            (float(bins.mean()) + t, "The average bin does not protect the person in the bin with the largest "
                                     "epsilon.")]


def _amplified_total(v: Values, per_release: float | None = None, log: Any = math.log) -> float:
    """Exercise 2.3: advanced composition of k releases, each ``per_release``-DP (default: amplified), at 1e-6."""
    e = composition.amplified_epsilon(v.epsilon, v.rate) if per_release is None else per_release
    return math.sqrt(2 * v.releases * log(1 / ADVANCED_DELTA)) * e + v.releases * e * math.expm1(e)


#: Exercise 2.3: the delta' of advanced composition (the same for every variant, as in section 9).
ADVANCED_DELTA = 1e-6


def check_subsampled_advanced(answer: Any) -> Feedback:
    """Exercise 2.3: k Laplace counts, each on a secret Poisson sample, composed by advanced composition.

    Parameters
    ----------
    answer : float
        The student's total epsilon at delta' = 1e-6 (3 significant figures).

    Returns
    -------
    Feedback
        The verdict (the explanation compares it with basic composition's total).

    Examples
    --------
    >>> e = np.log(1 + 0.01 * (np.e - 1))
    >>> bool(check_subsampled_advanced(np.sqrt(2000 * np.log(1e6)) * e + 1000 * e * np.expm1(e)))
    True
    """
    v = values("2.3")
    amplified = composition.amplified_epsilon(v.epsilon, v.rate)
    total = composition.advanced_composition(amplified, v.releases, ADVANCED_DELTA)[0]
    return check_number(
        "2.3 Advanced composition of subsampled releases", answer, total,
        explain=f"each release is ln(1 + p (e^eps - 1)) = {amplified:.4g}-DP on the data (amplification by "
                f"subsampling), and advanced composition of {v.releases} of them gives sqrt(2k ln(1/delta')) eps' + "
                f"k eps' (e^eps' - 1), against {v.releases * amplified:.3g} by basic composition.",
        hint="Two steps: what one release costs on the data when its sample is secret (section 7), then advanced "
             "composition of k such releases (section 9, with the natural logarithm).",
        mistakes=_subsampled_mistakes(v), digits=3)


def _subsampled_mistakes(v: Values) -> list[tuple[float, str]]:
    e = composition.amplified_epsilon(v.epsilon, v.rate)
    return [(_amplified_total(v, v.epsilon), "You composed the releases at their epsilon on the sample; on the data "
                                              "each costs less, ln(1 + p (e^eps - 1)): amplification by subsampling."),
            (v.releases * e, "That is basic composition (k eps'); advanced composition grows like sqrt(k)."),
            (_amplified_total(v, 2 * v.rate * v.epsilon), "2 p eps is the shorthand of section 7, not the exact "
                                                          "amplified epsilon ln(1 + p (e^eps - 1))."),
            (_amplified_total(v, v.rate * v.epsilon), "p eps is only the small-eps approximation of the amplified "
                                                      "epsilon ln(1 + p (e^eps - 1))."),
            (math.sqrt(2 * v.releases * math.log(1 / ADVANCED_DELTA)) * e, "You have the square-root term only: add "
                                                                           "the second term k eps' (e^eps' - 1)."),
            (_amplified_total(v, log=math.log10), "ln is the natural logarithm: ln(10^6) = 13.8, not 6.")]


def check_gaussian_zcdp(answer: Any) -> Feedback:
    """Exercise 2.4: k Gaussian releases (sigma, L2 sensitivity 1) through zCDP to (eps, delta), from your variant.

    Parameters
    ----------
    answer : float
        The student's epsilon at delta by ``eps = rho + 2 sqrt(rho ln(1/delta))``.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_gaussian_zcdp(0.25 + 2 * np.sqrt(0.25 * np.log(1e5))))
    True
    """
    v = values("2.4")
    rho1 = composition.gaussian_rho(v.sigma)
    rho = v.releases * rho1
    exact = mechanisms.gaussian_epsilon(v.sigma / math.sqrt(v.releases), 1.0, v.delta)
    return check_number(
        "2.4 zCDP of Gaussian releases", answer, composition.zcdp_epsilon(rho, v.delta),
        explain=f"each release is rho = 1/(2 sigma^2) = {rho1:g}-zCDP, {v.releases} of them {rho:g}-zCDP, and "
                f"rho + 2 sqrt(rho ln(1/delta)) converts it (the exact value is {exact:.3f}).",
        hint="First rho of one release, Delta^2 / (2 sigma^2); rho adds over releases; then convert with "
             "rho + 2 sqrt(rho ln(1/delta)).",
        mistakes=_zcdp_mistakes(v), digits=3)


def _zcdp_mistakes(v: Values) -> list[tuple[float, str]]:
    rho1 = composition.gaussian_rho(v.sigma)
    rho = v.releases * rho1
    bs = lambda r: r + 2 * math.sqrt(r * math.log(1 / v.delta))  # noqa: E731 - the conversion, for the mistakes
    return [(bs(rho1), f"That is one release: zCDP's rho adds up over the {v.releases}."),
            (bs(2 * rho), "rho is Delta^2 / (2 sigma^2): you dropped the factor 2."),
            (rho + 2 * math.sqrt(rho * math.log10(1 / v.delta)), "ln is the natural logarithm.")]


def _overlap_membership(v: Values) -> np.ndarray:
    ages = np.arange(0, 120)
    return np.array([[lo <= a < hi for lo, hi in v.bands] for a in ages], dtype=float)


def check_overlapping_plan(answer: Any) -> Feedback:
    """Exercise 2.5: the true epsilon of counting three overlapping age bands, claimed as parallel composition.

    Parameters
    ----------
    answer : float
        The student's epsilon of the plan under add/remove neighbours.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_overlapping_plan(0.9))
    True
    """
    v = values("2.5")
    (_, hi1), (lo2, hi2), (lo3, _) = v.bands
    e1, e2, e3 = v.epsilons
    true = round(composition.partition_epsilon(v.epsilons, _overlap_membership(v)), 12)
    return check_number(
        "2.5 Overlapping parts", answer, true,
        explain=f"a person aged {lo2}-{hi1 - 1} is in the first two bands and changes both counts: {e1:g} + {e2:g}; "
                f"aged {lo3}-{hi2 - 1}, the last two: {e2:g} + {e3:g}; the plan costs the worst person's sum.",
        hint="For each age, list the bands that contain it and add their epsilons; the plan costs the largest sum.",
        mistakes=_overlap_mistakes(v))


def _overlap_mistakes(v: Values) -> list[tuple[float, str]]:
    e1, e2, e3 = v.epsilons
    return [(max(v.epsilons), "The maximum holds only for disjoint parts; these bands overlap."),
            (e1 + e2 + e3, "No age is in all three bands: find the worst age, not the sum of all."),
            (min(e1 + e2, e2 + e3), "That is the cheaper of the two overlaps; look at the other overlap too.")]


def _second_moment(e: float) -> float:
    """E[L^2] of one Laplace release's privacy loss at epsilon ``e`` (two atoms and the integral between)."""
    return e**2 - 2 * e + 4 - 2 * math.exp(-e) * (e + 2)


def _loss_variance(epsilon: float, k: float) -> float:
    return float(k) * composition.laplace_loss_moments(epsilon)[1]


def check_total_loss_variance(fn: Any) -> Feedback:
    """Exercise 2.6: write ``total_loss_variance(epsilon, k)``, the variance of the total loss of k Laplace counts.

    Parameters
    ----------
    fn : callable
        The student's function of (epsilon, k).

    Returns
    -------
    Feedback
        The verdict on 20 seeded random (epsilon, k) pairs, with the hint of a typical mistake when it matches one.

    Examples
    --------
    >>> bool(check_total_loss_variance(lambda e, k: k * (e**2 - 2 * e + 4 - 2 * np.exp(-e) * (e + 2)
    ...                                                   - (e + np.exp(-e) - 1) ** 2)))
    True
    """
    gen = np.random.default_rng(202)
    cases = [(float(e), int(k)) for e, k in zip(gen.uniform(0.05, 3.0, 20), gen.integers(1, 500, 20), strict=True)]
    return check_function(
        "2.6 The variance of the privacy loss", fn, _loss_variance, cases, rtol=1e-6,
        mistakes=[
            (lambda e, k: k * e**2, "eps^2 is the small-eps limit of the variance; integrate the loss law exactly."),
            (lambda e, k: k * _second_moment(e), "That is k E[L^2]: subtract the squared mean, "
                                                 "E[L]^2 = (eps + e^-eps - 1)^2."),
            (lambda e, k: k**2 * (_second_moment(e) - (e + math.expm1(-e)) ** 2), "The k losses are independent: their "
                                                                            "variances add (k times), not k^2."),
            (lambda e, k: k * 2 / e**2, "2 / eps^2 is the variance of the Laplace noise, not of the privacy loss.")],
        explain="E[L] = eps + e^-eps - 1 and E[L^2] = eps^2 - 2 eps + 4 - 2 e^-eps (eps + 2) (two atoms plus the "
                "integral of l^2 e^((l - eps)/2) / 4); the variance of one loss is their difference, and the k "
                "independent losses add their variances.",
        hint="Compute E[L^2] from the law of one loss (atoms and density), subtract E[L]^2, multiply by k; check the "
             "result against the variance of composition.laplace_loss_samples(eps, k, ...).")


#: Exercise 2.7: the epsilon ``split_at_mean_counts`` claims, the loss the auditor must prove (3 x the claim),
#: and the auditor's confidence and samples.
BREAK_CLAIM, BREAK_TARGET, BREAK_CONFIDENCE, BREAK_SAMPLES = 0.5, 1.5, 0.999, 100_000


def _split_mechanism(values: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    return composition.split_at_mean_counts(values, BREAK_CLAIM, rng=rng, size=size)


def _neighbour_problem(answer: tuple[Any, Any] | list[Any]) -> str | None:
    """Why ``answer`` is not a pair of add/remove neighbours of flat, non-empty lists of numbers (None if it is)."""
    try:
        d, d_prime = (real_array(x) for x in answer)
    except (TypeError, ValueError) as exc:
        return str(exc)
    if d is None or d_prime is None:
        return "each dataset must be a list of real numbers"
    if d.ndim != 1 or d_prime.ndim != 1 or min(d.size, d_prime.size) == 0:
        return "each dataset must be a non-empty flat list of numbers, one value per record"
    try:
        check_neighbours(d, d_prime, "records")
    except (TypeError, ValueError) as exc:
        return str(exc)
    return None


def check_break_data_split(answer: Any) -> Feedback:
    """Exercise 2.7: neighbours D, D' on which the auditor proves ``split_at_mean_counts`` (claims 0.5) leaks >= 1.5.

    Parameters
    ----------
    answer : tuple of (list of float, list of float)
        ``(D, D_prime)``: two datasets of values, D' = D with one record added (or removed).

    Returns
    -------
    Feedback
        The verdict of the empirical auditor (99.9 % confidence, its default event search): correct when its lower
        bound exceeds 3 x the claimed epsilon.

    Examples
    --------
    >>> d = [0, 0, 0, 0, 0, 10, 10, 10, 10, 10]
    >>> bool(check_break_data_split((d, d + [1000])))
    True
    """
    exercise = "2.7 Break a data-chosen partition"
    hint = ("Pick D so that one extra record moves the mean past several others, e.g. a far outlier: every record "
            "that crosses the mean changes both counts.")
    if unanswered(answer):
        return Feedback(exercise, False, NO_ANSWER)
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return Feedback(exercise, False, f"expected a pair (D, D_prime) of lists of numbers, got {answer!r}.", hint)
    problem = _neighbour_problem(answer)
    if problem is not None:
        return Feedback(exercise, False, f"D and D_prime must be neighbours: one list of numbers is the other plus "
                        f"one record ({problem}).", "Take D, then D_prime = D plus one more value.")
    d, d_prime = (np.asarray(x, dtype=float) for x in answer)
    res = epsilon_lower_bound(_split_mechanism, d, d_prime, samples=BREAK_SAMPLES, confidence=BREAK_CONFIDENCE,
                              rng=7)
    moved = np.abs(composition.split_at_mean(d) - composition.split_at_mean(d_prime))
    if res.epsilon_lower > BREAK_TARGET:
        return Feedback(exercise, True, f"the auditor proves epsilon >= {res.epsilon_lower:.3f} > {BREAK_TARGET} = "
                        f"3 x the claimed {BREAK_CLAIM} (99.9 % confidence): your extra record moved the counts by "
                        f"{moved[0]:g} and {moved[1]:g}, so the split chosen from the data costs far more than "
                        "parallel composition's claim.")
    if moved.sum() <= 1:
        return Feedback(exercise, False, f"the auditor's lower bound is {res.epsilon_lower:.3f}: your extra record "
                        f"moved no other record across the mean (the counts changed by {moved[0]:g} and "
                        f"{moved[1]:g}).", hint)
    return Feedback(exercise, False, f"the counts changed by {moved[0]:g} and {moved[1]:g} and the auditor proves "
                    f"epsilon >= {res.epsilon_lower:.3f}, more than the claim but not {BREAK_TARGET}: one count must "
                    "move by more than 3, so make more records cross the mean.", hint)


def _break_solution() -> tuple[list[float], list[float]]:
    d = [0.0] * 5 + [10.0] * 5
    return d, [*d, 1000.0]


EXERCISES = (
    Exercise("2.1", "The total of a plan", check_plan_total, _plan_total,
             lambda v: tuple(zip((w for w, _ in _plan_mistakes(v)), ("disjoint", "fresh noise", "post-processing"),
                                 strict=True)), "easy", kind="combine",
             parameters={"count_epsilon": (0.1, 0.05, 0.2, 0.15, 0.25),
                         "sum_epsilon": (0.3, 0.25, 0.4, 0.5, 0.35, 0.6)}),
    Exercise("2.2", "A histogram and its total", check_histogram_parallel, _histogram_total,
             lambda v: tuple(zip((w for w, _ in _histogram_mistakes(v)), ("disjoint", "the total", "replace-one",
                                                                           "largest epsilon"), strict=True)),
             "easy", kind="combine",
             parameters={"bins": ((0.5, 0.5, 1.0, 0.5, 0.5), (0.4, 0.8, 0.4, 0.4, 0.4), (0.4, 0.4, 0.4, 0.7, 0.4),
                                  (0.5, 0.5, 0.5, 0.5, 0.9), (0.6, 0.6, 1.2, 0.6, 0.6), (1.0, 0.5, 0.5, 0.5, 0.5)),
                         "total_epsilon": (0.2, 0.1, 0.25, 0.3, 0.15, 0.35)}),
    Exercise("2.3", "Advanced composition of subsampled releases", check_subsampled_advanced,
             lambda v: composition.advanced_composition(composition.amplified_epsilon(v.epsilon, v.rate), v.releases,
                                                        ADVANCED_DELTA)[0],
             lambda v: tuple(zip((w for w, _ in _subsampled_mistakes(v)), ("amplification", "basic", "shorthand",
                                                                            "approximation", "second term", "natural"),
                                 strict=True)), "medium", digits=3, kind="combine",
             parameters={"epsilon": (1.0, 0.5, 1.5), "rate": (0.01, 0.005, 0.02),
                         "releases": (1000, 200, 500, 2000, 5000)}),
    Exercise("2.4", "zCDP of Gaussian releases", check_gaussian_zcdp,
             lambda v: composition.zcdp_epsilon(v.releases * composition.gaussian_rho(v.sigma), v.delta),
             lambda v: tuple(zip((w for w, _ in _zcdp_mistakes(v)), ("adds up", "factor 2", "natural"), strict=True)),
             "medium", digits=3, kind="plug-in",
             parameters={"releases": (50, 20, 30, 40, 80, 100), "sigma": (10.0, 5.0, 8.0, 12.0, 15.0, 20.0),
                         "delta": (1e-5, 1e-6, 1e-7)}),
    Exercise("2.5", "Overlapping parts", check_overlapping_plan,
             lambda v: round(composition.partition_epsilon(v.epsilons, _overlap_membership(v)), 12),
             lambda v: tuple(zip((w for w, _ in _overlap_mistakes(v)), ("disjoint", "worst age", "other overlap"),
                                 strict=True)), "medium", kind="combine",
             parameters={"bands": (((0, 18), (16, 65), (60, 120)), ((0, 20), (15, 50), (45, 120)),
                                   ((0, 30), (25, 70), (65, 120)), ((0, 25), (18, 60), (55, 120)),
                                   ((0, 40), (35, 70), (65, 120))),
                         "epsilons": ((0.2, 0.5, 0.4), (0.3, 0.4, 0.6), (0.5, 0.2, 0.4), (0.4, 0.3, 0.5),
                                      (0.6, 0.5, 0.2), (0.2, 0.4, 0.8), (0.5, 0.1, 0.3), (0.35, 0.6, 0.7))}),
    Exercise("2.6", "The variance of the privacy loss", check_total_loss_variance,
             lambda v: lambda e, k: k * (_second_moment(e) - (e + math.exp(-e) - 1) ** 2),
             lambda v: ((lambda e, k: k * e**2, "small-eps"), (lambda e, k: k * _second_moment(e), "squared mean"),
                        (lambda e, k: k * k * (_second_moment(e) - (e + math.exp(-e) - 1) ** 2), "variances add"),
                        (lambda e, k: 2 * k / e**2, "laplace noise")), "hard", kind="derive"),
    Exercise("2.7", "Break a data-chosen partition", check_break_data_split, lambda v: _break_solution(),
             lambda v: ((([0.0, 0.0, 0.0, 10.0, 10.0, 10.0], [0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 5.0]), "moved no other"),
                        (([0.0, 0.0, 0.0, 10.0, 10.0, 10.0], [0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 100.0]), "more records"),
                        (([0.0, 0.0, 0.0, 10.0, 10.0, 10.0], [0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 100.0, 100.0]),
                         "neighbours")), "hard", kind="counterexample"),
)
