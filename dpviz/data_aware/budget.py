"""Exact budget shares for the data-aware mechanisms: refuse up front, then charge stage by stage.

Every data-aware mechanism splits its epsilon into stages (a noisy total, the
rounds of MWEM, the two stages of DAWA).  The shares are computed as exact
fractions, so the stages add up to epsilon with no rounding, and the whole run
is checked against the accountant before anything is recorded.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from dpviz.accountant import BudgetExceededError, check_accountant, exact

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant


def _fraction(name: str, value: float) -> Fraction:
    """An exact budget amount (floats read as their shortest decimal, like the accountant)."""
    return exact(name, value)


def _reserve(accountant: PrivacyAccountant | None, epsilon: Fraction, what: str) -> None:
    """Refuse up front (recording nothing) if the whole run does not fit in the accountant's budget."""
    acc = check_accountant(accountant)
    if acc is not None and not acc.can_spend(epsilon):
        rem = acc.remaining.epsilon
        raise BudgetExceededError(
            f"{what} needs epsilon={float(epsilon):.6g} but only {rem:.6g} remains; nothing was recorded")


def _charge(accountant: PrivacyAccountant | None, epsilon: Fraction, label: str) -> None:
    """Record one stage's spend of ``epsilon`` under ``label`` (nothing without an accountant)."""
    if accountant is not None:
        accountant.spend(epsilon, label=label)
