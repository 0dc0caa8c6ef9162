"""The ready-made audit targets: the library's mechanisms, each calibrated to a claim, with a pair to audit on.

An :class:`AuditTarget` bundles a mechanism (calibrated to a *claimed*
epsilon), a neighbouring pair, the claim and what we know of the truth;
:func:`run_audit` audits one with :func:`dpviz.audit.epsilon_lower_bound` and
:func:`audit_table` several in turn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpviz.audit import (
    AuditResult,
    NeighbourPair,
    OutputEvent,
    PredicateEvent,
    epsilon_lower_bound,
    histogram_pair,
    mironov_event,
    query_pair,
    statdp_x_pair,
)
from dpviz.mechanisms import laplace_scale
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_elements, check_epsilon, check_int, check_work

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
    name : str
        Short key, one of :data:`TARGETS`.
    label : str
        A readable name (GPTT's says NOT differentially private).
    mechanism : callable
        ``mechanism(data, rng=..., size=k)`` returning k outputs stacked on the first axis.
    pair : NeighbourPair
        The neighbouring inputs.
    claimed_epsilon : float
        The epsilon the mechanism claims (and is calibrated to).
    delta : float
        The delta of the claim (0 for pure differential privacy).
    true_epsilon : float or None
        The mechanism's actual epsilon where known (``inf`` when it is not DP), else None.
    is_dp : bool
        Whether the claim is true.
    event : None, event or list of events
        None (search the default family), a fixed event, or a list of events to search.
    """

    name: str
    label: str
    mechanism: Callable[..., Any]
    pair: NeighbourPair
    claimed_epsilon: float
    delta: float
    true_epsilon: float | None
    is_dp: bool
    event: Any = None


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
        def hit(out: np.ndarray, s: float = s) -> np.ndarray:
            return np.all(out[:, idx] >= truth + s, axis=1)
        events.append(PredicateEvent(hit, f"all {idx.size} nodes on the path of cell {cell} >= count + {s:g}"))
    return events


