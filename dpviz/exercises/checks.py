"""Generic checkers the lecture exercises are built from: numbers, arrays, functions and private mechanisms.

Each returns a :class:`~dpviz.exercises.Feedback`.  An unanswered exercise (``...`` or ``None``) is told so
rather than failing with a Python error; a wrong answer that matches a typical mistake gets that mistake's
hint; any other wrong answer gets the exercise's general hint.  The expected answer is never shown.
"""

from __future__ import annotations

import copy
import math
import numbers
import reprlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dpviz.exercises.feedback import Feedback
from dpviz.exercises.precision import last_digit, within

__all__ = ["NO_ANSWER", "unanswered", "real_array", "check_number", "check_array", "check_function", "check_private"]

#: The message an exercise left at ``...`` gets.
NO_ANSWER = "no answer yet: replace the ... with your answer and run the cell again."


def unanswered(answer: Any) -> bool:
    """Whether ``answer`` is the placeholder of a student notebook (``...`` or ``None``).

    Parameters
    ----------
    answer : object
        What the student passed to the checker.

    Returns
    -------
    bool
        True for ``Ellipsis`` and ``None``.

    Examples
    --------
    >>> unanswered(...), unanswered(0.0)
    (True, False)
    """
    return answer is Ellipsis or answer is None


def _as_real(answer: Any) -> float | None:
    """``answer`` as a finite float, or None if it is not a real number (bools are not numbers here)."""
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        if isinstance(answer, np.ndarray) and answer.shape == () and np.issubdtype(answer.dtype, np.number):
            answer = answer.item()
        else:
            return None
    try:
        value = float(answer)
    except OverflowError:                 # a Python int beyond the float range
        return None
    return value if math.isfinite(value) else None


_SHORT = reprlib.Repr()
_SHORT.maxother = _SHORT.maxstring = 120


def _short(obj: Any) -> str:
    """``repr(obj)`` cut to about 120 characters (a feedback line, not a matrix dump)."""
    if isinstance(obj, np.ndarray):
        return np.array2string(obj, threshold=12, edgeitems=2, precision=4).replace("\n", " ")[:120]
    if isinstance(obj, tuple):
        return "(" + ", ".join(_short(v) for v in obj) + ")"
    return _SHORT.repr(obj)


def real_array(answer: Any) -> np.ndarray | None:
    """``answer`` as a float array, or None if it holds anything but real numbers.

    Strings, bytes, bools, complex numbers and ints beyond the float range are not read as numbers (numpy
    would convert ``"6"`` to 6.0 and drop an imaginary part); NaN and infinities are kept for the caller to
    judge.

    Parameters
    ----------
    answer : object
        What the student gave.

    Returns
    -------
    numpy.ndarray or None
        The float array, or None.

    Examples
    --------
    >>> real_array([1, 2.5]), real_array(("1334", "6")), real_array([1 + 2j])
    (array([1. , 2.5]), None, None)
    """
    try:
        raw = np.asarray(answer)
    except (TypeError, ValueError, OverflowError):
        return None
    if raw.dtype.kind == "O":
        items = raw.ravel().tolist()
        if not all(_as_real(v) is not None or (isinstance(v, float) and not math.isfinite(v)) for v in items):
            return None
        try:
            return np.asarray(items, dtype=float).reshape(raw.shape)
        except (TypeError, ValueError, OverflowError):
            return None
    if raw.dtype.kind not in "iuf":
        return None
    return raw.astype(float)


