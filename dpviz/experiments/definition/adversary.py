"""The adversary's view of epsilon, checked by simulation: posterior beliefs and a group's privacy loss."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz.audit import epsilon_lower_bound
from dpviz.definition import group_privacy, posterior, posterior_bounds
from dpviz.mechanisms import laplace, randomized_response, randomized_response_pmf
from dpviz.rng import RngLike, as_generator
from dpviz.validation import blame, check_array, check_elements, check_epsilon, check_int, check_open_unit

__all__ = ["PosteriorCheck", "posterior_check", "PosteriorCurves", "posterior_curves", "GroupAudit", "group_audit"]


@dataclass(frozen=True)
class PosteriorCheck:
    """Randomized response on a population in which each person answers "yes" with probability ``prior``.

    Someone who knows the prior and sees a person's report updates their belief that the person answered
    "yes" by Bayes' rule; randomized response moves the log-odds by exactly eps, the most an eps-DP output
    can.  The simulation counts, among the people who reported "yes" (or "no"), the fraction who truly
    answered "yes".

    Attributes
    ----------
    prior, epsilon : float
        The population's fraction of "yes" answers, and the mechanism's epsilon.
    people : int
        Population size simulated.
    exact_yes, exact_no : float
        Exact posterior of "yes" after a "yes" report and after a "no" report.
    bound_high, bound_low : float
        The eps-DP bounds on any posterior (:func:`dpviz.definition.posterior_bounds`).
    simulated_yes, simulated_no : float
        Fraction of true "yes" among the simulated "yes" reporters and among the "no" reporters.
    reported_yes : int
        How many people reported "yes".
    """

    prior: float
    epsilon: float
    people: int
    exact_yes: float
    exact_no: float
    bound_high: float
    bound_low: float
    simulated_yes: float
    simulated_no: float
    reported_yes: int


def posterior_check(prior: float, epsilon: float, people: int = 100_000, *, rng: RngLike = None) -> PosteriorCheck:
    """Simulate randomized response on a population and read the posterior off the reports.

    Parameters
    ----------
    prior : float
        Each person answers "yes" with this probability, in (0, 1).
    epsilon : float
        The mechanism's epsilon, finite and > 0 (at most about 36.7).
    people : int, default 100_000
        Population size, >= 2.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    PosteriorCheck
        Exact and simulated posteriors after each report, and the bounds.

    Raises
    ------
    ValueError
        If a parameter is out of range, the population too large to allocate, or one report never occurs.
    TypeError
        If a parameter has the wrong type.

    Examples
    --------
    >>> c = posterior_check(0.1, np.log(3), 20_000, rng=0)
    >>> round(c.exact_yes, 4), round(c.bound_high, 4)
    (0.25, 0.25)
    """
    prior = check_open_unit("prior", prior)
    epsilon = check_epsilon(epsilon)
    people = check_int("people", people, minimum=2)
    check_elements(2.0 * people, "people x (answer, report)", people=people)
    gen = as_generator(rng)
    answers = (gen.random(people) < prior).astype(int)
    reports = randomized_response(answers, epsilon, rng=gen)
    said_yes = reports == 1
    if said_yes.all() or not said_yes.any():
        raise ValueError(f"people={people}: every simulated report was the same; simulate more people")
    yes_pmf, no_pmf = randomized_response_pmf(1, epsilon), randomized_response_pmf(0, epsilon)
    exact = posterior([prior, prior], yes_pmf[::-1], no_pmf[::-1])      # after a "yes", then after a "no" report
    low, high = posterior_bounds(prior, epsilon)
    return PosteriorCheck(prior, epsilon, people, float(exact[0]), float(exact[1]), float(high), float(low),
                          float(answers[said_yes].mean()), float(answers[~said_yes].mean()), int(said_yes.sum()))


@dataclass(frozen=True)
class PosteriorCurves:
    """The highest and lowest posterior an eps-DP output allows, against the prior, for several epsilons.

    Attributes
    ----------
    priors : numpy.ndarray
        The priors (1-d).
    epsilons : numpy.ndarray
        The epsilons (1-d).
    high, low : numpy.ndarray
        Bounds of shape ``(len(epsilons), len(priors))``.
    """

    priors: np.ndarray
    epsilons: np.ndarray
    high: np.ndarray
    low: np.ndarray


def posterior_curves(epsilons: ArrayLike, priors: ArrayLike | None = None) -> PosteriorCurves:
    """:func:`dpviz.definition.posterior_bounds` for every epsilon, on a grid of priors.

    Parameters
    ----------
    epsilons : array_like
        1-d, each finite and > 0.
    priors : array_like, optional
        1-d, each in (0, 1); default 199 points from 0.005 to 0.995.

    Returns
    -------
    PosteriorCurves
        The bounds per epsilon and prior.

    Raises
    ------
    ValueError
        If an epsilon or a prior is out of range, or the grid is too large.
    TypeError
        If an argument does not hold numbers.

    Examples
    --------
    >>> c = posterior_curves([0.1, 1.0], [0.5])
    >>> c.high.round(3)
    array([[0.525],
           [0.731]])
    """
    eps = check_array("epsilons", epsilons, ndim=1)
    if eps.size == 0:
        raise ValueError("epsilons must not be empty")
    for e in eps:
        check_epsilon(float(e), "epsilons")
    pri = np.linspace(0.005, 0.995, 199) if priors is None else check_array("priors", priors, ndim=1)
    check_elements(2.0 * eps.size * pri.size, "epsilons x priors bounds", epsilons=eps.size, priors=pri.size)
    with blame(priors=priors):  # posterior_bounds checks them as its prior
        bounds = [posterior_bounds(pri, float(e)) if pri.size else (pri, pri) for e in eps]
    return PosteriorCurves(pri, eps, np.array([b[1] for b in bounds]), np.array([b[0] for b in bounds]))


@dataclass(frozen=True)
class GroupAudit:
    """The empirical auditor's lower bound on a Laplace count's loss between counts ``k`` apart, beside ``k eps``.

    Attributes
    ----------
    epsilon : float
        The count's epsilon for one person.
    group_sizes : numpy.ndarray
        The group sizes k.
    exact : numpy.ndarray
        ``k eps`` (:func:`dpviz.definition.group_privacy`), the group's epsilon, attained by the Laplace count.
    lower : numpy.ndarray
        The auditor's lower bound on each group's epsilon (95 % confidence).
    samples : int
        Confirmation samples per dataset and group.
    """

    epsilon: float
    group_sizes: np.ndarray
    exact: np.ndarray
    lower: np.ndarray
    samples: int


def group_audit(epsilon: float, group_sizes: ArrayLike, *, count: int = 5, samples: int = 200_000,
                rng: RngLike = None) -> GroupAudit:
    """Audit a Laplace count (sensitivity 1) on D (``count``) against D' with ``k`` more people, for each k.

    Parameters
    ----------
    epsilon : float
        The count's epsilon for one person, finite and > 0.
    group_sizes : array_like
        1-d integers k, each in [1, 100].
    count : int, default 5
        The count on D, 0 <= count <= 10**6.
    samples : int, default 200_000
        Confirmation samples per dataset and group, >= 1000.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    GroupAudit
        ``k eps`` and the auditor's lower bound for each k.

    Raises
    ------
    ValueError
        If a parameter is out of range or the run is too large.
    TypeError
        If a parameter has the wrong type.

    Examples
    --------
    >>> g = group_audit(0.25, [1, 2], samples=20_000, rng=0)
    >>> g.exact
    array([0.25, 0.5 ])
    """
    epsilon = check_epsilon(epsilon)
    sizes = check_array("group_sizes", group_sizes, ndim=1)
    if sizes.size == 0 or np.any((sizes != np.round(sizes)) | (sizes < 1) | (sizes > 100)):
        raise ValueError("group_sizes must be a non-empty list of integers in [1, 100]")
    count = check_int("count", count, minimum=0, maximum=10**6)
    samples = check_int("samples", samples, minimum=1000)
    check_elements(4.0 * samples * sizes.size, "audit samples", samples=samples, group_sizes=sizes.size)
    gen = as_generator(rng)

    def mech(x: float, rng: np.random.Generator, size: int) -> np.ndarray:
        return laplace(np.full(size, float(x)), 1.0, epsilon, rng=rng)

    ks = sizes.astype(int)
    exact = np.array([group_privacy(epsilon, int(k))[0] for k in ks])
    lower = np.array([epsilon_lower_bound(mech, float(count), float(count + k), samples=samples, rng=gen).epsilon_lower
                      for k in ks])
    return GroupAudit(epsilon, ks, exact, lower, samples)
