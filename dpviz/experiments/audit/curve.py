"""How an audit's bound tightens with the number of samples: the explorer's curve, computed once and cached.

:func:`prepare_audit_curve` picks the event once and keeps the cumulative hit
counts of a large confirmation batch, so :func:`audit_curve` can show the
confidence interval of the privacy loss for any number of samples at once
(what the explorer's sample slider moves through).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from dpviz.audit import (
    AuditResult,
    Event,
    as_event,
    event_hits,
    privacy_loss_interval,
    sample_outputs,
    select_event,
)
from dpviz.experiments.audit.targets import TARGETS, AuditTarget, audit_target
from dpviz.experiments.prefetch import single_flight
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_elements, check_epsilon, check_int, check_open_unit, check_work


@dataclass(frozen=True)
class AuditCurve:
    """An event chosen on a search batch and the cumulative hits of a confirmation batch.

    Parameters
    ----------
    target : AuditTarget
        The audited target.
    event : ThresholdEvent, OutputEvent or PredicateEvent
        The event chosen on the search batch (or the target's fixed event).
    swapped : bool
        Whether the numerator dataset is d' (the order the search chose).
    cum_hits : (numpy.ndarray, numpy.ndarray)
        ``cum_hits[0][n-1]`` / ``cum_hits[1][n-1]`` are the hits among the first n
        confirmation samples under the numerator and the denominator dataset (int32: sample
        sizes are capped far below 2**31, and the explorer keeps dozens of curves).
    confidence : float
        Confidence of the intervals computed from the curve.
    search_samples : int
        Search samples per dataset spent on choosing the event (0 for a fixed event).
    """

    target: AuditTarget
    event: Event
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

    Parameters
    ----------
    label : str
        The target's readable name.
    claimed_epsilon : float
        The claim.
    true_epsilon : float or None
        The mechanism's actual epsilon where known.
    is_dp : bool
        Whether the claim is true.
    n : numpy.ndarray
        Grid of sample sizes, up to ``samples``.
    lower : numpy.ndarray
        Lower end of the privacy-loss interval at each size.
    estimate : numpy.ndarray
        Point estimate of the privacy loss at each size.
    upper : numpy.ndarray
        Upper end at each size.
    samples : int
        The sample size the view is for.
    max_samples : int
        Confirmation samples available per dataset.
    result : AuditResult
        The full result with ``samples`` samples per dataset.
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

    Parameters
    ----------
    target : AuditTarget
        What to audit.
    max_samples : int
        Confirmation samples per dataset, >= 1.
    search_samples : int
        Search samples per dataset, >= 1 (unused when the target has a fixed event).
    confidence : float
        Confidence of the search's scores and of the curve's intervals, in (0, 1).
    rng : None, int, SeedSequence or Generator
        Source of randomness.

    Returns
    -------
    AuditCurve
        The event, the order of the pair and the cumulative hits.

    Raises
    ------
    ValueError
        If a sample size is < 1 or above :data:`dpviz.validation.MAX_ELEMENTS`, or
        ``confidence`` is not in (0, 1).
    TypeError
        If ``target`` is not an :class:`AuditTarget` or a sample size is not an integer.

    Examples
    --------
    >>> curve = prepare_audit_curve(audit_target("laplace"), max_samples=2_000, search_samples=1_000, rng=0)
    >>> curve.max_samples, curve.search_samples, bool(curve.cum_hits[0][-1] <= 2_000)
    (2000, 1000, True)
    """
    if not isinstance(target, AuditTarget):
        raise TypeError(f"target must be an AuditTarget (see audit_target), got {type(target).__name__}")
    max_samples = check_int("max_samples", max_samples, minimum=1)
    check_elements(float(max_samples), "confirmation samples per dataset", max_samples=max_samples)
    search_samples = check_int("search_samples", search_samples, minimum=1)
    check_elements(float(search_samples), "search samples per dataset", search_samples=search_samples)
    # measured: 1e6 search samples per dataset take about 1 s (the event search sorts and scans them)
    check_work(float(search_samples), 2**21, "search samples per dataset", search_samples=search_samples)
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
    hits_first, hits_second = (np.cumsum(event_hits(event, sample_outputs(target.mechanism, x, max_samples, gen)),
                                         dtype=np.int32)
                               for x in (first, second))
    return AuditCurve(target, event, swapped, (hits_first, hits_second), conf, n_search)


def audit_curve(curve: AuditCurve, samples: int, *, points: int = 40, min_samples: int = 100) -> AuditView:
    """The privacy-loss interval of the curve's event for sample sizes up to ``samples`` (log grid).

    Uses the first n confirmation samples for each n, so the interval at ``samples``
    is exactly what :func:`dpviz.audit.epsilon_lower_bound` would report with that many.

    Parameters
    ----------
    curve : AuditCurve
        The prepared event and cumulative hits (:func:`prepare_audit_curve`).
    samples : int
        Largest sample size shown, in ``[1, curve.max_samples]``.
    points : int
        Number of points of the log-spaced grid (before removing duplicates).
    min_samples : int
        Smallest sample size shown (capped at ``samples``).

    Returns
    -------
    AuditView
        The interval at each grid size and the full result at ``samples``.

    Raises
    ------
    ValueError
        If ``samples`` is outside ``[1, curve.max_samples]``, ``points`` < 2 or ``min_samples`` < 1.
    TypeError
        If ``curve`` is not an :class:`AuditCurve` or a size is not an integer.

    Examples
    --------
    >>> curve = prepare_audit_curve(audit_target("laplace"), max_samples=2_000, search_samples=1_000, rng=0)
    >>> view = audit_curve(curve, 1_000, points=5)
    >>> view.samples, int(view.n[-1]), len(view.n) <= 5
    (1000, 1000, True)
    """
    if not isinstance(curve, AuditCurve):
        raise TypeError(f"curve must be an AuditCurve (see prepare_audit_curve), got {type(curve).__name__}")
    samples = check_int("samples", samples, minimum=1, maximum=curve.max_samples)
    points = check_int("points", points, minimum=2, maximum=10_000)
    min_samples = check_int("min_samples", min_samples, minimum=1)
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
    """The audit result of the curve's event from its first ``n`` confirmation samples."""
    k1, k2 = int(curve.cum_hits[0][n - 1]), int(curve.cum_hits[1][n - 1])
    t = curve.target
    return AuditResult.from_counts(curve.event, (k1, k2), n, swapped=curve.swapped, confidence=curve.confidence,
                                   delta=t.delta, claimed_epsilon=t.claimed_epsilon,
                                   search_samples=curve.search_samples, candidates=1, label=t.label)


@single_flight(maxsize=48)
def _cached_curve(name: str, claimed_epsilon: float, confidence: float, seed: int, max_samples: int,
                  search_samples: int) -> AuditCurve:
    """:func:`prepare_audit_curve` of a ready-made target, cached on its (hashable, checked) arguments."""
    return prepare_audit_curve(audit_target(name, claimed_epsilon), max_samples=max_samples,
                               search_samples=search_samples, confidence=confidence, rng=seed)


def audit_explorer_run(name: str, claimed_epsilon: float, samples: int, *, confidence: float = 0.95,
                       seed: int = 0, max_samples: int = 200_000, search_samples: int = 20_000) -> AuditView:
    """What the audit explorer shows: the interval of the privacy loss up to ``samples`` samples.

    The samples for (target, claim, confidence, seed) are drawn once and cached
    (:func:`prepare_audit_curve`); moving the sample slider only re-reads
    cumulative counts and recomputes Clopper-Pearson intervals.

    Parameters
    ----------
    name : str
        One of :data:`TARGETS`.
    claimed_epsilon : float
        The claim the target is calibrated to, > 0.
    samples : int
        Sample size per dataset shown, in ``[1, max_samples]``.
    confidence : float
        Probability with which the bound holds, in (0, 1).
    seed : int
        Seed of the search and confirmation batches, >= 0.
    max_samples : int
        Confirmation samples drawn (once) per dataset.
    search_samples : int
        Search samples per dataset.

    Returns
    -------
    AuditView
        The interval of the privacy loss up to ``samples`` and the result at ``samples``.

    Raises
    ------
    ValueError
        If ``name`` is unknown or an argument is out of range (sample sizes at most
        :data:`dpviz.validation.MAX_ELEMENTS`).
    TypeError
        If a sample size or the seed is not an integer.

    Examples
    --------
    >>> view = audit_explorer_run("laplace", 1.0, 1_000, max_samples=2_000, search_samples=1_000)
    >>> view.samples, view.max_samples, view.is_dp
    (1000, 2000, True)
    """
    curve = _cached_curve(*_curve_key(name, claimed_epsilon, confidence, seed, max_samples, search_samples))
    return audit_curve(curve, samples)


def _curve_key(name: str, claimed_epsilon: float, confidence: float, seed: int, max_samples: int,
               search_samples: int) -> tuple[str, float, float, int, int, int]:
    """The checked arguments of :func:`_cached_curve`, as its cache key."""
    check_choice("name", name, TARGETS)
    for what, value in (("max_samples", max_samples), ("search_samples", search_samples)):
        check_elements(float(check_int(what, value, minimum=1)), "samples per dataset", **{what: value})
    return (name, float(check_epsilon(claimed_epsilon, "claimed_epsilon")),
            float(check_open_unit("confidence", confidence)), check_int("seed", seed, minimum=0),
            check_int("max_samples", max_samples, minimum=1), check_int("search_samples", search_samples, minimum=1))


def prefetch_audit_curves(settings: Iterable[tuple[str, float, float, int]], *, max_samples: int = 200_000,
                          search_samples: int = 20_000) -> None:
    """Prepare, in a background thread, the curves :func:`audit_explorer_run` will need for these settings.

    Each setting is ``(name, claimed_epsilon, confidence, seed)``.  The curves go into the
    cache :func:`audit_explorer_run` reads, one background thread computes them in the
    order given, and a later call replaces the settings still waiting.  A call of
    :func:`audit_explorer_run` for a setting being prepared waits for it instead of
    computing it twice; the curve is the same either way (seeded, computed once).

    Parameters
    ----------
    settings : iterable of (str, float, float, int)
        ``(name, claimed_epsilon, confidence, seed)`` of each curve, most wanted first.
    max_samples : int
        Confirmation samples per dataset, as given to :func:`audit_explorer_run`.
    search_samples : int
        Search samples per dataset, as given to :func:`audit_explorer_run`.

    Raises
    ------
    ValueError
        If a setting is out of range (as :func:`audit_explorer_run` would say), before anything is queued.
    TypeError
        If ``settings`` is not an iterable of 4-tuples, or a setting has the wrong type.

    Examples
    --------
    >>> prefetch_audit_curves([("laplace", 0.5, 0.95, 0)], max_samples=2_000, search_samples=1_000)
    >>> audit_explorer_run("laplace", 0.5, 1_000, max_samples=2_000, search_samples=1_000).samples
    1000
    """
    if isinstance(settings, (str, bytes)) or not isinstance(settings, Iterable):
        raise TypeError(f"settings must be an iterable of (name, claimed_epsilon, confidence, seed) tuples, "
                        f"got {type(settings).__name__}")
    keys = []
    for i, setting in enumerate(settings):
        if not isinstance(setting, tuple) or len(setting) != 4:
            raise TypeError(f"settings[{i}] must be a (name, claimed_epsilon, confidence, seed) tuple, got {setting!r}")
        keys.append(_curve_key(*setting, max_samples, search_samples))
    _cached_curve.warm(keys)
