"""Events: the sets of outputs S whose probabilities under two neighbouring inputs an audit compares.

An event is a callable on a batch of outputs (first axis = samples) that returns
one truth value per sample, and has a readable ``description``.  Three kinds
cover the lecture: a threshold on one output coordinate, one exact output
value (for discrete outputs such as SVT's answers), and any vectorised
predicate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dpviz.validation import check_array

#: Boolean array with one entry per sample: which samples fall in an event.
_Hits = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class ThresholdEvent:
    """The event ``output[coordinate] > threshold`` (``above=True``) or ``<= threshold`` (``above=False``).

    Parameters
    ----------
    coordinate : int
        Index into each output flattened per sample (0 for a scalar output).
    threshold : float
        The cut point t.
    above : bool
        True for ``output[coordinate] > t``, False for ``output[coordinate] <= t``.

    Examples
    --------
    >>> ev = ThresholdEvent(0, 1.0)
    >>> ev([0.5, 1.5, 2.0]).tolist()
    [False, True, True]
    >>> ev.description
    'output[0] > 1'
    """

    coordinate: int
    threshold: float
    above: bool = True

    def __call__(self, outputs: npt.ArrayLike) -> _Hits:
        col = _as_rows(outputs)[:, self.coordinate]
        return col > self.threshold if self.above else col <= self.threshold

    @property
    def description(self) -> str:
        """A readable statement of the event."""
        return f"output[{self.coordinate}] {'>' if self.above else '<='} {self.threshold:.4g}"


@dataclass(frozen=True)
class OutputEvent:
    """The event that the whole output equals ``value`` (for mechanisms with discrete outputs, e.g. SVT).

    Parameters
    ----------
    value : tuple
        The output, flattened per sample, that the event consists of.

    Examples
    --------
    >>> ev = OutputEvent((1, 0))
    >>> ev([[1, 0], [1, 1], [1, 0]]).tolist()
    [True, False, True]
    >>> ev.description
    'output == (1,0)'
    """

    value: tuple[Any, ...]

    def __call__(self, outputs: npt.ArrayLike) -> _Hits:
        rows = _as_rows(outputs)
        return np.all(rows == np.asarray(self.value, dtype=rows.dtype), axis=1)

    @property
    def description(self) -> str:
        """A readable statement of the event."""
        vals = ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in self.value)
        return f"output == ({vals})"


@dataclass(frozen=True)
class PredicateEvent:
    """Any event given as a vectorised predicate ``fn(outputs) -> bool array`` (one entry per sample).

    Parameters
    ----------
    predicate : callable
        Takes the stacked outputs (first axis = samples) and returns one truth
        value per sample.
    name : str
        The event's description, shown in audit summaries.

    Examples
    --------
    >>> import numpy as np
    >>> ev = PredicateEvent(lambda y: np.abs(y) < 1, "|output| < 1")
    >>> ev(np.array([-2.0, 0.5, 3.0])).tolist()
    [False, True, False]
    """

    predicate: Callable[..., npt.ArrayLike]
    name: str = "custom event"

    def __call__(self, outputs: npt.ArrayLike) -> npt.ArrayLike:
        return self.predicate(outputs)

    @property
    def description(self) -> str:
        """The event's name."""
        return self.name


#: Any of the event types (a plain callable is turned into a :class:`PredicateEvent` by :func:`as_event`).
Event = ThresholdEvent | OutputEvent | PredicateEvent


def _as_rows(outputs: npt.ArrayLike) -> np.ndarray:
    """The outputs as a 2-D array: one row per sample, each output flattened (a 1-D batch becomes a column)."""
    outputs = np.asarray(outputs)
    return outputs.reshape(outputs.shape[0], -1) if outputs.ndim != 1 else outputs[:, None]


def _check_outputs(name: str, outputs: npt.ArrayLike) -> np.ndarray:
    """Check a batch of outputs (numbers, finite, at least one axis), naming ``name``; returned unconverted."""
    check_array(name, outputs)
    arr = np.asarray(outputs)
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be outputs stacked on the first axis (at least 1-D), got a scalar")
    return arr


def as_event(event: Any, name: str = "event") -> Event:
    """Return ``event`` as an event object (a plain callable becomes a :class:`PredicateEvent`).

    Parameters
    ----------
    event : ThresholdEvent, OutputEvent, PredicateEvent or callable
        An event object (returned unchanged) or a vectorised predicate on the
        stacked outputs (wrapped, named after the function).
    name : str
        The argument's name, used in the error message.

    Returns
    -------
    ThresholdEvent, OutputEvent or PredicateEvent
        The event.

    Raises
    ------
    TypeError
        If ``event`` is neither an event object nor callable.

    Examples
    --------
    >>> def positive(y):
    ...     return y > 0
    >>> as_event(positive).description
    'positive'
    """
    if isinstance(event, (ThresholdEvent, OutputEvent, PredicateEvent)):
        return event
    if callable(event):
        return PredicateEvent(event, getattr(event, "__name__", "custom event"))
    raise TypeError(f"{name} must be a ThresholdEvent, OutputEvent, PredicateEvent or a callable, "
                    f"got {type(event).__name__}")


def _indicator(event: Event, outputs: npt.ArrayLike) -> _Hits:
    """Which samples fall in ``event``, checked to be one truth value per sample."""
    hit = np.asarray(event(outputs))
    if hit.shape != (np.asarray(outputs).shape[0],):
        raise ValueError(f"event {event.description!r} must return one truth value per sample, "
                         f"got shape {hit.shape} for {np.asarray(outputs).shape[0]} samples")
    return hit.astype(bool)


def event_hits(event: Any, outputs: npt.ArrayLike) -> _Hits:
    """Boolean array: which of the stacked ``outputs`` (first axis = samples) fall in ``event``.

    Parameters
    ----------
    event : ThresholdEvent, OutputEvent, PredicateEvent or callable
        The event (see :func:`as_event`).
    outputs : array_like
        Outputs of a mechanism stacked on the first axis.

    Returns
    -------
    numpy.ndarray of bool
        One entry per sample, True where the sample is in the event.

    Raises
    ------
    TypeError
        If ``event`` is not an event or a callable, or ``outputs`` is not array-like of numbers.
    ValueError
        If the event does not return one truth value per sample, or ``outputs`` holds NaN or inf.

    Examples
    --------
    >>> event_hits(ThresholdEvent(1, 0.0, above=False), [[5.0, -1.0], [5.0, 2.0]]).tolist()
    [True, False]
    """
    ev = as_event(event)
    _check_outputs("outputs", outputs)
    return _indicator(ev, outputs)
