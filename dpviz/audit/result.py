"""The outcome of an audit: the bound, the event it rests on, the counts behind it and a verdict."""

from __future__ import annotations

from dataclasses import dataclass, field

from dpviz.audit.events import Event


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
