"""An empirical privacy auditor: a statistical lower bound on a mechanism's epsilon.

Differential privacy promises, for neighbouring datasets D, D' and every set of
outputs S, ``P[M(D) in S] <= e^eps P[M(D') in S] + delta``.  So *one* event S
with ``p = P[M(D) in S]`` and ``p' = P[M(D') in S]`` shows

    ``eps >= ln((p - delta) / p')``.

The auditor estimates p and p' from seeded samples.  Exact Clopper-Pearson
intervals ``[p_lo, p_hi]`` and ``[p'_lo, p'_hi]``, each at level
``1 - alpha/2`` (Bonferroni: both hold together with probability at least
``1 - alpha``, ``alpha = 1 - confidence``), turn this into a bound that holds
with the chosen confidence whatever the mechanism:

    ``eps >= ln((p_lo - delta) / p'_hi)``   (reported as ``epsilon_lower``, at least 0).

If this exceeds the claimed epsilon, the claim is *disproved* (up to a chance of
alpha of a false alarm).  A bound below the claim proves nothing: the right
event may not have been tried, or the samples were too few (power).

**Search mode** (``event=None`` or a list of events): a first batch of samples
is used to pick the most damaging event (thresholds on every output
coordinate at many quantiles, both directions, both orders of D and D', and
-- for discrete outputs -- every observed output value); the pick is then
measured on a *fresh* batch, so the bound keeps its confidence despite the
search ([DWWZK18]_, [BGDCG18]_).

References
----------
.. [CP34] C. J. Clopper, E. S. Pearson. "The Use of Confidence or Fiducial Limits
   Illustrated in the Case of the Binomial." Biometrika 26(4), 1934.
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer. "Detecting
   Violations of Differential Privacy." CCS 2018 (StatDP).
.. [BGDCG18] B. Bichsel, T. Gehr, D. Drachsler-Cohen, P. Tsankov, M. Vechev.
   "DP-Finder: Finding Differential Privacy Violations by Sampling and
   Optimization." CCS 2018.
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea. "Auditing Differentially Private
   Machine Learning: How Private is Private SGD?" NeurIPS 2020 (the
   Clopper-Pearson epsilon lower bound with delta).
.. [Mir12] I. Mironov. "On Significance of the Least Significant Bits for
   Differential Privacy." CCS 2012 (the attack on floating-point Laplace noise).
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015, Section 4.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, Union

import numpy as np
from scipy import stats

from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_choice,
    check_counts,
    check_delta,
    check_int,
    check_open_unit,
    check_positive,
)

__all__ = [
    "ThresholdEvent",
    "OutputEvent",
    "PredicateEvent",
    "AuditResult",
    "NeighbourPair",
    "clopper_pearson",
    "privacy_loss_interval",
    "epsilon_lower_bound",
    "candidate_events",
    "check_neighbours",
    "histogram_pair",
    "sum_pair",
    "query_pair",
    "statdp_x_pair",
    "sample_outputs",
    "select_event",
    "event_hits",
    "event_counts",
    "best_event",
    "as_event",
    "numpy_laplace_reachable",
    "mironov_event",
]

#: A mechanism as the auditor calls it: ``mechanism(data, rng=generator, size=k)`` -> array with k rows.
Mechanism = Callable[..., Any]
RELATIONS = ("histogram", "records", "query_answers")


# =========================================================================== events
@dataclass(frozen=True)
class ThresholdEvent:
    """The event ``output[coordinate] > threshold`` (``above=True``) or ``<= threshold`` (``above=False``).

    ``coordinate`` indexes the output flattened per sample (0 for a scalar output).
    """

    coordinate: int
    threshold: float
    above: bool = True

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        col = _as_rows(outputs)[:, self.coordinate]
        return col > self.threshold if self.above else col <= self.threshold

    @property
    def description(self) -> str:
        """A readable statement of the event."""
        return f"output[{self.coordinate}] {'>' if self.above else '<='} {self.threshold:.4g}"


@dataclass(frozen=True)
class OutputEvent:
    """The event that the whole output equals ``value`` (for mechanisms with discrete outputs, e.g. SVT)."""

    value: tuple

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        rows = _as_rows(outputs)
        return np.all(rows == np.asarray(self.value, dtype=rows.dtype), axis=1)

    @property
    def description(self) -> str:
        """A readable statement of the event."""
        vals = ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in self.value)
        return f"output == ({vals})"


@dataclass(frozen=True)
class PredicateEvent:
    """Any event given as a vectorised predicate ``fn(outputs) -> bool array`` (one entry per sample)."""

    predicate: Callable[[np.ndarray], np.ndarray]
    name: str = "custom event"

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return self.predicate(outputs)

    @property
    def description(self) -> str:
        """The event's name."""
        return self.name


