"""The outcome of an audit: the bound, the event it rests on, the counts behind it and a verdict."""

from __future__ import annotations

from dataclasses import dataclass, field

from dpviz.audit.events import Event
from dpviz.audit.statistics import clopper_pearson, privacy_loss_interval
from dpviz.validation import check_delta, check_open_unit


@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`~dpviz.audit.epsilon_lower_bound`: a lower bound on epsilon and what it rests on.

    The bound compares the event's probability under a *numerator* dataset with
    its probability under a *denominator* dataset: ``(d, d')`` in that order, or
    ``(d', d)`` when ``swapped``.  Build one from hit counts with
    :meth:`from_counts`.

    Attributes
    ----------
    epsilon_lower : float
        Lower bound on epsilon holding with probability >= ``confidence`` (>= 0).
    epsilon_estimate : float
        Point estimate ``ln((k/n - delta) / (k'/n'))`` of the event's privacy loss.
    loss_interval : (float, float)
        Simultaneous confidence interval of the event's privacy loss.
    event : ThresholdEvent, OutputEvent or PredicateEvent
        The event S measured on the confirmation batch.
    swapped : bool
        False: the bound compares ``P[M(d) in S]`` to ``P[M(d') in S]``; True: the reverse.
    counts : (int, int)
        Hits of S in the confirmation batch under the numerator and the denominator dataset.
    samples : (int, int)
        Confirmation samples under the numerator and the denominator dataset.
    p_interval : (float, float)
        Clopper-Pearson interval (level ``1 - alpha/2``) of the numerator probability.
    p_prime_interval : (float, float)
        Clopper-Pearson interval (level ``1 - alpha/2``) of the denominator probability.
    confidence : float
        Probability with which the bound holds, ``1 - alpha``.
    delta : float
        The delta of the claim (0 for pure differential privacy).
    claimed_epsilon : float or None
        The claim the bound is compared with (None: no verdict).
    search_samples : int
        Samples per dataset spent on choosing the event (0 for a given event).
    candidates : int
        Number of events tried in the search (1 for a given event).
    label : str
        Name of the audited mechanism, shown in the summary.

    Examples
    --------
    >>> from dpviz.audit import ThresholdEvent
    >>> r = AuditResult.from_counts(ThresholdEvent(0, 1.0), (5000, 1800), 10_000, claimed_epsilon=0.5)
    >>> round(r.epsilon_lower, 3), r.violation
    (0.951, True)
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

    @classmethod
    def from_counts(cls, event: Event, counts: tuple[int, int], samples: int, *, swapped: bool = False,
                    confidence: float = 0.95, delta: float = 0.0, claimed_epsilon: float | None = None,
                    search_samples: int = 0, candidates: int = 1, label: str = "") -> AuditResult:
        """The result of measuring ``event`` with ``counts`` hits among ``samples`` samples per dataset.

        Computes the privacy-loss interval (:func:`~dpviz.audit.privacy_loss_interval`)
        and both Clopper-Pearson intervals at level ``1 - alpha/2``; the bound is
        the interval's lower end, floored at 0.

        Parameters
        ----------
        event : ThresholdEvent, OutputEvent or PredicateEvent
            The measured event.
        counts : (int, int)
            _Hits under the numerator and the denominator dataset.
        samples : int
            Samples per dataset, >= 1.
        swapped : bool
            Whether the numerator dataset is d' (see the class docstring).
        confidence : float
            In (0, 1).
        delta : float
            The delta of the claim, in [0, 1).
        claimed_epsilon : float, optional
            The claim, recorded for the verdict.
        search_samples : int
            Samples per dataset spent on choosing the event.
        candidates : int
            Number of events tried in the search.
        label : str
            Name of the audited mechanism.

        Returns
        -------
        AuditResult
            The bound, the intervals and the bookkeeping.

        Raises
        ------
        ValueError
            If ``confidence`` is not in (0, 1), ``delta`` not in [0, 1), or the
            counts are not integers in ``[0, samples]``.

        Examples
        --------
        >>> from dpviz.audit import ThresholdEvent
        >>> r = AuditResult.from_counts(ThresholdEvent(0, 1.0), (500, 200), 1000)
        >>> r.loss_interval[0] < r.epsilon_estimate < r.loss_interval[1]
        True
        """
        conf = check_open_unit("confidence", confidence)
        delta = check_delta(delta, allow_zero=True)
        k1, k2 = counts
        lo, est, hi = privacy_loss_interval(k1, samples, k2, samples, confidence=conf, delta=delta)
        half = 1.0 - (1.0 - conf) / 2.0
        p_int = clopper_pearson(k1, samples, half)
        q_int = clopper_pearson(k2, samples, half)
        return cls(
            epsilon_lower=max(0.0, float(lo)), epsilon_estimate=float(est), loss_interval=(float(lo), float(hi)),
            event=event, swapped=swapped, counts=(k1, k2), samples=(samples, samples),
            p_interval=(float(p_int[0]), float(p_int[1])), p_prime_interval=(float(q_int[0]), float(q_int[1])),
            confidence=conf, delta=delta, claimed_epsilon=claimed_epsilon, search_samples=search_samples,
            candidates=candidates, label=label,
        )

    @property
    def violation(self) -> bool | None:
        """True when the bound exceeds the claimed epsilon (the claim is disproved); None without a claim."""
        if self.claimed_epsilon is None:
            return None
        return bool(self.epsilon_lower > self.claimed_epsilon)

    def summary(self) -> str:
        """A few lines a student can read: event, counts, bound, verdict.

        Returns
        -------
        str
            The event, both hit frequencies, the bound at its confidence, and the
            verdict on the claim when there is one.

        Examples
        --------
        >>> from dpviz.audit import ThresholdEvent
        >>> r = AuditResult.from_counts(ThresholdEvent(0, 1.0), (500, 200), 1000, claimed_epsilon=1.0)
        >>> print(r.summary().splitlines()[-1])
          claimed epsilon 1: no violation found (proves nothing)
        """
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
