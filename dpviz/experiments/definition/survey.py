"""Randomized response on a survey: the debiased estimate of a proportion, simulated beside its closed form."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpviz.mechanisms import (
    randomized_response,
    randomized_response_estimate,
    randomized_response_probability,
    randomized_response_variance,
)
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_elements, check_epsilon, check_int

__all__ = ["SurveyExperiment", "survey_experiment"]


@dataclass(frozen=True)
class SurveyExperiment:
    """``trials`` runs of randomized response on one survey of ``n`` people, ``yes`` of whom answer "yes".

    Attributes
    ----------
    epsilon : float
        The privacy parameter of every report.
    n, yes : int
        People surveyed, and how many of them truly answer "yes" (the same people in every run).
    probability : float
        Probability of a truthful report, ``e^eps / (1 + e^eps)``.
    reports : numpy.ndarray
        The 0/1 reports of the first run.
    estimates : numpy.ndarray
        The debiased estimate of the fraction of "yes" answers in each run.
    raw_fractions : numpy.ndarray
        The fraction of "yes" *reports* in each run (biased towards 1/2).
    theory_variance : float
        ``e^eps / (n (e^eps - 1)^2)``, the variance of the estimate.
    trials : int
        Number of runs.
    """

    epsilon: float
    n: int
    yes: int
    probability: float
    reports: np.ndarray
    estimates: np.ndarray
    raw_fractions: np.ndarray
    theory_variance: float
    trials: int

    @property
    def truth(self) -> float:
        """The true fraction of "yes" answers, ``yes / n``."""
        return self.yes / self.n

    @property
    def simulated_variance(self) -> float:
        """Sample variance (ddof=1) of the estimates over the runs."""
        return float(np.var(self.estimates, ddof=1))

    @property
    def resolution(self) -> float:
        """Spacing ``1 / (n (2p - 1))`` of the values the estimate can take (one more "yes" report moves it by that)."""
        return 1.0 / (self.n * (2.0 * self.probability - 1.0))

    @property
    def raw_expectation(self) -> float:
        """Expected fraction of "yes" reports, ``f p + (1 - f)(1 - p)``: what the raw fraction estimates."""
        f, p = self.truth, self.probability
        return f * p + (1.0 - f) * (1.0 - p)


def survey_experiment(n: int, yes: int, epsilon: float, trials: int, *, rng: RngLike = None) -> SurveyExperiment:
    """Run randomized response ``trials`` times on a survey in which ``yes`` of ``n`` people answer "yes".

    Parameters
    ----------
    n : int
        People surveyed, >= 1.
    yes : int
        How many of them truly answer "yes", 0 <= yes <= n.
    epsilon : float
        Privacy parameter of each report, finite and > 0 (at most about 36.7).
    trials : int
        Runs of the survey, >= 2.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    SurveyExperiment
        Every run's estimate, the raw fractions and the closed-form variance.

    Raises
    ------
    ValueError
        If a parameter is out of range or the run is too large to allocate.
    TypeError
        If a parameter has the wrong type.

    Examples
    --------
    >>> s = survey_experiment(1000, 300, np.log(3), 500, rng=0)
    >>> round(s.theory_variance, 6)
    0.00075
    """
    n = check_int("n", n, minimum=1)
    yes = check_int("yes", yes, minimum=0, maximum=n)
    epsilon = check_epsilon(epsilon)
    trials = check_int("trials", trials, minimum=2)
    check_elements(float(trials) * n, "trials x n reports", trials=trials, n=n)
    answers = (np.arange(n) < yes).astype(int)
    reports = randomized_response(answers, epsilon, rng=as_generator(rng), size=trials)
    estimates = np.asarray(randomized_response_estimate(reports, epsilon))
    return SurveyExperiment(epsilon, n, yes, randomized_response_probability(epsilon), reports[0], estimates,
                            reports.mean(axis=1), randomized_response_variance(n, epsilon), trials)