Event = Union[ThresholdEvent, OutputEvent, PredicateEvent]


def _as_rows(outputs: np.ndarray) -> np.ndarray:
    outputs = np.asarray(outputs)
    return outputs.reshape(outputs.shape[0], -1) if outputs.ndim != 1 else outputs[:, None]


def as_event(event: Any, name: str = "event") -> Event:
    """Return ``event`` as an event object (a plain callable becomes a :class:`PredicateEvent`)."""
    if isinstance(event, (ThresholdEvent, OutputEvent, PredicateEvent)):
        return event
    if callable(event):
        return PredicateEvent(event, getattr(event, "__name__", "custom event"))
    raise TypeError(f"{name} must be a ThresholdEvent, OutputEvent, PredicateEvent or a callable, "
                    f"got {type(event).__name__}")


def _indicator(event: Event, outputs: np.ndarray) -> np.ndarray:
    hit = np.asarray(event(outputs))
    if hit.shape != (np.asarray(outputs).shape[0],):
        raise ValueError(f"event {event.description!r} must return one truth value per sample, "
                         f"got shape {hit.shape} for {np.asarray(outputs).shape[0]} samples")
    return hit.astype(bool)


# =========================================================================== statistics
def clopper_pearson(k, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Exact two-sided Clopper-Pearson interval for a binomial proportion ([CP34]_).

    With ``a = 1 - confidence``: ``lower = Beta(a/2; k, n - k + 1)`` quantile (0 when
    k = 0) and ``upper = Beta(1 - a/2; k + 1, n - k)`` quantile (1 when k = n).  The
    interval covers the true proportion with probability at least ``confidence``
    for every true proportion (it is conservative, never anti-conservative).

    Parameters
    ----------
    k, n : int or array_like of int
        Successes and trials, ``0 <= k <= n``, ``n >= 1`` (broadcast together).
    confidence : float
        In (0, 1).

    Returns
    -------
    (lower, upper) : arrays of the broadcast shape

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 10, 0.95)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.3085)
    """
    conf = check_open_unit("confidence", confidence)
    k = check_array("k", k)
    n = check_array("n", n)
    if np.any(n < 1) or np.any(n != np.round(n)):
        raise ValueError(f"n must hold integers >= 1, got {n.ravel()[:5].tolist()}")
    if np.any(k < 0) or np.any(k > n) or np.any(k != np.round(k)):
        raise ValueError("k must hold integers with 0 <= k <= n")
    k, n = np.broadcast_arrays(k, n)
    a = 1.0 - conf
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(k > 0, stats.beta.ppf(a / 2, np.maximum(k, 1), n - k + 1), 0.0)
        upper = np.where(k < n, stats.beta.ppf(1 - a / 2, k + 1, np.maximum(n - k, 1)), 1.0)
    return lower, upper


def privacy_loss_interval(k, n, k_prime, n_prime, *, confidence: float = 0.95,
                          delta: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Simultaneous confidence interval for an event's privacy loss ``ln((p - delta) / p')``.

    ``p`` and ``p'`` are the event's probabilities under D and D', estimated by
    ``k/n`` and ``k'/n'``.  Each gets a Clopper-Pearson interval at level
    ``1 - alpha/2`` with ``alpha = 1 - confidence`` (Bonferroni), so with
    probability at least ``confidence``

        ``ln((p_lo - delta) / p'_hi)  <=  ln((p - delta) / p')  <=  ln((p_hi - delta) / p'_lo)``.

    If M is (eps, delta)-DP then ``ln((p - delta)/p') <= eps``, so the lower end is a
    lower bound on eps ([JUO20]_).  Vectorised over the inputs.

    Returns
    -------
    lower, estimate, upper : arrays
        ``estimate = ln((k/n - delta) / (k'/n'))``; ``-inf`` where the numerator is
        <= 0, ``+inf`` where the denominator is 0 (lower may be ``-inf``).
    """
    conf = check_open_unit("confidence", confidence)
    delta = check_delta(delta, allow_zero=True)
    half = 1.0 - (1.0 - conf) / 2.0
    p_lo, p_hi = clopper_pearson(k, n, half)
    q_lo, q_hi = clopper_pearson(k_prime, n_prime, half)
    k, n, kp, np_ = (np.asarray(v, dtype=float) for v in (k, n, k_prime, n_prime))
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.where(p_lo > delta, np.log(np.maximum(p_lo - delta, 1e-300)) - np.log(q_hi), -np.inf)
        est_num = k / n - delta
        estimate = np.where(est_num > 0, np.log(np.maximum(est_num, 1e-300)) - np.log(kp / np_), -np.inf)
        estimate = np.where((est_num > 0) & (kp == 0), np.inf, estimate)
        upper = np.where(p_hi > delta, np.log(np.maximum(p_hi - delta, 1e-300)) - np.log(q_lo), -np.inf)
        upper = np.where((p_hi > delta) & (q_lo == 0), np.inf, upper)
    return lower, estimate, upper