def _column_events(A: Any, counts: np.ndarray, cell: int) -> list[PredicateEvent]:
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
        def hit(out: np.ndarray, s: float = s) -> np.ndarray:
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

    Parameters
    ----------
    name : str
        One of :data:`TARGETS`.
    claimed_epsilon : float
        The claim, > 0; the honest targets are calibrated to it.

    Returns
    -------
    AuditTarget
        The mechanism, its neighbouring pair, the claim and the truth.

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`TARGETS` or ``claimed_epsilon`` is not a finite number > 0.

    References
    ----------
    I. Mironov. "On Significance of the Least Significant Bits for Differential
    Privacy." CCS 2012 (``laplace_float_bits``).
    M. Lyu, D. Su, N. Li. "Understanding the Sparse Vector Technique for
    Differential Privacy." PVLDB 10(6), 2017 (``svt``'s calibration).
    Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer. "Detecting Violations of
    Differential Privacy." CCS 2018 (``gptt``'s StatDP X pair).
    Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on the
    Sparse Vector Technique." arXiv:1508.07306, 2015, Section 4 (``gptt_counterexample``).

    Examples
    --------
    >>> t = audit_target("laplace", 0.5)
    >>> t.pair.relation, t.claimed_epsilon, t.is_dp
    ('histogram', 0.5, True)
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
            return AuditTarget(name, "discrete Laplace mechanism (integer noise, fast sampler)",
                               lambda x, rng, size: mechanisms.laplace(x, 1.0, eps, rng=rng, size=size,
                                                                       sampler="discrete"),
                               pair, eps, 0.0, eps, True)
        return AuditTarget(name, "Gaussian mechanism (delta = 1e-5)", lambda x, rng, size: mechanisms.gaussian(
            x, 1.0, eps, 1e-5, rng=rng, size=size), pair, eps, 1e-5, eps, True)
    if name == "laplace_float_bits":
        pair = histogram_pair([1.0], cell=0, add=False)
        return AuditTarget(name, "float Laplace under Mironov's attack (not DP for any epsilon)",
                           lambda x, rng, size: mechanisms.laplace(x, 1.0, eps, rng=rng, size=size),
                           pair, eps, 0.0, math.inf, False, mironov_event(0.0, laplace_scale(1.0, eps)))
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
        label = f"GPTT, counterexample, t = {t} copies ({svt.NOT_DP})"
        return AuditTarget(name, label, lambda x, rng, size: svt.gptt(
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
    """Audit ``target`` with :func:`dpviz.audit.epsilon_lower_bound` (its event or the default search).

    Parameters
    ----------
    target : AuditTarget
        The mechanism, pair, claim and event to audit (the pair's relation is checked).
    samples : int
        Confirmation samples per dataset, >= 1.
    search_samples : int, optional
        Search samples per dataset (default ``max(1000, samples // 10)``).
    confidence : float
        Probability with which the bound holds, in (0, 1).
    rng : None, int, SeedSequence or Generator
        Source of randomness.

    Returns
    -------
    AuditResult
        The bound, the event and the verdict on the target's claim.

    Raises
    ------
    TypeError
        If ``target`` is not an :class:`AuditTarget` (or a sample size is not an integer).
    ValueError
        If a sample size or ``confidence`` is out of range (see :func:`dpviz.audit.epsilon_lower_bound`).

    Examples
    --------
    >>> r = run_audit(audit_target("laplace", 1.0), samples=2_000, rng=0)
    >>> bool(0.0 <= r.epsilon_lower <= 1.0), r.violation
    (True, False)
    """
    _check_target(target)
    return epsilon_lower_bound(target.mechanism, target.pair.d, target.pair.d_prime, event=target.event,
                               samples=samples, search_samples=search_samples, confidence=confidence,
                               delta=target.delta, claimed_epsilon=target.claimed_epsilon,
                               neighbours=target.pair.relation, label=target.label, rng=rng)


def _check_target(target: Any, name: str = "target") -> AuditTarget:
    """_``target`` if it is an :class:`AuditTarget`, else a TypeError naming ``name``."""
    if not isinstance(target, AuditTarget):
        raise TypeError(f"{name} must be an AuditTarget (see audit_target), got {type(target).__name__}")
    return target


#: Sample sizes used instead of the common one for targets whose sampling is slow (matrix mechanism:
#: least-squares reconstruction; float bits: an exact, pure-Python inversion of each output).
SLOW_TARGETS = {"matrix": 200_000, "laplace_float_bits": 100_000}


def audit_table(names: Sequence[str] = TARGETS, *, claimed_epsilon: float = 1.0, samples: int = 100_000,
                confidence: float = 0.999, overrides: dict[str, int] | None = None,
                rng: RngLike = None) -> list[AuditResult]:
    """Audit several targets in turn with one generator (for the lecture's summary table).

    ``overrides`` maps target names to their own sample size (default
    :data:`SLOW_TARGETS`, capped at ``samples``); the search uses a tenth of each.

    Parameters
    ----------
    names : sequence of str
        Targets to audit, each one of :data:`TARGETS`.
    claimed_epsilon : float
        The claim every target is calibrated to, > 0.
    samples : int
        Confirmation samples per dataset, >= 1.
    confidence : float
        Probability with which each bound holds, in (0, 1).
    overrides : dict of str to int, optional
        Sample sizes of particular targets (default :data:`SLOW_TARGETS`).
    rng : None, int, SeedSequence or Generator
        Source of randomness, shared by the audits in turn.

    Returns
    -------
    list of AuditResult
        One result per name, in order.

    Raises
    ------
    ValueError
        If ``samples`` < 1 or above :data:`dpviz.validation.MAX_ELEMENTS`, ``names`` is empty, a
        name is unknown or an argument of the audit is out of range.
    TypeError
        If ``samples`` is not an integer, ``names`` is a string or ``overrides`` is not a dict of ints.

    Examples
    --------
    >>> rows = audit_table(["laplace", "laplace_undernoised"], samples=10_000, confidence=0.95, rng=0)
    >>> [r.violation for r in rows]
    [False, True]
    """
    samples = check_int("samples", samples, minimum=1)
    check_elements(float(samples), "confirmation samples per dataset", samples=samples)
    if isinstance(names, str):
        raise TypeError(f"names must be a sequence of target names, got the string {names!r} (use [{names!r}])")
    names = [check_choice("names[i]", n, TARGETS) for n in names]
    if not names:
        raise ValueError(f"names must name at least one target of {TARGETS}, got an empty sequence")
    # measured: 1e6 samples of every target take about 6 s; 2**24 samples in all keep a call within seconds
    check_work(float(samples) * len(names), 2**24, "samples (per dataset, over all targets)", samples=samples,
               names=len(names))
    overrides = SLOW_TARGETS if overrides is None else overrides
    if not isinstance(overrides, dict):
        raise TypeError(f"overrides must be a dict of target name to sample size, got {type(overrides).__name__}")
    overrides = {check_choice("overrides key", k, TARGETS): check_int(f"overrides[{k!r}]", v, minimum=1)
                 for k, v in overrides.items()}
    for n in names:
        audit_target(n, claimed_epsilon)  # check the claim before any audit runs
    gen = as_generator(rng)
    return [run_audit(audit_target(n, claimed_epsilon), samples=min(samples, overrides.get(n, samples)),
                      confidence=confidence, rng=gen) for n in names]
