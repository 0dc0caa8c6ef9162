"""Privacy amounts held exactly: floats read as their shortest decimal, kept as :class:`fractions.Fraction`.

A float is read as the shortest decimal that prints as it (``0.1`` is exactly
1/10), so ten spends of 0.1 fill a budget of 1.0 exactly and never drift past it.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from fractions import Fraction
from typing import TypeAlias

__all__ = ["Amount", "exact"]


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


def _fmt(x: Fraction) -> str:
    """An exact amount in at most 6 significant digits, for messages."""
    return f"{float(x):.6g}"