def check_number(exercise: str, answer: Any, expected: float, *, explain: str, hint: str,
                 mistakes: Sequence[tuple[float, str]] = (), rtol: float = 1e-6, atol: float = 1e-9,
                 digits: int | None = None) -> Feedback:
    """Check a numerical answer against ``expected``, at the precision the exercise states.

    With ``digits`` (the exercise asks for that many significant figures) any answer within half a unit of the
    last figure is right, however it was rounded; an answer one figure short of that (within one unit of the
    figure before) is told that only its precision is off, not sent to a concept hint. Without ``digits`` (an exact
    answer) the answer must be within ``rtol``/``atol``.

    Parameters
    ----------
    exercise : str
        Number and title of the exercise.
    answer : object
        The student's answer.
    expected : float
        The right value (computed by dpviz, not typed in).
    explain : str
        Why the right answer is right (shown when it is).
    hint : str
        What to reconsider, for a wrong answer that matches no typical mistake.
    mistakes : sequence of (float, str)
        Typical wrong values and the hint each deserves.
    rtol, atol : float
        Relative and absolute tolerance of an exact answer (``digits`` None).
    digits : int, optional
        The significant figures the exercise asks for.

    Returns
    -------
    Feedback
        The verdict.

    Raises
    ------
    ValueError
        If ``digits`` is given and is not a positive integer.

    Examples
    --------
    >>> check_number("1.1 Count", 2, 1.0, explain="one person moves a count by 1", hint="add or remove one",
    ...              mistakes=[(2.0, "that is the replace-one sensitivity")]).hint
    'that is the replace-one sensitivity'
    >>> [check_number("0.1 Coin", a, 1.3862944, explain="ln 4", hint="", digits=3).passed for a in (1.39, 1.386, 1.4)]
    [True, True, False]
    >>> print(check_number("0.1 Coin", 1.4, 1.3862944, explain="ln 4", hint="", digits=3).message)
    1.4 is close, but not right to the 3 significant figures asked for: carry more digits, then round.
    """
    if digits is not None:
        last_digit(1.0, digits)                       # the same check of ``digits`` as everywhere
    if unanswered(answer):
        return Feedback(exercise, False, NO_ANSWER)
    value = _as_real(answer)
    one = real_array(answer) if value is None and not isinstance(answer, str | bytes) else None
    value = float(one.ravel()[0]) if one is not None and one.size == 1 and np.isfinite(one).all() else value  # [x]
    if value is None:
        return Feedback(exercise, False, f"expected a finite number, got {_short(answer)} ({type(answer).__name__}).",
                        hint)
    if within(value, expected, digits, rtol, atol):
        return Feedback(exercise, True, f"{value:.6g} is right: {explain}")
    for wrong, why in mistakes:
        if within(value, wrong, digits, rtol, atol):
            return Feedback(exercise, False, f"{value:.6g} is a common mistake.", why)
    if digits is not None and digits > 1 and abs(value - expected) <= last_digit(expected, digits - 1):
        return Feedback(exercise, False, f"{value:.6g} is close, but not right to the {digits} significant figures "
                        "asked for: carry more digits, then round.",
                        f"Keep every digit through the computation and round only the final answer to {digits} "
                        "significant figures.")
    side = "too large" if value > expected else "too small"
    return Feedback(exercise, False, f"{value:.6g} is {side}.", hint)


def check_array(exercise: str, answer: Any, expected: Any, *, explain: str, hint: str,
                mistakes: Sequence[tuple[Any, str]] = (), rtol: float = 1e-6, atol: float = 1e-9,
                digits: int | None = None) -> Feedback:
    """Check an array answer (same shape, every entry within tolerance, or at ``digits`` significant figures).

    Parameters
    ----------
    exercise : str
        Number and title of the exercise.
    answer : object
        The student's answer (anything ``numpy.asarray`` takes).
    expected : array_like
        The right values.
    explain, hint : str
        As for :func:`check_number`.
    mistakes : sequence of (array_like, str)
        Typical wrong answers and their hints.
    rtol, atol : float
        Tolerances of ``numpy.allclose`` for an exact answer (``digits`` None).
    digits : int, optional
        The significant figures the exercise asks for: each entry within half a unit of its last figure.

    Returns
    -------
    Feedback
        The verdict.

    Raises
    ------
    ValueError
        If ``digits`` is given and is not a positive integer.

    Examples
    --------
    >>> bool(check_array("2.1 Budgets", [0.5, 0.5], [0.5, 0.5], explain="an even split", hint=""))
    True
    >>> bool(check_array("3.5 Split", [0.395, 0.373, 0.232], [0.39507, 0.37282, 0.23211], explain="", hint="",
    ...                  digits=3))
    True
    """
    if digits is not None:
        last_digit(1.0, digits)
    if unanswered(answer):
        return Feedback(exercise, False, NO_ANSWER)
    want = np.asarray(expected, dtype=float)
    got = real_array(answer)
    if got is None:
        return Feedback(exercise, False, f"expected real numbers, got {_short(answer)}.", hint)
    if got.shape != want.shape:
        return Feedback(exercise, False, f"expected shape {want.shape}, got {got.shape}.", hint)
    if not np.all(np.isfinite(got)):
        return Feedback(exercise, False, "your answer holds NaN or infinite values.", hint)
    def close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if digits is None:
            return np.isclose(a, b, rtol=rtol, atol=atol)
        return np.array([within(float(x), float(y), digits, rtol, atol) for x, y in zip(a.ravel(), b.ravel(),
                                                                                           strict=True)])

    if np.all(close(got, want)):
        return Feedback(exercise, True, f"right: {explain}")
    for wrong, why in mistakes:
        if np.shape(wrong) == got.shape and np.all(close(got, np.asarray(wrong, dtype=float))):
            return Feedback(exercise, False, "that is a common mistake.", why)
    bad = int(np.sum(~close(got, want)))
    if digits is not None and digits > 1 and all(
            abs(float(x) - float(y)) <= last_digit(float(y), digits - 1) for x, y in zip(got.ravel(), want.ravel(),
                                                                                         strict=True)):
        return Feedback(exercise, False, f"{bad} of {want.size} entries are close, but not right to the {digits} "
                        "significant figures asked for: carry more digits, then round.",
                        f"Keep every digit through the computation and round only the final answers to {digits} "
                        "significant figures.")
    return Feedback(exercise, False, f"{bad} of {want.size} entries are off.", hint)


