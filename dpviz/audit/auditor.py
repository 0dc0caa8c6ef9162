"""The auditor: a lower bound on a mechanism's epsilon from a searched, then freshly confirmed, event.

The three steps read as select -> measure -> bound: :func:`~dpviz.audit.select_event`
picks the event on a search batch, :func:`epsilon_lower_bound` counts its hits
on a fresh confirmation batch, and :meth:`AuditResult.from_counts` turns the
counts into the Clopper-Pearson bound.  The papers cited are listed in
:mod:`dpviz.audit`.
"""

from __future__ import annotations

from typing import Any

from dpviz.audit.events import as_event
from dpviz.audit.neighbours import RELATIONS, check_neighbours
from dpviz.audit.result import AuditResult
from dpviz.audit.sampling import Mechanism, _count
from dpviz.audit.search import select_event
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_delta, check_elements, check_int, check_open_unit, check_positive


def epsilon_lower_bound(mechanism: Mechanism, d: Any, d_prime: Any, *, event: Any = None, samples: int = 100_000,
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
    alpha ([JUO20]; the event-based test of [DWWZK18]).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng=Generator, size=k)`` returning k independent
        outputs stacked on the first axis (vectorised, as every dpviz mechanism).
    d : object
        One of the two neighbouring inputs (any object the mechanism accepts).
    d_prime : object
        The other input: ``d`` with one record added or removed (or, for
        ``neighbours="query_answers"``, the query answers on such a neighbour).
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
        The bound, the event it rests on, the counts and, with a claim, the verdict.

    Raises
    ------
    ValueError
        For confidence outside (0, 1), samples or search_samples < 1 or above
        :data:`dpviz.validation.MAX_ELEMENTS` (a documented cap on run time), delta
        outside [0, 1), a claimed epsilon <= 0, an input the mechanism refuses
        (its error re-raised naming ``d`` or ``d_prime``), datasets that are not neighbours (when
        ``neighbours`` is given), an empty list of events, a mechanism that does
        not return ``size`` rows, an event that refers to a coordinate the mechanism's
        outputs do not have (checked on the first batch drawn) or an event that does
        not return one value per row.
    TypeError
        For a mechanism that is not callable, an event that is neither an event
        nor callable, or a non-integer number of samples.

    References
    ----------
    M. Jagielski, J. Ullman, A. Oprea. "Auditing Differentially Private Machine
    Learning: How Private is Private SGD?" NeurIPS 2020 ([JUO20]).
    Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer. "Detecting Violations of
    Differential Privacy." CCS 2018 ([DWWZK18]).

    Examples
    --------
    >>> from dpviz.mechanisms import laplace
    >>> mech = lambda x, rng, size: laplace(x, 1.0, 1.0, rng=rng, size=size)
    >>> r = epsilon_lower_bound(mech, 0.0, 1.0, samples=20_000, rng=0)
    >>> 0.5 < r.epsilon_lower <= 1.0
    True
    """
    samples = check_int("samples", samples, minimum=1)
    check_elements(float(samples), "confirmation samples per dataset", samples=samples)
    conf = check_open_unit("confidence", confidence)
    delta = check_delta(delta, allow_zero=True)
    if claimed_epsilon is not None:
        claimed_epsilon = check_positive("claimed_epsilon", claimed_epsilon)
    if neighbours is not None:
        check_choice("neighbours", neighbours, RELATIONS)
        check_neighbours(d, d_prime, neighbours)
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable as mechanism(data, rng=..., size=...), "
                        f"got {type(mechanism).__name__}")
    if search_samples is not None:
        search_samples = check_int("search_samples", search_samples, minimum=1)
        check_elements(float(search_samples), "search samples per dataset", search_samples=search_samples)
    gen = as_generator(rng)
    if event is None or isinstance(event, (list, tuple)):
        n_search = max(1000, samples // 10) if search_samples is None else search_samples
        chosen, swapped, n_candidates = select_event(mechanism, d, d_prime, event, samples=n_search,
                                                     confidence=conf, delta=delta, rng=gen)
    else:
        chosen, swapped, n_search, n_candidates = as_event(event), False, 0, 1
    first, second = (d_prime, d) if swapped else (d, d_prime)
    k1 = _count(mechanism, first, chosen, samples, gen, "d_prime" if swapped else "d")
    k2 = _count(mechanism, second, chosen, samples, gen, "d" if swapped else "d_prime")
    return AuditResult.from_counts(chosen, (k1, k2), samples, swapped=swapped, confidence=conf, delta=delta,
                                   claimed_epsilon=claimed_epsilon, search_samples=n_search,
                                   candidates=n_candidates, label=label)
