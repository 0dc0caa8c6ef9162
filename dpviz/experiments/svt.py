"""Experiments for the sparse-vector lecture: SVT vs GPTT answers, the counterexample, the reconstruction attack.

GPTT is **NOT differentially private** ([CM15]_); every result here that
involves it says so in its ``repr``.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from dpviz import datasets
from dpviz.rng import RngLike, as_generator
from dpviz.svt import (
    ABOVE,
    COUNTEREXAMPLE_THRESHOLD,
    ESTIMATORS,
    HALTED,
    NOT_DP,
    CounterexampleProbability,
    ReconstructionAccuracy,
    SVTOracle,
    counterexample_answers,
    counterexample_event,
    counterexample_probability,
    fraction_exact,
    gptt,
    laplace_reconstruct,
    reconstruct,
    reconstruct_from_oracle,
    sparse_vector,
    support_k,
)
from dpviz.validation import (
    check_array,
    check_choice,
    check_epsilon,
    check_int,
    check_open_unit,
    check_probability,
)

__all__ = [
    "ThresholdAnswers", "threshold_answers_experiment",
    "CounterexampleExperiment", "counterexample_experiment",
    "AttackTable", "attack_table", "PAPER_DATASETS", "TABLE_FIELDS",
    "GPTTAttackRun", "gptt_attack_run",
]

#: The per-repetition fields of :class:`AttackTable`.
TABLE_FIELDS = ("overall", "small", "small_nonzero", "laplace_overall", "laplace_small", "laplace_small_nonzero")
#: The four histograms of [CM15]_ Table 1, by their dpviz names.
PAPER_DATASETS = ("ADULT", "MEDCOST", "INCOME", "HEPTH")


# --------------------------------------------------------------------------- SVT vs GPTT on a stream
@dataclass(frozen=True)
class ThresholdAnswers:
    """Per-query frequencies of SVT's and GPTT's answers over many runs (GPTT is NOT differentially private)."""

    answers: np.ndarray          # (m,) true answers of the stream
    threshold: float
    epsilon: float
    c: int
    svt_above: np.ndarray        # (m,) fraction of SVT runs answering ABOVE
    svt_halted: np.ndarray       # (m,) fraction of SVT runs halted before this query
    gptt_above: np.ndarray       # (m,) fraction of GPTT runs answering ABOVE (same epsilon split, no halt)
    svt_positives: np.ndarray    # (trials,) ABOVE answers per SVT run (<= c)
    gptt_positives: np.ndarray   # (trials,) ABOVE answers per GPTT run (unbounded)
    trials: int

    def __repr__(self) -> str:
        return (f"ThresholdAnswers(SVT epsilon-DP vs GPTT {NOT_DP}; m={self.answers.size}, c={self.c}, "
                f"epsilon={self.epsilon:g}, trials={self.trials})")


def threshold_answers_experiment(answers, threshold: float, epsilon: float, c: int, trials: int, *,
                                 rng: RngLike = None) -> ThresholdAnswers:
    """Run SVT (epsilon-DP, halts after c ABOVE) and GPTT (**NOT differentially private**, never halts) ``trials`` times.

    SVT uses :func:`dpviz.svt.sparse_vector` with half of epsilon on the threshold;
    GPTT uses the same epsilon halves (threshold ``Lap(1/(eps/2))``, queries
    ``Lap(1/(eps/2))``, the split of Chen et al. 2015) but no cut-off.
    """
    answers = check_array("answers", answers, ndim=1)
    epsilon = check_epsilon(epsilon)
    c = check_int("c", c, minimum=1)
    trials = check_int("trials", trials, minimum=1)
    gen = as_generator(rng)
    s = sparse_vector(answers, threshold, epsilon, c, rng=gen, size=trials)
    g = gptt(answers, threshold, epsilon / 2, epsilon / 2, rng=gen, size=trials)
    return ThresholdAnswers(
        answers=answers, threshold=float(threshold), epsilon=epsilon, c=c,
        svt_above=np.mean(s == ABOVE, axis=0), svt_halted=np.mean(s == HALTED, axis=0),
        gptt_above=np.mean(g == ABOVE, axis=0), svt_positives=np.sum(s == ABOVE, axis=1),
        gptt_positives=np.sum(g == ABOVE, axis=1), trials=trials,
    )


# --------------------------------------------------------------------------- the counterexample
@dataclass(frozen=True)
class CounterexampleExperiment:
    """Exact counterexample probabilities for each t, with Monte Carlo estimates for the small t.

    GPTT is **NOT differentially private**.  ``sim_*`` are NaN where t was not
    simulated; ``se_*`` are the binomial standard errors ``sqrt(p (1 - p) / trials)``
    of the exact p.
    """

    exact: CounterexampleProbability
    sim_p_d: np.ndarray
    sim_p_dprime: np.ndarray
    se_d: np.ndarray
    se_dprime: np.ndarray
    trials: int

    @property
    def t(self) -> np.ndarray:
        return self.exact.t

    @property
    def sim_log_ratio(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(self.sim_p_d) - np.log(self.sim_p_dprime)

    def __repr__(self) -> str:
        return (f"CounterexampleExperiment(GPTT, {NOT_DP}; t={self.t.tolist()}, trials={self.trials}, "
                f"claimed_epsilon={self.exact.claimed_epsilon:g})")


def counterexample_experiment(t_values, epsilon_threshold: float, epsilon_query: float | None = None, *,
                              trials: int = 100_000, simulate_max_t: int = 6,
                              rng: RngLike = None) -> CounterexampleExperiment:
    """Exact probabilities of the [CM15]_ Section 4 event (integration) next to GPTT simulations.

    For every t the exact ``P_D(E)`` and ``P_D'(E)`` come from
    :func:`dpviz.svt.counterexample_probability`; for ``t <= simulate_max_t``
    GPTT (**NOT differentially private**) is also run ``trials`` times on both
    databases and the frequency of the event recorded.
    """
    exact = counterexample_probability(t_values, epsilon_threshold, epsilon_query)
    trials = check_int("trials", trials, minimum=1)
    simulate_max_t = check_int("simulate_max_t", simulate_max_t, minimum=0)
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


# --------------------------------------------------------------------------- Tables 2 and 3
@dataclass(frozen=True)
class AttackTable:
    """Fractions of cells reconstructed exactly by the GPTT attack ([CM15]_ Tables 2 and 3), per repetition.

    GPTT is **NOT differentially private**.  Arrays are indexed
    ``[dataset, epsilon, repetition]``; ``laplace_*`` are the honest baseline
    (Laplace counts, rounded) at the same total epsilon.
    """

    names: tuple[str, ...]
    epsilons: np.ndarray
    k: np.ndarray                # (n_datasets,) support k of each histogram
    scale: np.ndarray            # (n_datasets,) total count
    domain: np.ndarray           # (n_datasets,) number of cells
    n_small: np.ndarray          # (n_datasets,) cells with count <= k
    overall: np.ndarray
    small: np.ndarray
    small_nonzero: np.ndarray    # cells with 1 <= count <= k
    laplace_overall: np.ndarray
    laplace_small: np.ndarray
    laplace_small_nonzero: np.ndarray
    split: float
    calibrate: bool
    estimator: str

    @property
    def repetitions(self) -> int:
        return int(self.overall.shape[2])

    def mean(self, which: str = "overall") -> np.ndarray:
        """Mean over repetitions of one of :data:`TABLE_FIELDS` (``overall``, ``small``, ``laplace_small``, ...)."""
        check_choice("which", which, TABLE_FIELDS)
        return getattr(self, which).mean(axis=2)

    def stderr(self, which: str = "overall") -> np.ndarray:
        """Standard error of that mean over repetitions (sample sd / sqrt(reps))."""
        check_choice("which", which, TABLE_FIELDS)
        v = getattr(self, which)
        return v.std(axis=2, ddof=1) / math.sqrt(v.shape[2]) if v.shape[2] > 1 else np.full(v.shape[:2], np.nan)

    def __repr__(self) -> str:
        return (f"AttackTable(GPTT attack, {NOT_DP}; datasets={list(self.names)}, "
                f"epsilons={self.epsilons.tolist()}, repetitions={self.repetitions}, split={self.split:g}, "
                f"calibrate={self.calibrate}, estimator={self.estimator!r})")


def attack_table(names=PAPER_DATASETS, epsilons=(1.0, 0.5, 0.1), repetitions: int = 10, *, split: float = 0.5,
                 calibrate: bool = False, estimator: str = "average", rng: RngLike = None) -> AttackTable:
    """Run the GPTT reconstruction attack (Alg. 4 of [CM15]_) on shipped histograms at several epsilons.

    Each repetition calls :func:`dpviz.svt.reconstruct` (GPTT is **NOT
    differentially private**) and scores it with :func:`dpviz.svt.fraction_exact`:
    the fraction of all cells guessed exactly (Table 2) and of cells with
    count <= k (Table 3), k from :func:`dpviz.svt.support_k`.  The paper averages
    10 repetitions with epsilon in {1.0, 0.5, 0.1}.
    """
    names = tuple(names)
    if not names:
        raise ValueError("names must list at least one dataset")
    eps = np.array([check_epsilon(e, "epsilons") for e in epsilons], dtype=float)
    if eps.size == 0:
        raise ValueError("epsilons must list at least one epsilon")
    repetitions = check_int("repetitions", repetitions, minimum=1)
    split = check_open_unit("split", split)
    check_choice("estimator", estimator, ESTIMATORS)
    gen = as_generator(rng)
    shape = (len(names), eps.size, repetitions)
    overall, small, nz, lap_o, lap_s, lap_nz = (np.empty(shape) for _ in range(6))
    ks, scale, domain, n_small = [], [], [], []
    for i, name in enumerate(names):
        x = datasets.load(name)
        k = support_k(x)
        ks.append(k)
        scale.append(int(x.sum()))
        domain.append(x.size)
        n_small.append(int(np.count_nonzero(x <= k)))
        for j, e in enumerate(eps):
            for r in range(repetitions):
                rec = reconstruct(x, e, split=split, calibrate=calibrate, estimator=estimator, rng=gen)
                acc = fraction_exact(x, rec.guess, k)
                overall[i, j, r], small[i, j, r], nz[i, j, r] = acc.overall, acc.small, acc.small_nonzero
                lap = fraction_exact(x, laplace_reconstruct(x, e, rng=gen), k)
                lap_o[i, j, r], lap_s[i, j, r], lap_nz[i, j, r] = lap.overall, lap.small, lap.small_nonzero
    return AttackTable(names=names, epsilons=eps, k=np.array(ks), scale=np.array(scale), domain=np.array(domain),
                       n_small=np.array(n_small), overall=overall, small=small, small_nonzero=nz,
                       laplace_overall=lap_o, laplace_small=lap_s, laplace_small_nonzero=lap_nz, split=split, calibrate=calibrate, estimator=estimator)


# --------------------------------------------------------------------------- one explorer run
@dataclass(frozen=True)
class GPTTAttackRun:
    """One run of the GPTT attack beside the honest SVT attack and the Laplace baseline, on one histogram.

    GPTT is **NOT differentially private**; SVT and Laplace are epsilon-DP at the
    same total epsilon.
    """

    name: str
    epsilon: float
    split: float
    query_share: float
    copies: int
    calibrate: bool
    estimator: str
    truth: np.ndarray
    k: int
    gptt_guess: np.ndarray
    gptt_accuracy: ReconstructionAccuracy
    gptt_groups: int
    gptt_queries: int
    svt_guess: np.ndarray
    svt_accuracy: ReconstructionAccuracy
    svt_groups: int
    svt_c: int
    laplace_guess: np.ndarray
    laplace_accuracy: ReconstructionAccuracy

    def __repr__(self) -> str:
        return (f"GPTTAttackRun(GPTT {NOT_DP}; {self.name}, epsilon={self.epsilon:g}: exact all/<=k "
                f"GPTT {self.gptt_accuracy.overall:.3f}/{self.gptt_accuracy.small:.3f}, "
                f"SVT {self.svt_accuracy.overall:.3f}/{self.svt_accuracy.small:.3f}, "
                f"Laplace {self.laplace_accuracy.overall:.3f}/{self.laplace_accuracy.small:.3f})")


def gptt_attack_run(name: str, epsilon: float, *, split: float = 0.5, query_share: float = 0.0, copies: int = 1,
                    calibrate: bool = False, estimator: str = "average", svt_c: int = 10,
                    seed: int = 0) -> GPTTAttackRun:
    """The GPTT attack (**NOT differentially private**), the same attack through SVT, and Laplace, at one epsilon.

    * GPTT: :func:`dpviz.svt.reconstruct` (Algorithms 3 and 4 of [CM15]_).
    * SVT: the same Algorithm 4 with the partition step answered by an
      epsilon-DP :class:`dpviz.svt.SVTOracle` (``split * epsilon``, halting after
      ``svt_c`` ABOVE answers) and the same Laplace totals.
    * Laplace: every count plus ``Lap(1/epsilon)``, rounded.

    Results are cached per setting (the explorer revisits settings), and their
    arrays are read-only.  ``seed`` seeds three independent streams.
    """
    epsilon = check_epsilon(epsilon)
    split = check_open_unit("split", split)
    query_share = check_probability("query_share", query_share, low_open=False, high_open=True)
    copies = check_int("copies", copies, minimum=1)
    check_choice("estimator", estimator, ESTIMATORS)
    svt_c = check_int("svt_c", svt_c, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    info = datasets.describe(name)
    if info.kind != "histogram":
        raise ValueError(f"name must be a histogram dataset, got {name!r} ({info.kind})")
    return _cached_run(info.name, epsilon, split, query_share, copies, bool(calibrate), estimator, svt_c, seed)


@functools.lru_cache(maxsize=128)
def _cached_run(name, epsilon, split, query_share, copies, calibrate, estimator, svt_c, seed) -> GPTTAttackRun:
    x = datasets.load(name)
    k = support_k(x)
    s_gptt, s_svt, s_lap = np.random.SeedSequence(seed).spawn(3)
    rec = reconstruct(x, epsilon, split=split, query_share=query_share, copies=copies, calibrate=calibrate,
                      estimator=estimator, rng=np.random.default_rng(s_gptt))
    svt_oracle = SVTOracle(x, split * epsilon, svt_c, rng=np.random.default_rng(s_svt))
    svt_rec = reconstruct_from_oracle(svt_oracle, (1 - split) * epsilon, estimator=estimator)
    lap = laplace_reconstruct(x, epsilon, rng=np.random.default_rng(s_lap))
    for arr in (x, rec.guess, svt_rec.guess, lap):
        arr.setflags(write=False)
    return GPTTAttackRun(
        name=name, epsilon=epsilon, split=split, query_share=query_share, copies=copies, calibrate=calibrate,
        estimator=estimator, truth=x, k=k, gptt_guess=rec.guess, gptt_accuracy=fraction_exact(x, rec.guess, k),
        gptt_groups=rec.partition.n_groups, gptt_queries=rec.queries, svt_guess=svt_rec.guess,
        svt_accuracy=fraction_exact(x, svt_rec.guess, k), svt_groups=svt_rec.partition.n_groups, svt_c=svt_c,
        laplace_guess=lap, laplace_accuracy=fraction_exact(x, lap, k),
    )
