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

from dpviz.validation import check_array, check_bool, check_callable, check_int, check_real

#: Boolean array with one entry per sample: which samples fall in an event.
_Hits = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class ThresholdEvent:
    """The event ``output[coordinate] > threshold`` (``above=True``) or ``<= threshold`` (``above=False``).

    Parameters
    ----------
    coordinate : int
        Index into each output flattened per sample, >= 0 (0 for a scalar output).  An audit refuses
        a coordinate the mechanism's outputs do not have.
    threshold : float
        The cut point t, a finite real number.
    above : bool
        True for ``output[coordinate] > t``, False for ``output[coordinate] <= t``.

    Raises
    ------
    TypeError
        If ``coordinate`` is not an integer, ``threshold`` not a real number or ``above`` not a bool.
    ValueError
        If ``coordinate`` is negative or ``threshold`` is NaN or infinite.

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "coordinate", check_int("coordinate", self.coordinate, minimum=0))
        object.__setattr__(self, "threshold", check_real("threshold", self.threshold))
        object.__setattr__(self, "above", check_bool("above", self.above))

    @classmethod
    def _trusted(cls, coordinate: int, threshold: float, above: bool) -> ThresholdEvent:
        """The event from values known to be valid (an int >= 0, a finite float, a bool), unchecked.

        The event search builds thousands of candidates from sorted outputs; checking each costs more
        than counting its hits.
        """
        ev = object.__new__(cls)
        object.__setattr__(ev, "coordinate", coordinate)
        object.__setattr__(ev, "threshold", threshold)
        object.__setattr__(ev, "above", above)
        return ev

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
        The output, flattened per sample, that the event consists of: at least one finite
        number (a list or 1-D array is stored as a tuple).  An audit refuses a value whose
        length differs from the number of coordinates of the mechanism's outputs.

    Raises
    ------
    TypeError
        If ``value`` does not hold numbers.
    ValueError
        If ``value`` is empty, not flat, or holds NaN or inf.

    Examples
    --------
    >>> ev = OutputEvent((1, 0))
    >>> ev([[1, 0], [1, 1], [1, 0]]).tolist()
    [True, False, True]
    >>> ev.description
    'output == (1,0)'
    """

    value: tuple[Any, ...]

    def __post_init__(self) -> None:
        value = self.value
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
            raise TypeError(f"value must be a tuple of numbers (one per output coordinate), got {value!r} "
                            f"of type {type(value).__name__}")
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"value must be a tuple of numbers (one per output coordinate), got {value!r}")
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"value must be a flat, non-empty tuple of numbers (one per output coordinate), "
                             f"got {value!r}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"value must hold finite numbers (outputs are finite, so it could never match), "
                             f"got {value!r}")
        if not isinstance(value, tuple):
            object.__setattr__(self, "value", tuple(arr.tolist()))

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

    Raises
    ------
    TypeError
        If ``predicate`` is not callable or ``name`` is not a str.  What the predicate returns is checked
        where the event is evaluated (one True/False per sample; NaN is refused, not counted as a hit).

    Examples
    --------
    >>> import numpy as np
    >>> ev = PredicateEvent(lambda y: np.abs(y) < 1, "|output| < 1")
    >>> ev(np.array([-2.0, 0.5, 3.0])).tolist()
    [False, True, False]
    """

    predicate: Callable[..., npt.ArrayLike]
    name: str = "custom event"

    def __post_init__(self) -> None:
        check_callable("predicate", self.predicate, "predicate(outputs) -> one truth value per sample")
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str (the event's description), got {self.name!r} of type "
                            f"{type(self.name).__name__}")

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
    if outputs.ndim == 1:
        return outputs[:, None]
    return outputs.reshape(outputs.shape[0], int(np.prod(outputs.shape[1:])))  # not -1: 0 samples are fine


def _check_outputs(name: str, outputs: npt.ArrayLike) -> np.ndarray:
    """Check a batch of outputs (numbers, finite, at least one axis), naming ``name``; returned unconverted."""
    check_array(name, outputs, allow_bool=True)  # a one-bit mechanism (randomized response) outputs bools
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


def _check_fits(event: Event, width: int, name: str = "event") -> None:
    """Refuse, naming ``name``, an event about coordinates that outputs of ``width`` coordinates do not have."""
    if isinstance(event, ThresholdEvent) and event.coordinate >= width:
        raise ValueError(f"{name} {event.description!r} refers to coordinate {event.coordinate}, but the outputs "
                         f"have {width} coordinate(s) per sample: coordinate must be in [0, {width - 1}]")
    if isinstance(event, OutputEvent) and len(event.value) != width:
        raise ValueError(f"{name} {event.description!r} has {len(event.value)} coordinate(s), but the outputs "
                         f"have {width} per sample: value must have length {width}")


def _indicator(event: Event, outputs: npt.ArrayLike, name: str = "event") -> _Hits:
    """Which samples fall in ``event``, checked to fit the outputs and to give one truth value per sample."""
    _check_fits(event, _as_rows(outputs).shape[1], name)
    hit = np.asarray(event(outputs))
    if hit.shape != (np.asarray(outputs).shape[0],):
        raise ValueError(f"{name} {event.description!r} must return one truth value per sample, "
                         f"got shape {hit.shape} for {np.asarray(outputs).shape[0]} samples")
    if hit.dtype != bool:
        # NaN, 0.5 or "yes" would count as a hit under astype(bool): only True/False (or 0/1) are truth values
        ok = hit.dtype.kind in "iuf" and bool(np.all((hit == 0) | (hit == 1)))
        if not ok:
            bad = hit[~((hit == 0) | (hit == 1))][0] if hit.dtype.kind in "iuf" else hit.ravel()[0]
            raise ValueError(f"{name} {event.description!r} must return True/False (or 0/1) per sample, "
                             f"got {bad!r} (dtype {hit.dtype})")
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
        If the event does not return one truth value per sample, refers to a coordinate the outputs
        do not have, or ``outputs`` holds NaN or inf.

    Examples
    --------
    >>> event_hits(ThresholdEvent(1, 0.0, above=False), [[5.0, -1.0], [5.0, 2.0]]).tolist()
    [True, False]
    """
    ev = as_event(event)
    _check_outputs("outputs", outputs)
    return _indicator(ev, outputs)