def check_function(exercise: str, fn: Any, reference: Callable[..., Any], cases: Sequence[tuple], *, explain: str,
                   hint: str, rtol: float = 1e-9, atol: float = 1e-9,
                   mistakes: Sequence[tuple[Callable[..., Any], str]] = ()) -> Feedback:
    """Check a student's function against ``reference`` on every argument tuple of ``cases``.

    Parameters
    ----------
    exercise : str
        Number and title of the exercise.
    fn : object
        The student's function.
    reference : callable
        The right function.
    cases : sequence of tuple
        Argument tuples (e.g. drawn at random by the exercise, seeded).
    explain, hint : str
        As for :func:`check_number`.
    rtol, atol : float
        Tolerances for comparing the outputs.
    mistakes : sequence of (callable, str)
        Typical wrong functions and their hints: a wrong answer that agrees with one of them on every case
        gets that hint instead of the generic one.

    Returns
    -------
    Feedback
        The verdict; the first failing case is named.

    Examples
    --------
    >>> bool(check_function("1.3 Scale", lambda d, e: d / e, lambda d, e: d / e, [(1, 2), (3, 0.5)],
    ...                     explain="b = Delta / epsilon", hint=""))
    True
    >>> check_function("1.3 Scale", lambda d, e: d * e, lambda d, e: d / e, [(1, 2), (3, 0.5)], explain="",
    ...                hint="", mistakes=[(lambda d, e: d * e, "divide by epsilon")]).hint
    'divide by epsilon'
    """
    fb = _check_function(exercise, fn, reference, cases, explain=explain, hint=hint, rtol=rtol, atol=atol)
    if fb.passed or unanswered(fn) or not callable(fn):
        return fb
    for wrong, why in mistakes:
        try:
            same = all(np.allclose(np.asarray(fn(*copy.deepcopy(args)), dtype=float),
                                   np.asarray(wrong(*copy.deepcopy(args)), dtype=float), rtol=rtol, atol=atol)
                       for args in cases)
        except Exception:  # noqa: BLE001 - the student's function failed: the generic verdict stands
            return fb
        if same:
            return Feedback(exercise, False, "your function computes a common mistake.", why)
    return fb


def _check_function(exercise: str, fn: Any, reference: Callable[..., Any], cases: Sequence[tuple], *, explain: str,
                    hint: str, rtol: float, atol: float) -> Feedback:
    """:func:`check_function` without the typical mistakes."""
    if unanswered(fn):
        return Feedback(exercise, False, NO_ANSWER)
    if not callable(fn):
        return Feedback(exercise, False, f"expected a function, got {_short(fn)}.", hint)
    shape = ""
    for args in cases:
        # the reference first, on its own copy: a function that changes its inputs cannot change the answer key
        want = np.asarray(reference(*copy.deepcopy(args)), dtype=float)
        try:
            out = fn(*copy.deepcopy(args))
            if unanswered(out):    # a body left at "..." (the student notebook) returns None
                return Feedback(exercise, False, "no answer yet: your function returns nothing; write its body "
                                "and run the cell again.")
            got = real_array(out)
        except Exception as exc:  # a student's bug is feedback, not a crash of the notebook
            return Feedback(exercise, False, f"your function raised {type(exc).__name__}: {exc} on "
                            f"{_short(args)}.", hint)
        if got is None:
            return Feedback(exercise, False, f"your function returned {_short(out)}, not real numbers, on "
                            f"{_short(args)}.", hint)
        if got.size != want.size or not np.allclose(got.ravel(), want.ravel(), rtol=rtol, atol=atol):
            return Feedback(exercise, False, f"wrong result on input {_short(args)}.", hint)
        shape = "" if got.shape == want.shape else f" (shape {got.shape} returned, {want.shape} wanted: values right)"
    return Feedback(exercise, True, f"right on all {len(cases)} test inputs: {explain}{shape}")


