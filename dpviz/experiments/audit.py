"""Experiments for the privacy-auditing lecture: the library's mechanisms, ready to audit, and how a bound tightens.

An :class:`AuditTarget` bundles a mechanism (calibrated to a *claimed*
epsilon), a neighbouring pair, the claim and what we know of the truth.
:func:`run_audit` audits one with :func:`dpviz.audit.epsilon_lower_bound`;
:func:`prepare_audit_curve` picks the event once and keeps the cumulative hit
counts of a large confirmation batch, so :func:`audit_curve` can show the
confidence interval of the privacy loss for any number of samples at once
(what the explorer's sample slider moves through).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from dpviz.audit import (
    AuditResult,
    NeighbourPair,
    OutputEvent,
    PredicateEvent,
    as_event,
    clopper_pearson,
    epsilon_lower_bound,
    event_hits,
    histogram_pair,
    mironov_event,
    privacy_loss_interval,
    query_pair,
    sample_outputs,
    select_event,
    statdp_x_pair,
)
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_epsilon, check_int, check_open_unit

__all__ = ["AuditTarget", "TARGETS", "audit_target", "run_audit", "audit_table", "AuditCurve", "AuditView",
           "prepare_audit_curve", "audit_curve", "audit_explorer_run", "SamplerFit", "sampler_fit"]

#: Names of the ready-made audit targets (:func:`audit_target`).
TARGETS = ("laplace", "laplace_undernoised", "laplace_discrete", "laplace_float_bits", "gaussian", "svt",
           "gptt", "gptt_counterexample", "hierarchy", "matrix")
#: The histogram the count-query targets run on (one record is added to cell 2).
EXAMPLE_COUNTS = np.array([12.0, 7.0, 3.0, 9.0])
#: Under-noised Laplace: noise for epsilon x 1.175 while claiming epsilon.
UNDERNOISE = 1.175


@dataclass(frozen=True)
class AuditTarget:
    """A mechanism, calibrated to ``claimed_epsilon``, with a neighbouring pair to audit it on.

    Attributes
    ----------
    name, label : short key and a readable name (GPTT's says NOT differentially private)
    mechanism : ``mechanism(data, rng=..., size=k)`` -> k outputs
    pair : the neighbouring inputs
    claimed_epsilon, delta : the privacy claim
    true_epsilon : the mechanism's actual epsilon where known (``inf`` for GPTT), else None
    is_dp : whether the claim is true
    event : None (search the default family), an event, or a list of events to search
    """

    name: str
    label: str
    mechanism: Callable
    pair: NeighbourPair
    claimed_epsilon: float
    delta: float
    true_epsilon: float | None
    is_dp: bool
    event: object = None


def _path_events(counts: np.ndarray, cell: int, branching: int) -> list[PredicateEvent]:
    """Events "every measured node on the path of ``cell`` is at least its count plus s", s = -1..3.

    Adding a record to ``cell`` raises each node on its root-to-leaf path by 1; for
    s >= 1 every node's Laplace density ratio is ``e^{eps_l}``, so the event's ratio
    is ``e^{sum_l eps_l} = e^{eps}``: no single coordinate can show more than eps_l.
    """
    from dpviz.hierarchy import build_tree, node_counts

    tree = build_tree(counts.size, branching)
    idx = np.array([tree.offsets[lev] + cell // branching**lev for lev in tree.measured_levels])
    truth = node_counts(counts, branching)[idx]
    events = []
    for s in (-1.0, 0.0, 1.0, 2.0, 3.0):
        def hit(out, s=s):
            return np.all(out[:, idx] >= truth + s, axis=1)
        events.append(PredicateEvent(hit, f"all {idx.size} nodes on the path of cell {cell} >= count + {s:g}"))
    return events


def _column_events(A, counts: np.ndarray, cell: int) -> list[PredicateEvent]:
    """Events "every strategy answer touching ``cell`` moved by at least s times its coefficient", s = 0..2.

    Adding a record to ``cell`` moves measurement j of ``y = A x + Lap(||A||_1/eps)`` by
    ``A[j, cell]``; for s >= 1 the event's probability ratio is
    ``exp(eps ||A[:, cell]||_1 / ||A||_1)``, i.e. ``e^eps`` for a column of maximal L1 norm.
    """
    col = np.asarray(A[:, [cell]].toarray() if hasattr(A, "toarray") else np.asarray(A)[:, [cell]]).ravel()
    rows = np.flatnonzero(col)
    truth = np.asarray(A @ counts).ravel()[rows]
    coef = col[rows]
    events = []
    for s in (0.0, 1.0, 2.0):
        def hit(out, s=s):
            return np.all(np.sign(coef) * (out[:, rows] - truth) >= s * np.abs(coef), axis=1)
        events.append(PredicateEvent(hit, f"all {rows.size} strategy answers using cell {cell} moved by >= {s:g}"))
    return events


def audit_target(name: str, claimed_epsilon: float = 1.0) -> AuditTarget:
    """The ready-made audit targets of the library, calibrated to ``claimed_epsilon``.

    * ``laplace``: counts + Lap(1/eps), one record added to a cell (honest).
    * ``laplace_undernoised``: counts + Lap(1/(1.175 eps)) claimed eps (true 1.175 eps).
    * ``laplace_discrete``: counts + discrete Laplace (``sampler="discrete"``; honest).
    * ``laplace_float_bits``: textbook float Laplace on one count (1 vs 0) audited with
      Mironov's event (:func:`dpviz.audit.mironov_event`): NOT epsilon-DP for any epsilon.
    * ``gaussian``: counts + N(0, sigma^2), analytic (eps, 1e-5) calibration (honest).
    * ``svt``: sparse vector (c = 1, [LSL17] calibration) on 10 query answers
      ``(0,..,0,1)`` vs ``(1,..,1,0)`` with threshold 0 (honest).
    * ``gptt``: GPTT (NOT differentially private) with eps/2 + eps/2 on StatDP's X pair, threshold 1/2.
    * ``gptt_counterexample``: GPTT on the [CM15] Section 4 construction with t = 5
      copies (the fixed event: copies of q_1 below, of q_2 above).
    * ``hierarchy``: the b = 2 tree over 8 cells, one record added to cell 5;
      events on the whole root-to-leaf path (honest).
    * ``matrix``: the matrix mechanism (:func:`dpviz.matrix_mechanism.run`) for all
      range queries over 8 cells with the binary hierarchical strategy, auditing its
      noisy strategy answers; events on every answer that uses the changed cell (honest).
    """
    check_choice("name", name, TARGETS)
    eps = check_epsilon(claimed_epsilon, "claimed_epsilon")
    from dpviz import mechanisms, svt

    if name in ("laplace", "laplace_undernoised", "laplace_discrete", "gaussian"):
        pair = histogram_pair(EXAMPLE_COUNTS, cell=2)
        if name == "laplace":
            return AuditTarget(name, "Laplace mechanism", lambda x, rng, size: mechanisms.laplace(
                x, 1.0, eps, rng=rng, size=size), pair, eps, 0.0, eps, True)
        if name == "laplace_undernoised":
            e_true = UNDERNOISE * eps
            return AuditTarget(name, f"under-noised Laplace (noise for {e_true:.4g}, claims {eps:g})",
                               lambda x, rng, size: mechanisms.laplace(x, 1.0, e_true, rng=rng, size=size),
                               pair, eps, 0.0, e_true, False)
        if name == "laplace_discrete":
            return AuditTarget(name, "discrete Laplace mechanism (exact, integer noise)",
                               lambda x, rng, size: mechanisms.laplace(x, 1.0, eps, rng=rng, size=size,
                                                                       sampler="discrete"),
                               pair, eps, 0.0, eps, True)
        return AuditTarget(name, "Gaussian mechanism (delta = 1e-5)", lambda x, rng, size: mechanisms.gaussian(
            x, 1.0, eps, 1e-5, rng=rng, size=size), pair, eps, 1e-5, eps, True)
    if name == "laplace_float_bits":
        pair = histogram_pair([1.0], cell=0, add=False)
        return AuditTarget(name, "float Laplace under Mironov's attack (not DP for any epsilon)",
                           lambda x, rng, size: mechanisms.laplace(x, 1.0, eps, rng=rng, size=size),
                           pair, eps, 0.0, math.inf, False, mironov_event(0.0, 1.0 / eps))
    if name == "svt":
        a = np.array([0.0] * 9 + [1.0])
        pair = query_pair(a, 1.0 - a, "10 sensitivity-1 queries: (0,..,0,1) vs (1,..,1,0)")
        return AuditTarget(name, "sparse vector technique (c = 1)", lambda x, rng, size: svt.sparse_vector(
            x, 0.0, eps, 1, rng=rng, size=size), pair, eps, 0.0, eps, True)
    if name == "gptt":
        return AuditTarget(name, f"GPTT ({svt.NOT_DP})", lambda x, rng, size: svt.gptt(
            x, 0.5, eps / 2, eps / 2, rng=rng, size=size), statdp_x_pair(10), eps, 0.0, math.inf, False)
    if name == "gptt_counterexample":
        t = 5
        d, dp = svt.counterexample_answers(t)
        pair = query_pair(d, dp, f"[CM15] Section 4 construction, t = {t} copies of q1 = c(x), q2 = c(y)")
        event = OutputEvent(tuple(svt.counterexample_event(t).tolist()))
        return AuditTarget(name, f"GPTT, seed counterexample ({svt.NOT_DP})", lambda x, rng, size: svt.gptt(
            x, svt.COUNTEREXAMPLE_THRESHOLD, eps / 2, eps / 2, rng=rng, size=size), pair, eps, 0.0, math.inf,
            False, event)
    if name == "matrix":
        from dpviz import matrix_mechanism, strategies, workloads

        counts = np.array([5.0, 0.0, 3.0, 8.0, 2.0, 4.0, 1.0, 6.0])
        A, W = strategies.hierarchical(8, 2), workloads.all_ranges(8)
        return AuditTarget(name, "matrix mechanism (all ranges, hierarchical strategy)",
                           lambda x, rng, size: matrix_mechanism.run(W, A, x, eps, rng=rng, size=size).measurements,
                           histogram_pair(counts, cell=5), eps, 0.0, eps, True, _column_events(A, counts, 5))
    # hierarchy
    from dpviz import hierarchy

    counts = np.array([5.0, 0.0, 3.0, 8.0, 2.0, 4.0, 1.0, 6.0])
    pair = histogram_pair(counts, cell=5)
    return AuditTarget(name, "hierarchical tree (b = 2, 8 cells)", lambda x, rng, size: hierarchy.measure(
        x, 2, eps, rng=rng, size=size).noisy, pair, eps, 0.0, eps, True, _path_events(counts, 5, 2))


def run_audit(target: AuditTarget, *, samples: int = 100_000, search_samples: int | None = None,
              confidence: float = 0.95, rng: RngLike = None) -> AuditResult:
    """Audit ``target`` with :func:`dpviz.audit.epsilon_lower_bound` (its event or the default search)."""
    return epsilon_lower_bound(target.mechanism, target.pair.d, target.pair.d_prime, event=target.event,
                               samples=samples, search_samples=search_samples, confidence=confidence,
                               delta=target.delta, claimed_epsilon=target.claimed_epsilon,
                               neighbours=target.pair.relation, label=target.label, rng=rng)


#: Sample sizes used instead of the common one for targets whose sampling is slow (matrix mechanism:
#: least-squares reconstruction; float bits: an exact, pure-Python inversion of each output).
SLOW_TARGETS = {"matrix": 200_000, "laplace_float_bits": 100_000}


def audit_table(names=TARGETS, *, claimed_epsilon: float = 1.0, samples: int = 100_000,
                confidence: float = 0.999, overrides: dict | None = None, rng: RngLike = None) -> list[AuditResult]:
    """Audit several targets in turn with one generator (for the lecture's summary table).

    ``overrides`` maps target names to their own sample size (default
    :data:`SLOW_TARGETS`, capped at ``samples``); the search uses a tenth of each.
    """
    gen = as_generator(rng)
    samples = check_int("samples", samples, minimum=1)
    overrides = SLOW_TARGETS if overrides is None else overrides
    return [run_audit(audit_target(n, claimed_epsilon), samples=min(samples, overrides.get(n, samples)),
                      confidence=confidence, rng=gen) for n in names]


# --------------------------------------------------------------------------- the tightening curve
@dataclass(frozen=True)
class AuditCurve:
    """An event chosen on a search batch and the cumulative hits of a confirmation batch.

    ``cum_hits[0][n-1]`` / ``cum_hits[1][n-1]`` are the hits among the first n confirmation
    samples under the numerator and denominator dataset (already in the order the search chose).
    """

    target: AuditTarget
    event: object
    swapped: bool
    cum_hits: tuple[np.ndarray, np.ndarray]
    confidence: float
    search_samples: int

    @property
    def max_samples(self) -> int:
        """Confirmation samples available per dataset."""
        return int(self.cum_hits[0].size)


@dataclass(frozen=True)
class AuditView:
    """What the explorer draws: the privacy-loss interval at every grid size up to ``samples``.

    ``n`` (grid of sample sizes <= samples), ``lower``/``estimate``/``upper`` at each, and the
    full result at ``samples`` itself.
    """

    label: str
    claimed_epsilon: float
    true_epsilon: float | None
    is_dp: bool
    n: np.ndarray
    lower: np.ndarray
    estimate: np.ndarray
    upper: np.ndarray
    samples: int
    max_samples: int
    result: AuditResult


def prepare_audit_curve(target: AuditTarget, *, max_samples: int = 200_000, search_samples: int = 20_000,
                        confidence: float = 0.95, rng: RngLike = None) -> AuditCurve:
    """Pick the event on ``search_samples`` per dataset, then record hits of ``max_samples`` fresh ones.

    The selection is that of :func:`dpviz.audit.epsilon_lower_bound` (largest lower
    bound on the search batch over the target's events, both orders of the pair);
    the confirmation batch is independent of it, so the interval at every size is valid.
    """
    max_samples = check_int("max_samples", max_samples, minimum=1)
    search_samples = check_int("search_samples", search_samples, minimum=1)
    conf = check_open_unit("confidence", confidence)
    gen = as_generator(rng)
    d, dp = target.pair.d, target.pair.d_prime
    if target.event is not None and not isinstance(target.event, (list, tuple)):
        event, swapped, n_search = as_event(target.event), False, 0
    else:
        event, swapped, _ = select_event(target.mechanism, d, dp, target.event, samples=search_samples,
                                         confidence=conf, delta=target.delta, rng=gen)
        n_search = search_samples
    first, second = (dp, d) if swapped else (d, dp)
    hits = tuple(np.cumsum(event_hits(event, sample_outputs(target.mechanism, x, max_samples, gen)))
                 for x in (first, second))
    return AuditCurve(target, event, swapped, hits, conf, n_search)


def audit_curve(curve: AuditCurve, samples: int, *, points: int = 40, min_samples: int = 100) -> AuditView:
    """The privacy-loss interval of the curve's event for sample sizes up to ``samples`` (log grid).

    Uses the first n confirmation samples for each n, so the interval at ``samples``
    is exactly what :func:`dpviz.audit.epsilon_lower_bound` would report with that many.
    """
    samples = check_int("samples", samples, minimum=1, maximum=curve.max_samples)
    lo_n = min(min_samples, samples)
    grid = np.unique(np.round(np.geomspace(lo_n, samples, points)).astype(np.int64))
    k1, k2 = curve.cum_hits[0][grid - 1], curve.cum_hits[1][grid - 1]
    lower, est, upper = privacy_loss_interval(k1, grid, k2, grid, confidence=curve.confidence,
                                              delta=curve.target.delta)
    t = curve.target
    result = _result_at(curve, samples)
    return AuditView(t.label, t.claimed_epsilon, t.true_epsilon, t.is_dp, grid, lower, est, upper, samples,
                     curve.max_samples, result)


def _result_at(curve: AuditCurve, n: int) -> AuditResult:
    k1, k2 = int(curve.cum_hits[0][n - 1]), int(curve.cum_hits[1][n - 1])
    lo, est, hi = privacy_loss_interval(k1, n, k2, n, confidence=curve.confidence, delta=curve.target.delta)
    half = 1 - (1 - curve.confidence) / 2
    p, q = clopper_pearson(k1, n, half), clopper_pearson(k2, n, half)
    t = curve.target
    return AuditResult(max(0.0, float(lo)), float(est), (float(lo), float(hi)), curve.event, curve.swapped,
                       (k1, k2), (n, n), (float(p[0]), float(p[1])), (float(q[0]), float(q[1])),
                       curve.confidence, t.delta, t.claimed_epsilon, curve.search_samples, 1, t.label)


@lru_cache(maxsize=24)
def _cached_curve(name: str, claimed_epsilon: float, confidence: float, seed: int, max_samples: int,
                  search_samples: int) -> AuditCurve:
    return prepare_audit_curve(audit_target(name, claimed_epsilon), max_samples=max_samples,
                               search_samples=search_samples, confidence=confidence, rng=seed)


def audit_explorer_run(name: str, claimed_epsilon: float, samples: int, *, confidence: float = 0.95,
                       seed: int = 0, max_samples: int = 200_000, search_samples: int = 20_000) -> AuditView:
    """What the audit explorer shows: the interval of the privacy loss up to ``samples`` samples.

    The samples for (target, claim, confidence, seed) are drawn once and cached
    (:func:`prepare_audit_curve`); moving the sample slider only re-reads
    cumulative counts and recomputes Clopper-Pearson intervals.
    """
    check_choice("name", name, TARGETS)
    curve = _cached_curve(name, float(check_epsilon(claimed_epsilon, "claimed_epsilon")),
                          float(check_open_unit("confidence", confidence)), check_int("seed", seed, minimum=0),
                          check_int("max_samples", max_samples, minimum=1),
                          check_int("search_samples", search_samples, minimum=1))
    return audit_curve(curve, samples)


# --------------------------------------------------------------------------- exact samplers against their pmf
@dataclass(frozen=True)
class SamplerFit:
    """Observed counts of a discrete sampler next to its exact pmf, and a chi-square goodness-of-fit p-value."""

    label: str
    k: np.ndarray          # integer values shown (those with expected count >= 10)
    observed: np.ndarray   # counts at k
    pmf: np.ndarray        # exact probabilities at k
    samples: int
    p_value: float         # Pearson chi-square over k plus the two pooled tails


def sampler_fit(kind: str, scale: float, samples: int = 20_000, *, method: str = "exact",
                rng: RngLike = None) -> SamplerFit:
    """Draw ``samples`` discrete Laplace (``kind="laplace"``, t = scale) or discrete Gaussian (sigma = scale)
    values and test them against the exact pmf with Pearson's chi-square test.

    Cells: every integer whose expected count is at least 10, plus the two tails
    pooled; degrees of freedom = cells - 1 (:func:`scipy.stats.chisquare`).
    """
    from scipy import stats

    from dpviz.discrete import discrete_gaussian, discrete_gaussian_pmf, discrete_laplace, discrete_laplace_pmf

    check_choice("kind", kind, ("laplace", "gaussian"))
    samples = check_int("samples", samples, minimum=10)
    draw, pmf = ((discrete_laplace, discrete_laplace_pmf) if kind == "laplace"
                 else (discrete_gaussian, discrete_gaussian_pmf))
    x = draw(scale, size=samples, rng=rng, method=method)
    grid = np.arange(int(x.min()) - 200, int(x.max()) + 201)
    p = pmf(grid, scale)
    keep = np.flatnonzero(p * samples >= 10)
    a, b = int(grid[keep[0]]), int(grid[keep[-1]])
    cells = np.arange(a, b + 1)
    obs = np.bincount(x[(x >= a) & (x <= b)] - a, minlength=cells.size)
    observed = np.concatenate([[np.sum(x < a)], obs, [np.sum(x > b)]])
    expected = np.concatenate([[p[grid < a].sum()], pmf(cells, scale), [p[grid > b].sum()]])
    expected = expected * samples / expected.sum()
    if expected[0] == 0 and observed[0] == 0:
        observed, expected = observed[1:], expected[1:]
    if expected[-1] == 0 and observed[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    p_value = float(stats.chisquare(observed, expected).pvalue)
    name = "discrete Laplace DLap" if kind == "laplace" else "discrete Gaussian N_Z, sigma ="
    return SamplerFit(f"{name} {scale:g} ({method} sampler)", cells, obs, pmf(cells, scale), samples, p_value)
