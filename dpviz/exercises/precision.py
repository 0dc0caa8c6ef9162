"""The precision an exercise asks for: significant figures, and whether an answer is right at them.

An exercise with a non-round answer states how many significant figures it wants; its checker then accepts any
answer within half a unit of the last of them (1.39, 1.386 and 1.3863 for ln 4 at 3 figures) and tells an answer
one figure short that only its precision is off. Exact answers (counts, sensitivities) are compared at 1e-6.
"""

from __future__ import annotations

import math

from dpviz.validation import check_int, check_real

__all__ = ["last_digit", "round_to", "within"]


def last_digit(value: float, digits: int) -> float:
    """One unit in the last of ``digits`` significant figures of ``value`` (0.001 for 1.386 at 4 figures).

    Parameters
    ----------
    value : float
        A finite number.
    digits : int
        Significant figures, at least 1.

    Returns
    -------
    float
        ``10 ** (floor(log10(|value|)) - digits + 1)``; for ``value == 0`` the unit at the first decimal places,
        ``10 ** -digits``.

    Raises
    ------
    TypeError
        If ``value`` is not a real number or ``digits`` not an integer.
    ValueError
        If ``digits`` is below 1 or ``value`` is not finite.

    Examples
    --------
    >>> last_digit(1.386, 3), last_digit(0.0287, 3), last_digit(10.03, 3)
    (0.01, 0.0001, 0.1)
    """
    digits = check_int("digits", digits, minimum=1)
    value = check_real("value", value)
    if value == 0:
        return float(10.0 ** -digits)
    return float(10.0 ** (math.floor(math.log10(abs(value))) - digits + 1))


def round_to(value: float, digits: int) -> float:
    """``value`` rounded to ``digits`` significant figures, as a student writes it (``round_to(1.3863, 3)`` is 1.39).

    Parameters
    ----------
    value : float
        A finite number.
    digits : int
        Significant figures, at least 1.

    Returns
    -------
    float
        The rounded value.

    Raises
    ------
    TypeError, ValueError
        As for :func:`last_digit`.

    Examples
    --------
    >>> round_to(1.3862944, 3), round_to(0.0287276, 3), round_to(10.033653, 3)
    (1.39, 0.0287, 10.0)
    """
    last_digit(value, digits)                         # checks value and digits
    return float(f"{value:.{digits}g}")


def within(value: float, expected: float, digits: int | None, rtol: float, atol: float) -> bool:
    """Whether ``value`` is ``expected`` at the stated precision.

    Parameters
    ----------
    value, expected : float
        The answer and the right value.
    digits : int or None
        Significant figures asked for: ``value`` must be within half a unit of ``expected``'s last one, so every
        correct rounding passes. None: an exact answer, within ``rtol``/``atol``.
    rtol, atol : float
        Tolerances of an exact answer.

    Returns
    -------
    bool
        Whether the answer is right.

    Raises
    ------
    TypeError
        If ``value`` or ``expected`` is not a real number, or ``digits`` not an integer.
    ValueError
        If ``value`` or ``expected`` is not finite, or ``digits`` is below 1.

    Examples
    --------
    >>> within(1.39, 1.3862944, 3, 0, 0), within(1.38, 1.3862944, 3, 0, 0), within(1.39, 1.3862944, None, 1e-6, 0)
    (True, False, False)
    """
    value, expected = check_real("value", value), check_real("expected", expected)
    if digits is None:
        return math.isclose(value, expected, rel_tol=rtol, abs_tol=atol)
    return abs(value - expected) <= 0.5 * last_digit(expected, digits) * (1 + 1e-9) + 1e-12