def check_private(exercise: str, mechanism: Any, epsilon: float, pairs: Sequence[tuple[Any, Any]], *,
                  useful: Callable[[Any], str | None], explain: str, hint: str, samples: int = 100_000,
                  rng: int = 0) -> Feedback:
    """Audit a student's mechanism: no pair of neighbours may show a privacy loss above ``epsilon``.

    Each pair is audited with :func:`dpviz.audit.epsilon_lower_bound` (event search, then a fresh
    confirmation batch, 99.9 % confidence); a lower bound above ``epsilon`` disproves the claim.  A
    mechanism that passes must also be useful (``useful(mechanism)`` returns None, else the reason it is
    not): a constant output is 0-DP and useless.

    Parameters
    ----------
    exercise : str
        Number and title of the exercise.
    mechanism : object
        The student's ``mechanism(data, rng=Generator, size=k)``.
    epsilon : float
        The privacy the mechanism must have.
    pairs : sequence of (object, object)
        Neighbouring inputs to audit.
    useful : callable
        ``useful(mechanism) -> None or str``.
    explain, hint : str
        As for :func:`check_number`.
    samples : int, default 100_000
        Confirmation samples per dataset and pair.
    rng : int, default 0
        Seed of the audit.

    Returns
    -------
    Feedback
        The verdict, with the largest loss the auditor found.

    Examples
    --------
    >>> def mech(x, rng, size):
    ...     return x + rng.laplace(scale=2.0, size=size)            # sensitivity 1, scale 1/0.5
    >>> fb = check_private("7.1 Half a unit", mech, 0.5, [(0.0, 1.0)], useful=lambda m: None,
    ...                    explain="Laplace with scale 2", hint="", samples=20_000)
    >>> bool(fb)
    True
    """
    if unanswered(mechanism):
        return Feedback(exercise, False, NO_ANSWER)
    if not callable(mechanism):
        return Feedback(exercise, False, f"expected a function mechanism(data, rng, size), got {_short(mechanism)}.",
                        hint)
    try:
        probe = mechanism(pairs[0][0], rng=np.random.default_rng(0), size=2)
    except Exception as exc:  # the student's bug is feedback, not a crash of the notebook
        return Feedback(exercise, False, f"calling your mechanism raised {type(exc).__name__}: {exc}.", hint)
    if unanswered(probe):
        return Feedback(exercise, False, "no answer yet: your mechanism returns nothing; write its body and run "
                        "the cell again.")
    # imported here: dpviz.audit loads scipy.stats (about 0.45 s), which every lecture's "from dpviz.exercises
    # import lectureNN" paid before its first explorer although only this check uses it
    from dpviz.audit import epsilon_lower_bound

    worst = 0.0
    for k, (d, d_prime) in enumerate(pairs):
        try:
            res = epsilon_lower_bound(mechanism, d, d_prime, samples=samples, confidence=0.999, rng=rng + k)
        except Exception as exc:  # the student's mechanism failed inside the auditor
            return Feedback(exercise, False, f"auditing your mechanism raised {type(exc).__name__}: {exc}.", hint)
        if res.epsilon_lower > epsilon:
            return Feedback(exercise, False, f"not {epsilon:g}-DP: on the neighbours {d!r} and {d_prime!r} the "
                            f"auditor found a privacy loss of at least {res.epsilon_lower:.3f} "
                            "(99.9 % confidence).", hint)
        worst = max(worst, res.epsilon_lower)
    try:
        reason = useful(mechanism)
    except Exception as exc:  # the usefulness check calls the mechanism on inputs the audit did not use
        return Feedback(exercise, False, f"calling your mechanism raised {type(exc).__name__}: {exc}.", hint)
    if reason is not None:
        return Feedback(exercise, False, f"private but not useful: {reason}", hint)
    return Feedback(exercise, True, f"the auditor found no loss above {epsilon:g} (largest lower bound "
                    f"{worst:.3f}) and the mechanism is useful: {explain}")
