"""Events: the sets of outputs S whose probabilities under two neighbouring inputs an audit compares.

An event is a callable on a batch of outputs (first axis = samples) returning one
truth value per sample, and has a readable ``description``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


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


#: Any of the event types (a plain callable is turned into a :class:`PredicateEvent` by :func:`as_event`).
Event = ThresholdEvent | OutputEvent | PredicateEvent


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


def event_hits(event, outputs) -> np.ndarray:
    """Boolean array: which of the stacked ``outputs`` (first axis = samples) fall in ``event``."""
    return _indicator(as_event(event), outputs)
