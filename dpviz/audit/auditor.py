"""The auditor: a lower bound on a mechanism's epsilon from a searched, then freshly confirmed, event."""

from __future__ import annotations

from dpviz.audit.events import as_event
from dpviz.audit.neighbours import check_neighbours
from dpviz.audit.result import AuditResult
from dpviz.audit.sampling import Mechanism, _count
from dpviz.audit.search import select_event
from dpviz.audit.statistics import clopper_pearson, privacy_loss_interval
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_delta, check_int, check_open_unit, check_positive


def epsilon_lower_bound(mechanism: Mechanism, d, d_prime, *, event=None, samples: int = 100_000,
                        search_samples: int | None = None, confidence: float = 0.95, delta: float = 0.0,
                        claimed_epsilon: float | None = None, neighbours: str | None = None,
                        label: str = "", rng: RngLike = None) -> AuditResult:
    """A lower bound on the epsilon of ``mechanism`` that holds with probability ``confidence``.

    Draws ``samples`` outputs of ``mechanism(d)`` and of ``mechanism(d_prime)``,
    counts how often each falls in the event S, and returns
    ``max(0, ln((p_lo - delta) / p'_hi))`` where ``[p_lo, p_hi]`` and ``[p'_lo, p'_hi]``
    are Clopper-Pearson intervals at level ``1 - alpha/2`` each (Bonferroni,
    ``alpha = 1 - confidence``; :func:`privacy_loss_interval`).  If the mechanism
    is (eps, delta)-DP, the returned bound exceeds eps with probability at most
    alpha ([JUO20]_; the event-based test of [DWWZK18]_).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng=Generator, size=k)`` returning k independent
        outputs stacked on the first axis (vectorised, as every dpviz mechanism).
    d, d_prime
        The neighbouring inputs (any objects the mechanism accepts).
    event : None, event, callable or list of events
        A fixed event (:class:`ThresholdEvent`, :class:`OutputEvent`,
        :class:`PredicateEvent` or a vectorised predicate on the outputs): all
        samples measure it, in the order ``P[M(d) in S]`` vs ``P[M(d') in S]``.
        ``None`` (search :func:`candidate_events`) or a list of events (search
        those): ``search_samples`` per dataset pick the event and the order with
        the best bound, then ``samples`` fresh ones per dataset confirm it.
    samples : int
        Confirmation samples per dataset, >= 1.
    search_samples : int, optional
        Search samples per dataset (default ``max(1000, samples // 10)``).
    confidence : float
        In (0, 1), e.g. 0.95 or 0.999.
    delta : float
        The delta of the claim, in [0, 1) (0 for pure DP).
    claimed_epsilon : float, optional
        Recorded in the result to give a verdict (:attr:`AuditResult.violation`).
    neighbours : {"histogram", "records", "query_answers"}, optional
        If given, check that d and d' are neighbours (:func:`check_neighbours`).
    label : str
        A name for the audited mechanism, shown in the summary.
    rng : None, int, SeedSequence or Generator
        Source of randomness (search and confirmation batches are independent).

    Returns
    -------
    AuditResult

    Raises
    ------
    ValueError, TypeError
        For confidence outside (0, 1), samples < 1, a bad delta, datasets that are
        not neighbours (when ``neighbours`` is given), a mechanism that does not
        return ``size`` rows or an event that does not return one value per row.

    Examples
    --------
    >>> from dpviz.mechanisms import laplace
    >>> mech = lambda x, rng, size: laplace(x, 1.0, 1.0, rng=rng, size=size)
    >>> r = epsilon_lower_bound(mech, 0.0, 1.0, samples=20_000, rng=0)
    >>> 0.5 < r.epsilon_lower <= 1.0
    True
    """
    samples = check_int("samples", samples, minimum=1)
    conf = check_open_unit("confidence", confidence)
    delta = check_delta(delta, allow_zero=True)
    if claimed_epsilon is not None:
        claimed_epsilon = check_positive("claimed_epsilon", claimed_epsilon)
    if neighbours is not None:
        check_neighbours(d, d_prime, neighbours)
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable as mechanism(data, rng=..., size=...), "
                        f"got {type(mechanism).__name__}")
    if search_samples is not None:
        search_samples = check_int("search_samples", search_samples, minimum=1)
    gen = as_generator(rng)
    if event is None or isinstance(event, (list, tuple)):
        n_search = max(1000, samples // 10) if search_samples is None else search_samples
        chosen, swapped, n_candidates = select_event(mechanism, d, d_prime, event, samples=n_search,
                                                     confidence=conf, delta=delta, rng=gen)
    else:
        chosen, swapped, n_search, n_candidates = as_event(event), False, 0, 1
    first, second = (d_prime, d) if swapped else (d, d_prime)
    k1 = _count(mechanism, first, chosen, samples, gen)
    k2 = _count(mechanism, second, chosen, samples, gen)
    lo, est, hi = privacy_loss_interval(k1, samples, k2, samples, confidence=conf, delta=delta)
    half = 1.0 - (1.0 - conf) / 2.0
    p_int = clopper_pearson(k1, samples, half)
    q_int = clopper_pearson(k2, samples, half)
    return AuditResult(
        epsilon_lower=max(0.0, float(lo)), epsilon_estimate=float(est), loss_interval=(float(lo), float(hi)),
        event=chosen, swapped=swapped, counts=(k1, k2), samples=(samples, samples),
        p_interval=(float(p_int[0]), float(p_int[1])), p_prime_interval=(float(q_int[0]), float(q_int[1])),
        confidence=conf, delta=delta, claimed_epsilon=claimed_epsilon, search_samples=n_search,
        candidates=n_candidates, label=label,
    )
