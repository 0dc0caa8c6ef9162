"""The GPTT counterexample (NOT differentially private): exact probabilities beside Monte Carlo frequencies.

References
----------
- [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
  the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpviz.rng import RngLike, as_generator
from dpviz.svt import (
    COUNTEREXAMPLE_THRESHOLD,
    NOT_DP,
    CounterexampleProbability,
    counterexample_answers,
    counterexample_event,
    counterexample_probability,
    gptt,
)
from dpviz.validation import blame, check_array, check_elements, check_epsilon, check_int, check_positive, check_work

__all__ = ["CounterexampleExperiment", "counterexample_experiment"]


@dataclass(frozen=True)
class CounterexampleExperiment:
    """Exact counterexample probabilities for each t, with Monte Carlo estimates for the small t.

    GPTT is **NOT differentially private**.  ``sim_*`` are NaN where t was not
    simulated; ``se_*`` are the binomial standard errors ``sqrt(p (1 - p) / trials)``
    of the exact p.

    Attributes
    ----------
    exact : CounterexampleProbability
        The exact probabilities, log ratios and bound for each t.
    sim_p_d : numpy.ndarray, shape (n,)
        Frequency of the event over the GPTT runs on D (NaN if not simulated).
    sim_p_dprime : numpy.ndarray, shape (n,)
        Frequency of the event over the GPTT runs on D' (NaN if not simulated).
    se_d : numpy.ndarray, shape (n,)
        Binomial standard error of a frequency of ``trials`` runs on D.
    se_dprime : numpy.ndarray, shape (n,)
        Binomial standard error of a frequency of ``trials`` runs on D'.
    trials : int
        Runs per database and t.
    """

    exact: CounterexampleProbability
    sim_p_d: np.ndarray
    sim_p_dprime: np.ndarray
    se_d: np.ndarray
    se_dprime: np.ndarray
    trials: int

    @property
    def t(self) -> np.ndarray:
        """Numbers of copies of each query."""
        return self.exact.t

    @property
    def sim_log_ratio(self) -> np.ndarray:
        """Simulated privacy loss ``log(sim_p_d / sim_p_dprime)`` (NaN or inf where undefined)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(self.sim_p_d) - np.log(self.sim_p_dprime)

    def __repr__(self) -> str:
        return (f"CounterexampleExperiment(GPTT, {NOT_DP}; t={self.t.tolist()}, trials={self.trials}, "
                f"claimed_epsilon={self.exact.claimed_epsilon:g})")


def counterexample_experiment(t_values: npt.ArrayLike, epsilon_threshold: float, epsilon_query: float | None = None, *,
                              trials: int = 100_000, simulate_max_t: int = 6,
                              rng: RngLike = None) -> CounterexampleExperiment:
    """Exact probabilities of the [CM15] Section 4 event (integration) next to GPTT simulations.

    For every t the exact ``P_D(E)`` and ``P_D'(E)`` come from
    :func:`dpviz.svt.counterexample_probability`; for ``t <= simulate_max_t``
    GPTT (**NOT differentially private**) is also run ``trials`` times on both
    databases and the frequency of the event recorded.

    Parameters
    ----------
    t_values : int or array_like of int
        Numbers of copies of each query, >= 1.
    epsilon_threshold : float
        eps1 of GPTT's threshold noise, finite and > 0.
    epsilon_query : float or None, default None
        eps2 of GPTT's query noise; None or inf means no query noise.
    trials : int, default 100000
        GPTT runs per database and simulated t.
    simulate_max_t : int, default 6
        Simulate only the t up to this value (the event gets too rare beyond).
    rng : None, int, SeedSequence or Generator
        Randomness of the simulations.

    Returns
    -------
    CounterexampleExperiment
        The exact probabilities beside the simulated frequencies and their
        standard errors.

    Raises
    ------
    ValueError, TypeError
        If some t is not an integer >= 1, a budget is invalid, ``trials`` /
        ``simulate_max_t`` is not a non-negative int (``trials`` >= 1), or a
        simulation would draw more than :data:`dpviz.validation.MAX_ELEMENTS`
        GPTT answers in all (``trials x 4 x`` the sum of the simulated t).

    References
    ----------
    See [CM15] (Section 4) in the module docstring.

    Examples
    --------
    >>> r = counterexample_experiment([1, 2], 0.5, 0.5, trials=2000, rng=0)
    >>> bool(np.all(np.abs(r.sim_p_d - r.exact.p_d) < 5 * r.se_d + 1e-12))
    True
    """
    t_arr = np.atleast_1d(check_array("t_values", t_values, ndim=(0, 1)))
    if t_arr.size == 0 or np.any(t_arr < 1) or np.any(t_arr != np.round(t_arr)):
        raise ValueError(f"t_values must be integers >= 1, got {t_arr.tolist()}")
    trials = check_int("trials", trials, minimum=1)
    simulate_max_t = check_int("simulate_max_t", simulate_max_t, minimum=0)
    check_epsilon(epsilon_threshold, "epsilon_threshold")  # checked here so that blame below is only about t_values
    if epsilon_query is not None:
        check_positive("epsilon_query", epsilon_query, allow_inf=True)
    with blame(t_values=t_values):  # counterexample_probability checks them (as t): their count and size
        exact = counterexample_probability(t_values, epsilon_threshold, epsilon_query)
    simulated = exact.t[exact.t <= simulate_max_t]
    if simulated.size:
        # every simulated t runs GPTT on 2t queries, trials times, on D and on D': bound memory and run time
        check_elements(float(trials) * 4 * float(simulated.sum()), "GPTT answers in all (trials x 4 x sum of t)",
                       trials=trials, simulate_max_t=simulate_max_t)
        # measured: 3.2e7 GPTT answers take about 1.2 s; 2**25 keep a call within seconds
        check_work(float(trials) * 4 * float(simulated.sum()), 2**25, "GPTT answers in all (trials x 4 x sum of t)",
                   trials=trials, simulate_max_t=simulate_max_t)
    gen = as_generator(rng)
    sim_d = np.full(exact.t.size, np.nan)
    sim_dp = np.full(exact.t.size, np.nan)
    eps_q = None if math.isinf(exact.epsilon_query) else exact.epsilon_query
    for i, t in enumerate(exact.t):
        if t > simulate_max_t:
            continue
        a_d, a_dp = counterexample_answers(int(t))
        ev = counterexample_event(int(t))
        for answers, store in ((a_d, sim_d), (a_dp, sim_dp)):
            out = gptt(answers, COUNTEREXAMPLE_THRESHOLD, exact.epsilon_threshold, eps_q, rng=gen, size=trials)
            store[i] = np.mean(np.all(out == ev, axis=1))
    p_d, p_dp = exact.p_d, exact.p_dprime
    return CounterexampleExperiment(exact=exact, sim_p_d=sim_d, sim_p_dprime=sim_dp,
                                    se_d=np.sqrt(p_d * (1 - p_d) / trials),
                                    se_dprime=np.sqrt(p_dp * (1 - p_dp) / trials), trials=trials)
