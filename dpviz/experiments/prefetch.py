"""A cache that an explorer can warm in the background: what the next move of a control will ask for.

:func:`single_flight` decorates a pure function of hashable arguments (seeded:
the same arguments always give the same result), like :func:`functools.lru_cache`,
and adds two things:

* **one computation per key.**  A call whose key is being computed -- by another
  call or by the background thread -- waits for that computation instead of
  starting a second one, and gets the very same object;
* **warming.**  ``f.warm(keys)`` hands keys to one background thread per cached
  function, which computes them in order through the same cache; a new
  ``warm`` call replaces the keys still waiting (the one in progress finishes).
  The thread starts a key only after ``idle`` seconds without a call or a
  ``warm`` and never while a call is computing, so a user moving a control
  quickly does not share the processor with work for settings already left.

Warming never changes what a call returns: the value is the function's, computed
once, whichever thread computes it.  An error raised while warming is kept and
raised again by the call that asks for that key, exactly as a direct call would
raise it.  The thread is a daemon and ends as soon as no key waits.
"""

from __future__ import annotations

import collections
import functools
import math
import numbers
import threading
import time
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import Future
from typing import Any

__all__ = ["single_flight", "SingleFlight", "canonical"]


class SingleFlight:
    """A thread-safe LRU cache of ``fn`` with one computation per key and a background warmer.

    Made by :func:`single_flight`; call it like ``fn``.

    Parameters
    ----------
    fn : callable
        A pure function of hashable positional arguments.
    maxsize : int
        Largest number of results kept (least recently used dropped first), >= 1.
    idle : float, default 0.25
        Seconds without calls before the background thread starts a key, >= 0.

    Examples
    --------
    >>> square = SingleFlight(lambda x: x * x, maxsize=4)
    >>> square(3), square.cache_info()
    (9, (0, 1))
    >>> square(3), square.cache_info()
    (9, (1, 1))
    """

    def __init__(self, fn: Callable[..., Any], maxsize: int, idle: float = 0.25) -> None:
        if not callable(fn):
            raise TypeError(f"fn must be callable (the function to cache), got {fn!r:.60} of type {type(fn).__name__}")
        if not isinstance(maxsize, int) or isinstance(maxsize, bool) or maxsize < 1:
            raise ValueError(f"maxsize must be an integer >= 1, got {maxsize!r}")
        if not isinstance(idle, (int, float)) or isinstance(idle, bool) or not 0 <= idle < float("inf"):
            raise ValueError(f"idle must be a finite number of seconds >= 0, got {idle!r}")
        self._idle = float(idle)
        self._quiet_from = 0.0   # monotonic time from which the background thread may start a key
        self._foreground = 0     # calls computing now
        self._fn = fn
        self._maxsize = maxsize
        self._lock = threading.Lock()
        self._done: collections.OrderedDict[Hashable, Future[Any]] = collections.OrderedDict()
        self._running: dict[Hashable, Future[Any]] = {}
        self._queue: collections.deque[tuple[Any, ...]] = collections.deque()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._hits = self._misses = 0
        self._name = getattr(fn, "__name__", "function")
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any) -> Any:
        """``fn(*args)``, from the cache, from the computation in progress, or computed now."""
        with self._lock:
            self._quiet_from = time.monotonic() + self._idle
            fut = self._done.get(args)
            if fut is not None:
                self._done.move_to_end(args)
                self._hits += 1
                owner = False
            else:
                fut = self._running.get(args)
                owner = fut is None
                if fut is None:
                    fut = Future()
                    self._running[args] = fut
                    self._misses += 1
                    self._foreground += 1
                else:
                    self._hits += 1
        if not owner:
            return fut.result()
        try:
            return self._compute(args, fut)
        finally:
            with self._lock:
                self._foreground -= 1
                self._quiet_from = time.monotonic() + self._idle
                self._wake.notify()

    def _compute(self, args: tuple[Any, ...], fut: Future[Any]) -> Any:
        """Run ``fn(*args)`` into ``fut`` (owned by this thread), then file it as done."""
        try:
            fut.set_result(self._fn(*args))
        except BaseException as exc:  # noqa: BLE001 - kept for the caller, raised by fut.result()
            fut.set_exception(exc)
        with self._lock:
            self._running.pop(args, None)
            if fut.exception() is None:   # errors are not cached: a later call tries again
                self._done[args] = fut
                while len(self._done) > self._maxsize:
                    self._done.popitem(last=False)
        return fut.result()

    def warm(self, keys: Iterable[tuple[Any, ...]]) -> None:
        """Compute ``fn(*key)`` for each key in a background thread, in order, replacing keys still waiting.

        Parameters
        ----------
        keys : iterable of tuple
            Argument tuples, most wanted first.  Keys already cached or in progress are skipped.
        """
        with self._lock:
            self._queue.clear()
            self._queue.extend(tuple(k) for k in keys)
            self._quiet_from = time.monotonic() + self._idle
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._worker, name=f"dpviz-warm-{self._name}",
                                                daemon=True)
                self._thread.start()
            self._wake.notify()

    def _worker(self) -> None:
        """The background thread: one waiting key at a time, once calls are quiet; it ends when none waits."""
        while True:
            with self._lock:
                while True:
                    if not self._queue:
                        self._thread = None      # nothing to do: the thread ends (warm starts a new one)
                        return
                    wait = self._quiet_from - time.monotonic()
                    if self._foreground == 0 and wait <= 0:
                        break
                    self._wake.wait(None if self._foreground else wait)
                args = self._queue.popleft()
                if args in self._done or args in self._running:
                    continue
                fut: Future[Any] = Future()
                self._running[args] = fut
                self._misses += 1
            try:
                self._compute(args, fut)
            except BaseException:  # noqa: BLE001, S110 - kept in the future for the call that asks for it
                pass

    def cached(self, args: tuple[Any, ...]) -> bool:
        """Whether ``fn(*args)`` is in the cache now (a computation in progress does not count).

        Parameters
        ----------
        args : tuple
            The argument tuple.

        Returns
        -------
        bool
            True if a call with ``args`` would return at once from the cache.
        """
        with self._lock:
            return tuple(args) in self._done

    def pending(self) -> int:
        """Number of keys waiting for the background thread, plus those being computed.

        Returns
        -------
        int
            The count.
        """
        with self._lock:
            return len(self._queue) + len(self._running)

    def cache_info(self) -> tuple[int, int]:
        """``(hits, misses)``: calls answered from the cache or a computation in progress, and computations.

        Returns
        -------
        tuple of int
            The two counts.
        """
        with self._lock:
            return self._hits, self._misses

    def cache_clear(self) -> None:
        """Forget every cached result and every waiting key (a computation in progress still finishes)."""
        with self._lock:
            self._done.clear()
            self._queue.clear()
            self._hits = self._misses = 0


