"""Exact budget shares for the data-aware mechanisms.

Every data-aware mechanism splits its epsilon into stages (a noisy total, the
rounds of MWEM, the two stages of DAWA).  The shares are computed as exact
fractions, so the stages add up to epsilon with no rounding; the stages are
then charged together with :func:`dpviz.accountant.charge_all` (``size=k``
runs cost ``k * epsilon``; a refusal records nothing).
"""

from __future__ import annotations

from fractions import Fraction

from dpviz.accountant import exact


def _fraction(name: str, value: float) -> Fraction:
    """An exact budget amount (floats read as their shortest decimal, like the accountant)."""
    return exact(name, value)
