"""Experiments for the Laplace-mechanism lecture: simulated releases beside the theoretical band."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpviz.experiments import TrialSummary, check_band, summarize
from dpviz.mechanisms import laplace, laplace_quantile, laplace_variance
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_array, check_epsilon, check_int, check_nonnegative

__all__ = ["LaplaceExperiment", "laplace_experiment", "laplace_error_curve", "laplace_explorer_run",
           "cps_oldest_by_marital"]


@dataclass(frozen=True)
class LaplaceExperiment:
    """One noisy release, a Monte Carlo summary and the theoretical band of the Laplace mechanism."""

    epsilon: float
    sensitivity: float
    release: np.ndarray          # (m,) one noisy release
    summary: TrialSummary        # over `trials` releases
    theory_lower: np.ndarray     # (m,) truth + Laplace quantile at band[0]
    theory_upper: np.ndarray     # (m,) truth + Laplace quantile at band[1]
    theory_variance: float       # 2 (sensitivity / epsilon)^2

    @property
    def simulated_variance(self) -> float:
        """The simulated noise variance, averaged over the queries (compare with ``theory_variance``)."""
        return float(np.mean(self.summary.variance))

    @property
    def simulated_upper_halfwidth(self) -> float:
        """Mean over queries of (upper band edge - mean) of the simulated answers."""
        return float(np.mean(self.summary.upper - self.summary.mean))


def laplace_experiment(truth, sensitivity: float, epsilon: float, trials: int, *, rng: RngLike = None,
                       band=(5.0, 95.0)) -> LaplaceExperiment:
    """Run ``trials`` Laplace releases of ``truth`` and put the theoretical band beside the simulated one.

    The theoretical band of query i is ``truth_i + F^{-1}(p)`` for the two band
    percentiles p, with ``F^{-1}`` the Laplace quantile function of scale
    ``sensitivity / epsilon`` (Dwork et al. TCC 2006); the theoretical variance
    is ``2 (sensitivity/epsilon)^2``.  The first release drawn is returned as
    "one noisy release".
    """
    truth = check_array("truth", truth, ndim=1)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_nonnegative("sensitivity", sensitivity)
    trials = check_int("trials", trials, minimum=2)
    lo, hi = check_band(band)
    samples = laplace(truth, sensitivity, epsilon, rng=as_generator(rng), size=trials)
    q = laplace_quantile(np.array([lo / 100, hi / 100]), sensitivity, epsilon) if sensitivity > 0 else np.zeros(2)
    return LaplaceExperiment(
        epsilon=epsilon, sensitivity=sensitivity, release=samples[0], summary=summarize(samples, truth, (lo, hi)),
        theory_lower=truth + q[0], theory_upper=truth + q[1],
        theory_variance=laplace_variance(sensitivity, epsilon),
    )


def laplace_error_curve(epsilons, sensitivity: float, trials: int, *, rng: RngLike = None) -> dict[str, np.ndarray]:
    """Empirical vs theoretical mean squared error of one Laplace answer over a grid of epsilons.

    Returns ``{"epsilon", "empirical_mse", "theory_mse", "stderr"}``; ``stderr`` is the
    standard error of the empirical MSE, ``sqrt((E[Z^4] - v^2)/k) = sqrt(5) v / sqrt(k)``
    for Laplace noise (E[Z^4] = 24 b^4 = 6 v^2).
    """
    eps = check_array("epsilons", epsilons, ndim=1)
    for e in eps:
        check_epsilon(e, "epsilons")
    trials = check_int("trials", trials, minimum=2)
    g = as_generator(rng)
    noise = laplace(np.zeros(eps.size), 1.0, 1.0, rng=g, size=trials)  # unit-scale draws, rescaled per epsilon
    scale = check_nonnegative("sensitivity", sensitivity) / eps
    emp = np.mean((noise * scale) ** 2, axis=0)
    theory = 2.0 * scale**2
    return {"epsilon": eps, "empirical_mse": emp, "theory_mse": theory,
            "stderr": np.sqrt(5.0) * theory / np.sqrt(trials)}


#: Example histogram for the Laplace explorer: people aged 85-90 in the CPS extract, by the extract's
#: marital-status code 1..7 (counted by :func:`cps_oldest_by_marital`).
def cps_oldest_by_marital(min_age: int = 85) -> tuple[np.ndarray, list[str]]:
    """Counts of CPS people aged >= ``min_age`` per marital-status code 1..7 (a histogram: sensitivity 1).

    Returns the counts (float) and labels ``"marital=1"`` .. ``"marital=7"``.
    """
    from dpviz.datasets import load

    min_age = check_int("min_age", min_age, minimum=0)
    records = load("CPS", column="all")
    age, marital = records[:, 1], records[:, 2]
    counts = np.bincount(marital[age >= min_age], minlength=8)[1:8].astype(float)
    return counts, [f"marital={c}" for c in range(1, 8)]


def laplace_explorer_run(truth, sensitivity: float, trials: int, *, epsilon: float | None = None,
                         target_halfwidth: float | None = None, band=(5.0, 95.0),
                         rng: RngLike = None) -> LaplaceExperiment:
    """What the Laplace explorer shows, in either mode.

    Privacy first: give ``epsilon``.  Accuracy first: give ``target_halfwidth`` w
    and epsilon is solved so that the central band of the noise is exactly
    ``+-w``: ``epsilon = S ln(1/alpha) / w`` with ``alpha = 1 - (hi - lo)/100``
    (:func:`dpviz.mechanisms.epsilon_for_laplace_halfwidth`; the band must be
    symmetric).
    """
    from dpviz.mechanisms import epsilon_for_laplace_halfwidth

    if (epsilon is None) == (target_halfwidth is None):
        raise ValueError("give exactly one of epsilon (privacy first) or target_halfwidth (accuracy first)")
    lo, hi = check_band(band)
    if target_halfwidth is not None:
        if abs(lo - (100 - hi)) > 1e-12:
            raise ValueError(f"band must be symmetric for accuracy-first mode, got ({lo}, {hi})")
        epsilon = epsilon_for_laplace_halfwidth(target_halfwidth, sensitivity, alpha=1 - (hi - lo) / 100)
    return laplace_experiment(truth, sensitivity, epsilon, trials, rng=rng, band=(lo, hi))