# =========================================================================== results
@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`epsilon_lower_bound`.

    Attributes
    ----------
    epsilon_lower : float
        Lower bound on epsilon holding with probability >= ``confidence`` (>= 0).
    epsilon_estimate : float
        Point estimate ``ln((k/n - delta) / (k'/n'))`` of the event's privacy loss.
    loss_interval : (float, float)
        Simultaneous confidence interval of the event's privacy loss.
    event : the event S measured on the confirmation batch
    swapped : bool
        False: the bound compares ``P[M(d) in S]`` to ``P[M(d') in S]``; True: the reverse.
    counts, samples : (int, int)
        Hits of S and samples, under (d, d') of the confirmation batch.
    p_interval, p_prime_interval : (float, float)
        Clopper-Pearson intervals (level ``1 - alpha/2`` each) of the two probabilities.
    confidence, delta : float
    claimed_epsilon : float or None
    search_samples : int
        Samples per dataset spent on choosing the event (0 for a given event).
    candidates : int
        Number of events tried in the search (1 for a given event).
    """

    epsilon_lower: float
    epsilon_estimate: float
    loss_interval: tuple[float, float]
    event: Event
    swapped: bool
    counts: tuple[int, int]
    samples: tuple[int, int]
    p_interval: tuple[float, float]
    p_prime_interval: tuple[float, float]
    confidence: float
    delta: float
    claimed_epsilon: float | None = None
    search_samples: int = 0
    candidates: int = 1
    label: str = field(default="")

    @property
    def violation(self) -> bool | None:
        """True when the bound exceeds the claimed epsilon (the claim is disproved); None without a claim."""
        if self.claimed_epsilon is None:
            return None
        return bool(self.epsilon_lower > self.claimed_epsilon)

    def summary(self) -> str:
        """A few lines a student can read: event, counts, bound, verdict."""
        first, second = ("d'", "d") if self.swapped else ("d", "d'")
        lines = [
            f"audit{(' of ' + self.label) if self.label else ''}: event {self.event.description}",
            f"  P[M({first}) in S]: {self.counts[0]}/{self.samples[0]} = {self.counts[0] / self.samples[0]:.5f}, "
            f"P[M({second}) in S]: {self.counts[1]}/{self.samples[1]} = {self.counts[1] / self.samples[1]:.5f}",
            f"  epsilon >= {self.epsilon_lower:.4f} with {100 * self.confidence:g} % confidence "
            f"(estimate {self.epsilon_estimate:.4f}, delta = {self.delta:g})",
        ]
        if self.claimed_epsilon is not None:
            verdict = "VIOLATION: the claim is disproved" if self.violation else "no violation found (proves nothing)"
            lines.append(f"  claimed epsilon {self.claimed_epsilon:g}: {verdict}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


# =========================================================================== neighbours
@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring inputs and how they are neighbours (``relation`` is one of :data:`RELATIONS`)."""

    d: np.ndarray
    d_prime: np.ndarray
    relation: str
    description: str


def check_neighbours(d, d_prime, relation: str, *, sensitivity: float = 1.0) -> None:
    """Raise ``ValueError`` unless ``d`` and ``d_prime`` are neighbours under ``relation``.

    * ``"histogram"``: count vectors of the same shape with ``||d - d'||_1 = 1``
      (one record added or removed).
    * ``"records"``: arrays of records (1-D values or 2-D rows) where one is the
      other plus exactly one record.
    * ``"query_answers"``: vectors of answers of queries each of sensitivity
      ``sensitivity``: ``max_i |d_i - d'_i| <= sensitivity`` (the SVT setting).
    """
    check_choice("neighbours", relation, RELATIONS)
    if relation == "histogram":
        a, b = check_counts("d", d, ndim=None), check_counts("d_prime", d_prime, ndim=None)
        if a.shape != b.shape:
            raise ValueError(f"d and d_prime must have the same shape, got {a.shape} and {b.shape}")
        dist = float(np.abs(a - b).sum())
        if dist != 1.0:
            raise ValueError(f"d and d_prime must differ by one record (L1 distance 1), got distance {dist:g}")
    elif relation == "records":
        a, b = check_array("d", d, ndim=(1, 2)), check_array("d_prime", d_prime, ndim=(1, 2))
        if a.ndim != b.ndim or a.shape[1:] != b.shape[1:]:
            raise ValueError(f"d and d_prime must hold records of the same shape, got {a.shape} and {b.shape}")
        big, small = (a, b) if len(a) > len(b) else (b, a)
        ca = Counter(map(lambda r: tuple(np.atleast_1d(r)), big))
        cb = Counter(map(lambda r: tuple(np.atleast_1d(r)), small))
        if len(big) - len(small) != 1 or cb - ca:
            raise ValueError(f"d and d_prime must differ by exactly one added record, got {len(a)} and {len(b)} "
                             "records" + ("" if len(big) - len(small) != 1 else " that differ in more than one"))
    else:
        s = check_positive("sensitivity", sensitivity)
        a, b = check_array("d", d, ndim=1), check_array("d_prime", d_prime, ndim=1)
        if a.shape != b.shape:
            raise ValueError(f"d and d_prime must have the same shape, got {a.shape} and {b.shape}")
        gap = float(np.max(np.abs(a - b))) if a.size else 0.0
        if gap > s:
            raise ValueError(f"d and d_prime must differ by at most sensitivity={s:g} per query, got {gap:g}")


def histogram_pair(counts, cell: int = 0, *, add: bool = True) -> NeighbourPair:
    """Counts ``d`` and ``d'`` = ``d`` with one record added to (or removed from) ``cell``."""
    counts = check_counts("counts", counts)
    cell = check_int("cell", cell, minimum=0, maximum=counts.size - 1)
    other = counts.copy()
    if add:
        other[cell] += 1
    else:
        if counts[cell] < 1:
            raise ValueError(f"cell {cell} is empty: no record to remove")
        other[cell] -= 1
    verb = "added to" if add else "removed from"
    return NeighbourPair(counts, other, "histogram", f"one record {verb} cell {cell}")


def sum_pair(values, record: float) -> NeighbourPair:
    """Records ``d`` and ``d'`` = ``d`` plus one record of value ``record`` (use a large one, e.g. the clip bound)."""
    values = check_array("values", values, ndim=1)
    record = float(check_array("record", record, ndim=0))
    return NeighbourPair(values, np.append(values, record), "records", f"one record of value {record:g} added")


def query_pair(answers, answers_prime, description: str = "") -> NeighbourPair:
    """Answer vectors of sensitivity-1 queries on neighbouring data (checked: ``max |a - a'| <= 1``)."""
    a, b = check_array("answers", answers, ndim=1), check_array("answers_prime", answers_prime, ndim=1)
    check_neighbours(a, b, "query_answers")
    return NeighbourPair(a, b, "query_answers", description or "query answers moving by at most 1")


def statdp_x_pair(m: int = 10) -> NeighbourPair:
    """StatDP's "X" pair of query answers: ``(1,..,1, 0,..,0)`` and ``(0,..,0, 1,..,1)`` (m/2 each).

    Every sensitivity-1 query moves by 1, half up and half down ([DWWZK18]_); the
    event "first half above, second half below" exposes GPTT.
    """
    m = check_int("m", m, minimum=2)
    if m % 2:
        raise ValueError(f"m must be even, got {m}")
    a = np.repeat([1.0, 0.0], m // 2)
    return NeighbourPair(a, 1.0 - a, "query_answers", f"StatDP X pair, {m} queries")


# =========================================================================== Mironov's attack
_TWO53 = 9007199254740992.0


def numpy_laplace_reachable(outputs, loc: float, scale: float) -> np.ndarray:
    """Whether each float in ``outputs`` can be produced by ``numpy.random.Generator.laplace(loc, scale)``.

    numpy draws ``U = k / 2^53`` (k a 53-bit integer) and returns
    ``loc - scale * log(2 - U - U)`` if ``U >= 1/2``, else ``loc + scale * log(U + U)``,
    in double precision.  Only about 2^53 doubles are reachable, and *which*
    ones depends on ``loc``: an output that the sampler centred at ``loc`` cannot
    produce proves the true answer was not ``loc`` ([Mir12]_).  For each output we
    invert the formula, and try the few integers k around the inverse, recomputing
    the sampler's arithmetic exactly (``math.log`` is the C library ``log`` numpy
    calls).  Pure Python: about 5 microseconds per output.

    References
    ----------
    .. [Mir12] I. Mironov. "On Significance of the Least Significant Bits for
       Differential Privacy." CCS 2012.
    """
    loc = float(check_array("loc", loc, ndim=0))
    scale = check_positive("scale", scale)
    ys = check_array("outputs", outputs).ravel()
    out = np.zeros(ys.size, dtype=bool)
    for i, y in enumerate(ys.tolist()):
        u = 1.0 - math.exp((loc - y) / scale) / 2.0 if y >= loc else math.exp((y - loc) / scale) / 2.0
        k0 = int(round(u * _TWO53))
        for k in range(max(k0 - 4, 1), min(k0 + 5, 2**53)):
            v = k / _TWO53
            val = loc - scale * math.log(2.0 - v - v) if v >= 0.5 else loc + scale * math.log(v + v)
            if val == y:
                out[i] = True
                break
    return out.reshape(np.shape(outputs))


def mironov_event(loc: float, scale: float, coordinate: int = 0) -> PredicateEvent:
    """The event "output[coordinate] could NOT come from numpy's float Laplace sampler centred at ``loc``".

    Under a dataset whose true answer is ``loc`` it has probability 0; under a
    neighbour it can have probability near 1, so the audit's bound is limited only
    by the number of samples ([Mir12]_): the textbook float Laplace mechanism is not
    epsilon-DP for any epsilon.  (Integer-valued mechanisms, e.g.
    ``laplace(..., sampler="discrete")``, have no such holes.)
    """
    coordinate = check_int("coordinate", coordinate, minimum=0)

    def unreachable(outputs: np.ndarray) -> np.ndarray:
        return ~numpy_laplace_reachable(_as_rows(outputs)[:, coordinate], loc, scale)

    return PredicateEvent(unreachable, f"output[{coordinate}] unreachable by float Laplace centred at {loc:g}")


# =========================================================================== sampling
def sample_outputs(mechanism: Mechanism, data, size: int, rng: RngLike = None) -> np.ndarray:
    """Call ``mechanism(data, rng=generator, size=size)`` and check it returned ``size`` samples (rows)."""
    size = check_int("samples", size, minimum=1)
    out = np.asarray(mechanism(data, rng=as_generator(rng), size=size))
    if out.ndim == 0 or out.shape[0] != size:
        raise ValueError(f"mechanism must return `size` samples stacked on the first axis: asked for {size}, "
                         f"got shape {out.shape}")
    return out


def _count(mechanism: Mechanism, data, event: Event, n: int, gen: np.random.Generator) -> int:
    """Hits of ``event`` in n fresh samples, drawn in chunks of at most ~5e6 numbers."""
    first = min(n, 10_000)
    out = sample_outputs(mechanism, data, first, gen)
    hits = int(_indicator(event, out).sum())
    width = max(1, out[0].size)
    chunk = max(1_000, 5_000_000 // width)
    done = first
    while done < n:
        k = min(chunk, n - done)
        hits += int(_indicator(event, sample_outputs(mechanism, data, k, gen)).sum())
        done += k
    return hits


#: Quantile levels of the threshold search: a fine grid plus the tails (where Gaussian-type losses are large).
_LEVELS = np.unique(np.concatenate([np.linspace(0.005, 0.995, 199),
                                    [1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 3e-3],
                                    1 - np.array([1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 3e-3])]))


def candidate_events(outputs, outputs_prime, *, max_atoms: int = 4096) -> list[Event]:
    """The event family searched by default, built from two batches of outputs.

    * Per output coordinate: ``> t`` and ``<= t`` for t at the pooled sample's
      quantiles (0.01 %..99.99 %), or at every observed value when the coordinate
      takes at most 256 values.
    * When the whole output takes at most ``max_atoms`` distinct values (e.g.
      SVT's above/below vectors): ``output == v`` for every observed v.
    """
    a, b = _as_rows(outputs), _as_rows(outputs_prime)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"outputs have {a.shape[1]} and {b.shape[1]} coordinates")
    pooled = np.concatenate([a, b])
    events = []
    for j in range(pooled.shape[1]):
        col = np.sort(pooled[:, j])
        uniq = col[np.concatenate([[True], col[1:] != col[:-1]])]
        if uniq.size <= 256:
            ts = uniq[:-1]
        else:  # order statistics at the quantile levels (the sample quantiles, without interpolation)
            ts = np.unique(col[np.minimum((_LEVELS * col.size).astype(np.int64), col.size - 1)])
        events += [ThresholdEvent(j, float(t), above) for t in ts for above in (True, False)]
    table = _atom_table(a, b, max_atoms)
    if table is not None:
        events += [OutputEvent(tuple(r.tolist())) for r in table[0]]
    return events


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


def event_counts(events: Sequence[Event], a, b) -> tuple[np.ndarray, np.ndarray]:
    """Hit counts of every event in two batches of outputs ``a`` and ``b`` (first axis = samples).

    Threshold events are counted by sorting each coordinate once and one
    ``searchsorted`` per coordinate, output events from one table of distinct
    outputs, other events directly.
    """
    events = [as_event(e) for e in events]
    a, b = np.asarray(a), np.asarray(b)
    ka = np.empty(len(events), dtype=np.int64)
    kb = np.empty(len(events), dtype=np.int64)
    ra, rb = _as_rows(a), _as_rows(b)
    thr = [i for i, ev in enumerate(events) if isinstance(ev, ThresholdEvent)]
    if thr:
        idx = np.array(thr)
        coords = np.array([events[i].coordinate for i in thr])
        ts = np.array([events[i].threshold for i in thr], dtype=float)
        above = np.array([events[i].above for i in thr])
        for j in np.unique(coords):
            sel = coords == j
            below_a = np.searchsorted(np.sort(ra[:, j]), ts[sel], side="right")
            below_b = np.searchsorted(np.sort(rb[:, j]), ts[sel], side="right")
            ka[idx[sel]] = np.where(above[sel], ra.shape[0] - below_a, below_a)
            kb[idx[sel]] = np.where(above[sel], rb.shape[0] - below_b, below_b)
    rest = [i for i, ev in enumerate(events) if not isinstance(ev, ThresholdEvent)]
    table = _atom_table(ra, rb) if any(isinstance(events[i], OutputEvent) for i in rest) else None
    atoms = {tuple(v.tolist()): (int(x), int(y)) for v, x, y in zip(*table)} if table is not None else {}
    for i in rest:
        ev = events[i]
        if table is not None and isinstance(ev, OutputEvent) and len(ev.value) == ra.shape[1]:
            ka[i], kb[i] = atoms.get(tuple(np.asarray(ev.value, dtype=ra.dtype).tolist()), (0, 0))
        else:
            ka[i] = int(_indicator(ev, a).sum())
            kb[i] = int(_indicator(ev, b).sum())
    return ka, kb


# =========================================================================== the auditor
def select_event(mechanism: Mechanism, d, d_prime, events=None, *, samples: int = 10_000,
                 confidence: float = 0.95, delta: float = 0.0, rng: RngLike = None) -> tuple[Event, bool, int]:
    """Search phase: the event (and order of the pair) with the largest lower bound on a batch of samples.

    Draws ``samples`` outputs under d and under d', scores every event of
    ``events`` (None: :func:`candidate_events` of the batch) in both orders by
    the lower end of :func:`privacy_loss_interval` (:func:`best_event`), and returns
    ``(event, swapped, number of candidates)``.  The batch is then spent: the
    chosen event must be measured on fresh samples for the bound to hold.
    """
    samples = check_int("search_samples", samples, minimum=1)
    gen = as_generator(rng)
    if events is not None:
        if isinstance(events, (list, tuple)) and len(events) == 0:
            raise ValueError("event must not be an empty list")
        events = [as_event(e, "event[i]") for e in events]
    a = sample_outputs(mechanism, d, samples, gen)
    b = sample_outputs(mechanism, d_prime, samples, gen)
    if events is None:
        events = candidate_events(a, b)
    event, swapped, _ = best_event(events, a, b, confidence=confidence, delta=delta)
    return event, swapped, len(events)


def best_event(events: Sequence[Event], a, b, *, confidence: float = 0.95, delta: float = 0.0,
               shortlist: int = 64) -> tuple[Event, bool, float]:
    """The event and order with the largest Clopper-Pearson lower bound on the batches ``a`` (under d), ``b`` (d').

    Returns ``(event, swapped, bound)``.  To stay fast with thousands of events,
    each order first ranks the events by a normal approximation of the bound
    (``ln((p - delta)/p') - z sqrt((1-p)/k + (1-p')/k')``) and computes the exact
    bound for the best ``shortlist`` only.  The bound is computed on the batch it
    was chosen on, so it is optimistic: :func:`epsilon_lower_bound` re-measures
    the chosen event on fresh samples.
    """
    events = [as_event(e) for e in events]
    if not events:
        raise ValueError("events must not be empty")
    a, b = np.asarray(a), np.asarray(b)
    na, nb = a.shape[0], b.shape[0]
    ka, kb = event_counts(events, a, b)
    z = float(stats.norm.isf((1 - check_open_unit("confidence", confidence)) / 4))
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
    return events[best[1]], best[2], best[0]


def event_hits(event, outputs) -> np.ndarray:
    """Boolean array: which of the stacked ``outputs`` (first axis = samples) fall in ``event``."""
    return _indicator(as_event(event), outputs)


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
