"""Privacy amounts held exactly: floats read as their shortest decimal, kept as :class:`fractions.Fraction`.

A float is read as the shortest decimal that prints as it (``0.1`` is exactly
1/10), so ten spends of 0.1 fill a budget of 1.0 exactly and never drift past it.

A float has two readings, though: that decimal, and its binary value (0.1 is
0.1000000000000000055...).  A charge must never be below the epsilon the noise
actually spends, so the noise calibrations of :mod:`dpviz.mechanisms` rely on the
*smaller* reading (:func:`lower_reading`) and round their scales up, and a budget
split into parts gives each part a float no larger than its exact share
(:func:`float_at_most`).  Whatever is charged (the decimal reading of a float, or
an exact share) is then at least what the noise spends.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from fractions import Fraction
from typing import TypeAlias

__all__ = ["Amount", "exact", "lower_reading", "upper_reading", "float_at_most", "float_at_least"]


#: A privacy amount: a float (read as its shortest decimal), an int, a Fraction or a Decimal.
Amount: TypeAlias = float | Fraction | Decimal


def exact(name: str, value: Amount) -> Fraction:
    """Convert a privacy amount to an exact ``Fraction``, reading floats as their shortest decimal.

    Parameters
    ----------
    name : str
        The amount's name, used in error messages.
    value : float, int, fractions.Fraction or decimal.Decimal
        The amount, finite and >= 0.  A float is read as the shortest decimal
        that prints as it, so ``0.1`` is exactly 1/10.

    Returns
    -------
    fractions.Fraction
        The exact amount.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (bools are refused).
    ValueError
        If ``value`` is negative, NaN or infinite.

    Examples
    --------
    >>> exact("epsilon", 0.1)
    Fraction(1, 10)
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Decimal)):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    if isinstance(value, float) or not isinstance(value, (numbers.Rational, Decimal)):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            raise ValueError(f"{name} must be finite, got {f}")
        value = Fraction(repr(f))
    elif isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{name} must be finite, got {value}")
        value = Fraction(value)
    else:
        value = Fraction(value)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {float(value)}")
    return value


def _readings(name: str, value: Amount) -> tuple[Fraction, Fraction]:
    """The exact readings of a privacy amount: a float's shortest decimal and binary value, or the amount twice."""
    decimal_reading = exact(name, value)
    if isinstance(value, bool) or not isinstance(value, float):
        return decimal_reading, decimal_reading
    return decimal_reading, Fraction(float(value))


def lower_reading(name: str, value: Amount) -> Fraction:
    """The smaller exact reading of a privacy amount: what a noise calibration may rely on.

    A float has two readings: the shortest decimal that prints as it (what the ledger of
    :class:`~dpviz.accountant.PrivacyAccountant` records, see :func:`exact`) and its binary value.  Noise
    calibrated to the smaller one spends no more than either, so the ledger's charge is never below what the
    noise spends.  An int, Fraction or Decimal has one reading.

    Parameters
    ----------
    name : str
        The amount's name, used in error messages.
    value : float, int, fractions.Fraction or decimal.Decimal
        The amount, finite and >= 0.

    Returns
    -------
    fractions.Fraction
        ``min(shortest decimal, binary value)`` for a float, the exact value otherwise.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (bools are refused).
    ValueError
        If ``value`` is negative, NaN or infinite.

    Examples
    --------
    >>> lower_reading("epsilon", 0.1)    # 0.1 is 0.1000000000000000055... in binary
    Fraction(1, 10)
    >>> lower_reading("epsilon", 0.3) < Fraction(3, 10)   # 0.29999999999999998889... in binary
    True
    """
    return min(_readings(name, value))


def upper_reading(name: str, value: Amount) -> Fraction:
    """The larger exact reading of a privacy amount (see :func:`lower_reading`): for a sensitivity, say.

    Parameters
    ----------
    name : str
        The amount's name, used in error messages.
    value : float, int, fractions.Fraction or decimal.Decimal
        The amount, finite and >= 0.

    Returns
    -------
    fractions.Fraction
        ``max(shortest decimal, binary value)`` for a float, the exact value otherwise.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (bools are refused).
    ValueError
        If ``value`` is negative, NaN or infinite.

    Examples
    --------
    >>> upper_reading("sensitivity", 0.1) > Fraction(1, 10)
    True
    """
    return max(_readings(name, value))


def float_at_most(value: Fraction) -> float:
    """The largest double whose two readings are both <= ``value``: a budget share handed to a noise calibration.

    Both the binary value and the shortest decimal (what an accountant records, see :func:`lower_reading`) are at
    most ``value``, so the share is safe whichever reading a later step uses.

    Parameters
    ----------
    value : fractions.Fraction
        An exact amount, >= 0 and below the largest double.

    Returns
    -------
    float
        ``float(value)``, or the double (rarely the second double) below it when a reading was above.

    Raises
    ------
    TypeError
        If ``value`` is not a Fraction or int.
    ValueError
        If ``value`` is negative or beyond the largest double.

    Examples
    --------
    >>> float_at_most(Fraction(1, 3)) <= Fraction(1, 3)
    True
    >>> Fraction(float_at_most(Fraction(2, 3) + Fraction(1, 10**17))) <= Fraction(2, 3) + Fraction(1, 10**17)
    True
    """
    return _float_on_side("value", value, -1)


def float_at_least(value: Fraction) -> float:
    """The smallest double whose two readings are both >= ``value``: an upper bound kept as a float.

    Charging it to an accountant (which records its shortest decimal) never under-counts ``value``.

    Parameters
    ----------
    value : fractions.Fraction
        An exact amount, >= 0 and below the largest double.

    Returns
    -------
    float
        ``float(value)``, or the double (rarely the second double) above it when a reading was below.

    Raises
    ------
    TypeError
        If ``value`` is not a Fraction or int.
    ValueError
        If ``value`` is negative or beyond the largest double.

    Examples
    --------
    >>> float_at_least(Fraction(1, 3)) >= Fraction(1, 3)
    True
    """
    return _float_on_side("value", value, 1)


def _float_on_side(name: str, value: Fraction, side: int) -> float:
    """``float(value)`` moved by one ulp towards ``side`` (-1 down, +1 up) if rounding went the other way."""
    if isinstance(value, bool) or not isinstance(value, (Fraction, int)):
        raise TypeError(f"{name} must be a fractions.Fraction or int, got {value!r} of type {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {float(value)}")
    try:
        f = float(value)
    except OverflowError:
        raise ValueError(f"{name}={value} is beyond the largest double") from None
    if math.isinf(f):
        raise ValueError(f"{name}={value} is beyond the largest double")
    # both readings of the double (its binary value and the shortest decimal the ledger records) on the right side
    while (side < 0 and max(_readings(name, f)) > value) or (side > 0 and min(_readings(name, f)) < value):
        f = math.nextafter(f, side * math.inf)
    return f


def _fmt(x: Fraction) -> str:
    """An exact amount in at most 6 significant digits, for messages (beyond the doubles, in decimal)."""
    try:
        return f"{float(x):.6g}"
    except OverflowError:
        return f"{Decimal(x.numerator) / Decimal(x.denominator):.6g}"
