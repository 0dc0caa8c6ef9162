"""A privacy budget accountant: sequential and parallel composition, in exact arithmetic.

Sequential composition [DMNS06]_: running mechanisms that are (eps_i, delta_i)-DP
on the same data is (sum eps_i, sum delta_i)-DP.  Parallel composition
[McS09]_: mechanisms run on *disjoint* parts of the data cost only
(max eps_i, max delta_i).

Every amount is held as a :class:`fractions.Fraction`.  A float is read as the
shortest decimal that prints as it (``0.1`` is exactly 1/10), so ten spends of
0.1 fill a budget of 1.0 exactly and never drift past it.  A spend that would
exceed the budget raises :class:`BudgetExceededError` and records nothing.

Files
-----
``amounts.py``
    ``exact``: a privacy amount as an exact Fraction (and the ``Amount`` type); ``lower_reading`` /
    ``upper_reading`` (a float's smaller and larger exact reading) and ``float_at_most`` / ``float_at_least``
    (a Fraction rounded down or up to a double), with which charges never fall below what the noise spends.
``charging.py``
    The one accounting rule: ``charge`` / ``charge_all``, which every release that takes an accountant
    calls (``size=k`` independent releases cost ``k * epsilon``).
``ledger_display.py``
    How a ledger reads: ``ledger_table`` and ``ledger_html`` (what ``PrivacyAccountant.table`` / ``to_html``
    return) and ``composition_text`` (``sequential xk`` runs, ``parallel, k parts``).
``privacy_accountant.py``
    ``PrivacyAccountant`` and its ledger (``LedgerRow``, ``Budget``),
    ``BudgetExceededError``, and ``check_accountant`` for functions that take
    an optional accountant.

References
----------
.. [DMNS06] Dwork, McSherry, Nissim, Smith. TCC 2006.
.. [McS09] F. McSherry. "Privacy Integrated Queries." SIGMOD 2009, Thm 4.
"""

from __future__ import annotations

from dpviz.accountant.amounts import exact, float_at_least, float_at_most, lower_reading, upper_reading
from dpviz.accountant.charging import charge, charge_all
from dpviz.accountant.privacy_accountant import (
    Budget,
    BudgetExceededError,
    LedgerRow,
    PrivacyAccountant,
    check_accountant,
)

__all__ = ["PrivacyAccountant", "BudgetExceededError", "LedgerRow", "Budget", "exact", "check_accountant",
           "charge", "charge_all", "lower_reading", "upper_reading", "float_at_most", "float_at_least"]
