"""Experiments for the composition lecture: the BMI example, simulated and in theory, with live ledgers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import BudgetExceededError, PrivacyAccountant, charge, charge_all
from dpviz.composition import (
    BMI_TABLE,
    advanced_epsilon_per_query,
    bmi_expected_error,
    bmi_parallel,
    bmi_queries,
    bmi_sequential,
    check_bmi_table,
    sequential_charges,
)
from dpviz.experiments import TrialSummary, summarize
from dpviz.mechanisms import laplace_scale
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_delta,
    check_elements,
    check_epsilon,
    check_int,
    check_probability,
    check_simulated_scale,
    check_work,
)

__all__ = ["CompositionExperiment", "composition_experiment", "composition_comparison"]


@dataclass(frozen=True)
class CompositionExperiment:
    """Algorithm 1 (sequential) vs Algorithm 2 (parallel + post-processing) on the BMI queries.

    ``sequential`` is ``None`` when the accountant refused Algorithm 1's plan;
    ``refusal`` then holds the accountant's message and ``sequential_ledger``
    is empty (a refused plan records nothing).  The ledgers show what *one*
    release of each algorithm costs; the ``trials`` simulated runs measure its
    error and are not charged.

    Attributes
    ----------
    epsilon : float
        The budget of each algorithm.
    share : float
        Algorithm 1's fraction of the budget per query.
    truth : numpy.ndarray
        The four true answers.
    sequential : TrialSummary or None
        Simulated Algorithm 1 answers, or None if the accountant refused it.
    parallel : TrialSummary
        Simulated Algorithm 2 answers.
    theory_sequential, theory_parallel : numpy.ndarray
        Expected squared error of each query under each algorithm.
    sequential_ledger, parallel_ledger : PrivacyAccountant
        The accountant each algorithm was charged to.
    refusal : str or None
        The accountant's message if it refused Algorithm 1.
    """

    epsilon: float
    share: float
    truth: np.ndarray
    sequential: TrialSummary | None
    parallel: TrialSummary
    theory_sequential: np.ndarray
    theory_parallel: np.ndarray
    sequential_ledger: PrivacyAccountant
    parallel_ledger: PrivacyAccountant
    refusal: str | None


def composition_experiment(epsilon: float, trials: int, *, share: float = 0.25, table: np.ndarray = BMI_TABLE,
                           rng: RngLike = None) -> CompositionExperiment:
    """Run both BMI algorithms ``trials`` times, each against its own accountant with budget ``epsilon``.

    Algorithm 1 spends ``share * epsilon`` per query (the lecture's plan is
    share = 1/4, total 128/eps^2); a share above 1/4 overspends and the
    accountant refuses the whole plan, recording nothing.  Algorithm 2 spends
    epsilon once by parallel composition (total 12/eps^2).  Each ledger is
    charged for one release of its algorithm (``dpviz.accountant.charge_all`` /
    ``charge``); the ``trials`` simulated runs, which only measure the error,
    are drawn without an accountant.

    Parameters
    ----------
    epsilon : float
        Budget of each algorithm, finite and > 0.
    trials : int
        Number of simulated runs of each algorithm, >= 2.
    share : float, default 0.25
        Algorithm 1's fraction of ``epsilon`` per query, in (0, 1].
    table : numpy.ndarray, default BMI_TABLE
        The (sex, height, weight) table.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    CompositionExperiment
        Both simulations beside their theoretical errors, with the two ledgers.

    Raises
    ------
    ValueError, TypeError
        For an invalid ``epsilon``, ``trials``, ``share`` or ``table``.

    Examples
    --------
    >>> ex = composition_experiment(1.0, 50, rng=0)
    >>> float(ex.sequential_ledger.spent.epsilon), float(ex.parallel_ledger.spent.epsilon)
    (1.0, 1.0)
    """
    eps = check_epsilon(epsilon)
    share = check_probability("share", share)
    trials = check_int("trials", trials, minimum=2)
    check_elements(4.0 * trials, "simulated BMI answers", trials=trials)
    check_work(float(trials), 2**21, "simulated releases of each algorithm", trials=trials)  # 1e7 took 10 s
    check_bmi_table(table)
    check_simulated_scale(laplace_scale(1.0, share * eps, name="share * epsilon"), "the sequential algorithm's noise",
                          share=share, epsilon=epsilon)
    g = as_generator(rng)
    truth = bmi_queries(table)
    seq_acc, par_acc = PrivacyAccountant(eps), PrivacyAccountant(eps)
    refusal = None
    try:
        charge_all(seq_acc, sequential_charges(eps, share))  # one release of Algorithm 1, all or nothing
    except BudgetExceededError as exc:
        refusal = str(exc)
    seq = None if refusal is not None else summarize(bmi_sequential(table, eps, share=share, rng=g, size=trials), truth)
    charge(par_acc, eps, label="Alg 2: 4 disjoint BMI cells", parts=4)  # one release of Algorithm 2 (parallel)
    par = summarize(bmi_parallel(table, eps, rng=g, size=trials), truth)
    return CompositionExperiment(
        epsilon=eps, share=share, truth=truth, sequential=seq, parallel=par,
        theory_sequential=np.asarray(bmi_expected_error(eps, "sequential", share=share, per_query=True)),
        theory_parallel=np.asarray(bmi_expected_error(eps, "parallel", per_query=True)),
        sequential_ledger=seq_acc, parallel_ledger=par_acc, refusal=refusal,
    )


def composition_comparison(total_epsilon: float, ks: ArrayLike, delta_prime: float) -> dict[str, np.ndarray]:
    """Per-query epsilon under basic (``total/k``) and advanced composition for each k in ``ks``.

    Advanced composition (Dwork, Rothblum, Vadhan 2010) spends an extra
    ``delta_prime`` and pays off where its per-query epsilon is larger, i.e.
    the noise per query (scale 1/eps_query) is smaller.

    Parameters
    ----------
    total_epsilon : float
        Total budget, finite and > 0.
    ks : array_like of int
        Numbers of queries (1-D, each >= 1).
    delta_prime : float
        The extra delta' of advanced composition, in (0, 1).

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"k", "basic", "advanced", "gain"}``: the per-query epsilon under
        each theorem and their ratio advanced / basic.

    Raises
    ------
    TypeError
        If ``ks`` is not a 1-D sequence of integers.
    ValueError
        If a k is < 1, or for an invalid ``total_epsilon`` or ``delta_prime``.

    Examples
    --------
    >>> composition_comparison(1.0, [1, 100], 1e-6)["k"]
    array([  1, 100])
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