def canonical(value: float) -> float:
    """``value`` to 12 significant digits: the key a cached setting is stored under.

    A slider's next value computed in Python (to prepare it) and in the browser (when the student moves) can
    differ in the last bits; read to 12 digits both find the same cached result.

    Parameters
    ----------
    value : float
        A finite real number (of any sign).

    Returns
    -------
    float
        The number to 12 significant digits.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (a bool or a string included).
    ValueError
        If ``value`` is NaN or infinite.

    Examples
    --------
    >>> canonical(10 ** -1.01) == canonical(0.09772372209558108)
    True
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"value must be a real number, got {value!r} ({type(value).__name__})")
    if not math.isfinite(float(value)):
        raise ValueError(f"value must be finite, got {value!r}")
    return float(f"{float(value):.12g}")


def single_flight(maxsize: int = 128, idle: float = 0.25) -> Callable[[Callable[..., Any]], SingleFlight]:
    """Decorator: a :class:`SingleFlight` cache of the decorated function.

    Parameters
    ----------
    maxsize : int, default 128
        Largest number of results kept, >= 1.
    idle : float, default 0.25
        Seconds without calls before the background thread starts a key, >= 0.

    Returns
    -------
    callable
        The decorator.

    Raises
    ------
    ValueError
        If ``maxsize`` is not an integer >= 1 or ``idle`` not a finite number >= 0.

    Examples
    --------
    >>> @single_flight(maxsize=8)
    ... def cube(x):
    ...     return x ** 3
    >>> cube.warm([(2,), (3,)])      # computed in the background once calls have been quiet for 0.25 s
    >>> cube(3)                       # from the cache, the background computation, or computed now
    27
    """
    SingleFlight(lambda: None, maxsize, idle)   # refuse bad arguments now, not at the first decoration
    return lambda fn: SingleFlight(fn, maxsize, idle)
