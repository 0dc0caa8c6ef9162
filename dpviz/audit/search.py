"""The event search: candidate events from a batch of outputs, their hit counts, and the most damaging one.

**Search mode** of the auditor (``event=None`` or a list of events): a first
batch of samples is used to pick the most damaging event (thresholds on every
output coordinate at many quantiles, both directions, both orders of D and D',
and -- for discrete outputs -- every observed output value); the pick is then
measured on a *fresh* batch, so the bound keeps its confidence despite the
search ([DWWZK18], [BGDCG18], listed in :mod:`dpviz.audit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats

from dpviz.audit.events import (
    Event,
    OutputEvent,
    ThresholdEvent,
    _as_rows,
    _check_fits,
    _check_outputs,
    _indicator,
    as_event,
)
from dpviz.audit.sampling import Mechanism, _sample
from dpviz.audit.statistics import privacy_loss_interval
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_delta, check_elements, check_int, check_open_unit, check_work

#: Quantile levels of the threshold search: a fine grid plus the tails (where Gaussian-type losses are large).
_LEVELS = np.unique(np.concatenate([np.linspace(0.005, 0.995, 199),
                                    [1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 3e-3],
                                    1 - np.array([1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 3e-3])]))


def candidate_events(outputs: npt.ArrayLike, outputs_prime: npt.ArrayLike, *, max_atoms: int = 4096) -> list[Event]:
    """The event family searched by default, built from two batches of outputs.

    * Per output coordinate: ``> t`` and ``<= t`` for t at the pooled sample's
      quantiles (0.01 %..99.99 %), or at every observed value when the coordinate
      takes at most 256 values.
    * When the whole output takes at most ``max_atoms`` distinct values (e.g.
      SVT's above/below vectors): ``output == v`` for every observed v.

    Parameters
    ----------
    outputs : array_like
        A batch of outputs under one dataset (first axis = samples).
    outputs_prime : array_like
        A batch under the other dataset, with outputs of the same size.
    max_atoms : int
        Largest number of distinct whole outputs for which output events are added.

    Returns
    -------
    list of ThresholdEvent and OutputEvent
        The candidates, threshold events first.

    Raises
    ------
    ValueError
        If a batch holds no sample, or the two batches' outputs have different numbers of coordinates.

    Examples
    --------
    >>> a, b = np.array([[0, 1], [1, 1]]), np.array([[0, 0], [1, 1]])
    >>> events = candidate_events(a, b)
    >>> [e.description for e in events[:2]], [e.description for e in events[4:]]
    (['output[0] > 0', 'output[0] <= 0'], ['output == (0,0)', 'output == (0,1)', 'output == (1,1)'])
    """
    max_atoms = check_int("max_atoms", max_atoms, minimum=0)
    a, b = _check_batches(outputs, outputs_prime, "outputs", "outputs_prime", nonempty=True)
    return _candidates(a, b, max_atoms)[0]


def _candidates(a: np.ndarray, b: np.ndarray, max_atoms: int = 4096
                ) -> tuple[list[Event], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """:func:`candidate_events` of the row batches ``a``, ``b`` and their hit counts in each, in one pass.

    Each coordinate of each batch is sorted once: the pooled order (for the quantile thresholds) is a
    stable merge of the two sorted runs, and the hits of a threshold are a binary search in each run.
    The output events and their counts come from one table of distinct outputs, which is skipped
    outright when a coordinate alone takes more than ``max_atoms`` values.  Same events, same order and
    the same counts as :func:`candidate_events` then :func:`event_counts`.
    """
    na, nb = a.shape[0], b.shape[0]
    events: list[Event] = []
    ka_parts: list[np.ndarray] = []
    kb_parts: list[np.ndarray] = []
    atoms_possible = True
    for j in range(a.shape[1]):
        sa, sb = np.sort(a[:, j]), np.sort(b[:, j])
        col = np.sort(np.concatenate([sa, sb]), kind="stable")   # merges the two sorted runs in O(n)
        distinct = np.concatenate([[True], col[1:] != col[:-1]])
        uniq = col[distinct]
        atoms_possible = atoms_possible and uniq.size <= max_atoms
        if uniq.size <= 256:
            ts = uniq[:-1]
        else:  # order statistics at the quantile levels (the sample quantiles, without interpolation)
            ts = np.unique(col[np.minimum((_LEVELS * col.size).astype(np.int64), col.size - 1)])
        below_a = np.searchsorted(sa, ts, side="right")
        below_b = np.searchsorted(sb, ts, side="right")
        events += [ThresholdEvent._trusted(j, t, above) for t in ts.astype(float).tolist() for above in (True, False)]
        ka_parts.append(np.stack([na - below_a, below_a], axis=1).ravel())
        kb_parts.append(np.stack([nb - below_b, below_b], axis=1).ravel())
    table = _atom_table(a, b, max_atoms) if atoms_possible else None
    if table is not None:
        events += [OutputEvent(tuple(r.tolist())) for r in table[0]]
        ka_parts.append(table[1])
        kb_parts.append(table[2])
    ka = np.concatenate(ka_parts).astype(np.int64) if ka_parts else np.zeros(0, dtype=np.int64)
    kb = np.concatenate(kb_parts).astype(np.int64) if kb_parts else np.zeros(0, dtype=np.int64)
    return events, ka, kb


def _check_batches(a: npt.ArrayLike, b: npt.ArrayLike, name_a: str, name_b: str, *,
                   nonempty: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Two batches of outputs as rows (one per sample), with the same number of coordinates, named in errors.

    With ``nonempty``, each batch must hold at least one sample.
    """
    ra, rb = _as_rows(_check_outputs(name_a, a)), _as_rows(_check_outputs(name_b, b))
    for name, rows, raw in ((name_a, ra, a), (name_b, rb, b)):
        if nonempty and rows.shape[0] == 0:
            raise ValueError(f"{name} must hold at least one sample (outputs stacked on the first axis), "
                             f"got shape {np.shape(raw)}")
    if ra.shape[1] != rb.shape[1]:
        raise ValueError(f"{name_b} must hold outputs of the same size as {name_a}: {name_a} has {ra.shape[1]} "
                         f"coordinates per sample, {name_b} has {rb.shape[1]}")
    return ra, rb


def _atom_table(a: np.ndarray, b: np.ndarray, max_atoms: int = 4096
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Distinct output rows of two batches and their counts in each, or None if more than ``max_atoms``.

    Rows are encoded as one int64 key (mixed radix over each column's distinct
    values) so that counting is a 1-D sort, not a sort of row tuples.
    """
    pooled = np.concatenate([a, b])
    codes = np.zeros(pooled.shape[0], dtype=np.int64)
    radix = 1
    for j in range(pooled.shape[1]):
        uniq, inv = np.unique(pooled[:, j], return_inverse=True)
        if uniq.size > max_atoms or radix * uniq.size > 2**62:
            return None
        codes += inv.reshape(-1).astype(np.int64) * radix
        radix *= uniq.size
    keys, first, inv = np.unique(codes, return_index=True, return_inverse=True)
    if keys.size > max_atoms:
        return None
    inv = inv.reshape(-1)
    n_a = a.shape[0]
    return (pooled[first], np.bincount(inv[:n_a], minlength=keys.size),
            np.bincount(inv[n_a:], minlength=keys.size))


def event_counts(events: Sequence[Any], a: npt.ArrayLike, b: npt.ArrayLike
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Hit counts of every event in two batches of outputs ``a`` and ``b`` (first axis = samples).

    Threshold events are counted by sorting each coordinate once and one
    ``searchsorted`` per coordinate, output events from one table of distinct
    outputs, other events directly.

    Parameters
    ----------
    events : sequence of events or callables
        The events to count (see :func:`~dpviz.audit.as_event`).
    a : array_like
        A batch of outputs, first axis = samples.
    b : array_like
        Another batch, with outputs of the same size.

    Returns
    -------
    ka : numpy.ndarray of int64
        Hits of each event in ``a``.
    kb : numpy.ndarray of int64
        Hits of each event in ``b``.

    Raises
    ------
    TypeError
        If an entry of ``events`` is neither an event nor callable.
    ValueError
        If a predicate event does not return one truth value per sample, or an event refers to a
        coordinate the outputs do not have (the message names ``events[i]``).

    Examples
    --------
    >>> from dpviz.audit import OutputEvent, ThresholdEvent
    >>> ka, kb = event_counts([ThresholdEvent(0, 1.5), OutputEvent((2.0,))], [0.0, 1.0, 2.0], [2.0, 3.0, 4.0])
    >>> ka.tolist(), kb.tolist()
    ([1, 1], [3, 1])
    """
    events = [as_event(e) for e in events]
    _check_batches(a, b, "a", "b")
    a, b = np.asarray(a), np.asarray(b)
    ka = np.empty(len(events), dtype=np.int64)
    kb = np.empty(len(events), dtype=np.int64)
    ra, rb = _as_rows(a), _as_rows(b)
    for i, ev in enumerate(events):
        _check_fits(ev, ra.shape[1], f"events[{i}]")
    thr = [i for i, ev in enumerate(events) if isinstance(ev, ThresholdEvent)]
    if thr:
        thresholds = [ev for ev in events if isinstance(ev, ThresholdEvent)]  # in the order of thr
        idx = np.array(thr)
        coords = np.array([ev.coordinate for ev in thresholds])
        ts = np.array([ev.threshold for ev in thresholds], dtype=np.float64)
        above = np.array([ev.above for ev in thresholds])
        for j in np.unique(coords):
            sel = coords == j
            below_a = np.searchsorted(np.sort(ra[:, j]), ts[sel], side="right")
            below_b = np.searchsorted(np.sort(rb[:, j]), ts[sel], side="right")
            ka[idx[sel]] = np.where(above[sel], ra.shape[0] - below_a, below_a)
            kb[idx[sel]] = np.where(above[sel], rb.shape[0] - below_b, below_b)
    rest = [i for i, ev in enumerate(events) if not isinstance(ev, ThresholdEvent)]
    table = _atom_table(ra, rb) if any(isinstance(events[i], OutputEvent) for i in rest) else None
    atoms = {tuple(v.tolist()): (int(x), int(y)) for v, x, y in zip(*table, strict=True)} if table is not None else {}
    for i in rest:
        ev = events[i]
        if table is not None and isinstance(ev, OutputEvent) and len(ev.value) == ra.shape[1]:
            ka[i], kb[i] = atoms.get(tuple(np.asarray(ev.value, dtype=ra.dtype).tolist()), (0, 0))
        else:
            ka[i] = int(_indicator(ev, a, f"events[{i}]").sum())
            kb[i] = int(_indicator(ev, b, f"events[{i}]").sum())
    return ka, kb


def select_event(mechanism: Mechanism, d: Any, d_prime: Any, events: Sequence[Any] | None = None, *,
                 samples: int = 10_000,
                 confidence: float = 0.95, delta: float = 0.0, rng: RngLike = None) -> tuple[Event, bool, int]:
    """Search phase: the event (and order of the pair) with the largest lower bound on a batch of samples.

    Draws ``samples`` outputs under d and under d', scores every event of
    ``events`` (None: :func:`candidate_events` of the batch) in both orders by
    the lower end of :func:`privacy_loss_interval` (:func:`best_event`), and returns
    ``(event, swapped, number of candidates)``.  The batch is then spent: the
    chosen event must be measured on fresh samples for the bound to hold.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng=Generator, size=k)`` returning k outputs stacked on the first axis.
    d : object
        One of the neighbouring inputs.
    d_prime : object
        The other one.
    events : sequence of events or callables, optional
        The events to search; None searches :func:`candidate_events` of the batch.
    samples : int
        Search samples per dataset, >= 1.
    confidence : float
        Confidence used to score the events, in (0, 1).
    delta : float
        The delta of the claim, in [0, 1).
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    event : ThresholdEvent, OutputEvent or PredicateEvent
        The chosen event.
    swapped : bool
        True if the bound is largest with d' in the numerator.
    candidates : int
        Number of events scored.

    Raises
    ------
    ValueError
        If ``samples`` < 1 or above :data:`dpviz.validation.MAX_ELEMENTS`, ``events``
        is an empty list, ``confidence`` or ``delta`` is out of range, the mechanism
        refuses ``d`` or ``d_prime`` (its error re-raised naming them), an event
        refers to a coordinate the outputs do not have (named ``event[i]``), or the
        mechanism or an event breaks its contract.
    TypeError
        If ``samples`` is not an integer or an entry of ``events`` is not an event.

    References
    ----------
    Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer. "Detecting Violations of
    Differential Privacy." CCS 2018 ([DWWZK18]).
    B. Bichsel, T. Gehr, D. Drachsler-Cohen, P. Tsankov, M. Vechev. "DP-Finder:
    Finding Differential Privacy Violations by Sampling and Optimization." CCS 2018 ([BGDCG18]).

    Examples
    --------
    >>> from dpviz.mechanisms import laplace
    >>> mech = lambda x, rng, size: laplace(x, 1.0, 1.0, rng=rng, size=size)
    >>> event, swapped, n = select_event(mech, 0.0, 1.0, samples=5000, rng=0)
    >>> event.description, swapped, n
    ('output[0] > 1.313', True, 422)
    """
    samples = check_int("samples", samples, minimum=1)
    check_elements(float(samples), "search samples per dataset", samples=samples)
    check_work(float(samples), 2**22, "search samples per dataset", samples=samples)  # 1e6 take ~0.2 s
    confidence = check_open_unit("confidence", confidence)
    delta = check_delta(delta, allow_zero=True)
    gen = as_generator(rng)
    if events is not None:
        if isinstance(events, (list, tuple)) and len(events) == 0:
            raise ValueError("event must not be an empty list")
        events = [as_event(e, "event[i]") for e in events]
    a = _sample(mechanism, d, samples, gen, "d")
    b = _sample(mechanism, d_prime, samples, gen, "d_prime")
    if events is None:
        ra, rb = _check_batches(a, b, "outputs", "outputs_prime", nonempty=True)
        events, ka, kb = _candidates(ra, rb)
        i, swapped, _ = _best(ka, ra.shape[0], kb, rb.shape[0], confidence, delta, 64)
        return events[i], swapped, len(events)
    for i, ev in enumerate(events):
        _check_fits(ev, _as_rows(a).shape[1], f"event[{i}]")
    event, swapped, _ = best_event(events, a, b, confidence=confidence, delta=delta)
    return event, swapped, len(events)


def best_event(events: Sequence[Any], a: npt.ArrayLike, b: npt.ArrayLike, *, confidence: float = 0.95,
               delta: float = 0.0,
               shortlist: int = 64) -> tuple[Event, bool, float]:
    """The event and order with the largest Clopper-Pearson lower bound on the batches ``a`` (under d), ``b`` (d').

    To stay fast with thousands of events,
    each order first ranks the events by a normal approximation of the bound
    (``ln((p - delta)/p') - z sqrt((1-p)/k + (1-p')/k')``) and computes the exact
    bound for the best ``shortlist`` only.  The bound is computed on the batch it
    was chosen on, so it is optimistic: :func:`epsilon_lower_bound` re-measures
    the chosen event on fresh samples.

    Parameters
    ----------
    events : sequence of events or callables
        The events to score (at least one).
    a : array_like
        A batch of outputs under d, first axis = samples.
    b : array_like
        A batch of outputs under d'.
    confidence : float
        Confidence of the Clopper-Pearson bound, in (0, 1).
    delta : float
        The delta of the claim, in [0, 1).
    shortlist : int
        Number of events per order whose exact bound is computed.

    Returns
    -------
    event : ThresholdEvent, OutputEvent or PredicateEvent
        The best event.
    swapped : bool
        True if the bound is largest with ``b``'s dataset in the numerator.
    bound : float
        Its lower bound on this batch (``-inf`` if no event has ``p > delta``).

    Raises
    ------
    ValueError
        If ``events`` is empty, a batch holds no sample, ``confidence`` or ``delta`` is out of
        range, an event refers to a coordinate the outputs do not have, or a predicate event
        does not return one truth value per sample.
    TypeError
        If an entry of ``events`` is neither an event nor callable.

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> a, b = g.laplace(size=5000), 1.0 + g.laplace(size=5000)
    >>> event, swapped, bound = best_event(candidate_events(a, b), a, b)
    >>> event.description, swapped, round(bound, 2)
    ('output[0] > 1.313', True, 0.93)
    """
    events = [as_event(e) for e in events]
    if not events:
        raise ValueError("events must not be empty")
    confidence = check_open_unit("confidence", confidence)
    delta = check_delta(delta, allow_zero=True)
    shortlist = check_int("shortlist", shortlist, minimum=1)
    _check_batches(a, b, "a", "b", nonempty=True)
    a, b = np.asarray(a), np.asarray(b)
    na, nb = a.shape[0], b.shape[0]
    ka, kb = event_counts(events, a, b)
    i, swapped, bound = _best(ka, na, kb, nb, confidence, delta, shortlist)
    return events[i], swapped, bound


def _best(ka: np.ndarray, na: int, kb: np.ndarray, nb: int, confidence: float, delta: float,
          shortlist: int) -> tuple[int, bool, float]:
    """Index, order and lower bound of the best event from its hit counts (see :func:`best_event`)."""
    z = float(stats.norm.isf((1 - confidence) / 4))
    best = (-np.inf, 0, False)
    for swapped, (k1, n1, k2, n2) in enumerate([(ka, na, kb, nb), (kb, nb, ka, na)]):
        p1, p2 = k1 / n1, np.maximum(k2, 1) / n2
        with np.errstate(divide="ignore", invalid="ignore"):
            approx = np.log(np.maximum(p1 - delta, 1e-300)) - np.log(p2) - z * np.sqrt(
                (1 - p1) / np.maximum(k1, 1) + (1 - p2) / np.maximum(k2, 1))
        approx = np.where(p1 > delta, approx, -np.inf)
        top = np.argsort(-approx, kind="stable")[:shortlist]
        exact = privacy_loss_interval(k1[top], n1, k2[top], n2, confidence=confidence, delta=delta)[0]
        i = int(np.argmax(exact))
        if exact[i] > best[0] or (best[0] == -np.inf and swapped == 0):
            best = (float(exact[i]), int(top[i]), bool(swapped))
    return best[1], best[2], best[0]
