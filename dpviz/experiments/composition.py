"""Experiments for the composition lecture: the BMI example, simulated and in theory, with live ledgers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpviz.accountant import BudgetExceededError, PrivacyAccountant
from dpviz.composition import (
    BMI_TABLE,
    advanced_epsilon_per_query,
    bmi_expected_error,
    bmi_parallel,
    bmi_queries,
    bmi_sequential,
)
from dpviz.experiments import TrialSummary, summarize
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_delta, check_epsilon, check_int, check_probability

__all__ = ["CompositionExperiment", "composition_experiment", "composition_comparison"]


@dataclass(frozen=True)
class CompositionExperiment:
    """Algorithm 1 (sequential) vs Algorithm 2 (parallel + post-processing) on the BMI queries.

    ``sequential`` is ``None`` when the accountant refused Algorithm 1's plan;
    ``refusal`` then holds the accountant's message and ``sequential_ledger``
    the charges it accepted before refusing.
    """

    epsilon: float
    share: float
    truth: np.ndarray
    sequential: TrialSummary | None
    parallel: TrialSummary
    theory_sequential: np.ndarray  # per-query expected squared error
    theory_parallel: np.ndarray
    sequential_ledger: PrivacyAccountant
    parallel_ledger: PrivacyAccountant
    refusal: str | None


def composition_experiment(epsilon: float, trials: int, *, share: float = 0.25, table=BMI_TABLE,
                           rng: RngLike = None) -> CompositionExperiment:
    """Run both BMI algorithms ``trials`` times, each against its own accountant with budget ``epsilon``.

    Algorithm 1 spends ``share * epsilon`` per query (the lecture's plan is
    share = 1/4, total 128/eps^2); a share above 1/4 overspends and the
    accountant refuses the query that does not fit.  Algorithm 2 spends epsilon
    once by parallel composition (total 12/eps^2).
    """
    eps = check_epsilon(epsilon)
    share = check_probability("share", share)
    trials = check_int("trials", trials, minimum=2)
    g = as_generator(rng)
    truth = bmi_queries(table)
    seq_acc, par_acc = PrivacyAccountant(eps), PrivacyAccountant(eps)
    refusal = None
    try:
        seq = summarize(bmi_sequential(table, eps, share=share, accountant=seq_acc, rng=g, size=trials), truth)
    except BudgetExceededError as exc:
        seq, refusal = None, str(exc)
    par = summarize(bmi_parallel(table, eps, accountant=par_acc, rng=g, size=trials), truth)
    return CompositionExperiment(
        epsilon=eps, share=share, truth=truth, sequential=seq, parallel=par,
        theory_sequential=bmi_expected_error(eps, "sequential", share=share, per_query=True),
        theory_parallel=bmi_expected_error(eps, "parallel", per_query=True),
        sequential_ledger=seq_acc, parallel_ledger=par_acc, refusal=refusal,
    )


def composition_comparison(total_epsilon: float, ks, delta_prime: float) -> dict[str, np.ndarray]:
    """Per-query epsilon under basic (``total/k``) and advanced composition for each k in ``ks``.

    Advanced composition (Dwork, Rothblum, Vadhan 2010) spends an extra
    ``delta_prime`` and pays off where its per-query epsilon is larger, i.e.
    the noise per query (scale 1/eps_query) is smaller.
    """
    total = check_epsilon(total_epsilon, "total_epsilon")
    ks = np.atleast_1d(np.asarray(ks))
    if ks.ndim != 1 or not np.issubdtype(ks.dtype, np.integer):
        raise TypeError(f"ks must be a 1-D sequence of integers, got {ks!r}")
    if np.any(ks < 1):
        raise ValueError(f"ks must be integers >= 1, got minimum {int(ks.min())}")
    dp = check_delta(delta_prime, "delta_prime")
    ks_int = ks.astype(int)
    basic = total / ks_int
    adv = np.array([advanced_epsilon_per_query(total, int(k), dp) for k in ks_int])
    return {"k": ks_int, "basic": basic, "advanced": adv, "gain": adv / basic}
