"""The privacy budget accountant: a ledger of charges under sequential and parallel composition.

Sequential composition [DMNS06]_: running mechanisms that are (eps_i, delta_i)-DP
on the same data is (sum eps_i, sum delta_i)-DP.  Parallel composition
[McS09]_: mechanisms run on *disjoint* parts of the data cost only
(max eps_i, max delta_i).  A spend that would exceed the budget raises
:class:`BudgetExceededError` and records nothing.

References
----------
.. [DMNS06] Dwork, McSherry, Nissim, Smith. TCC 2006.
.. [McS09] F. McSherry. "Privacy Integrated Queries." SIGMOD 2009, Thm 4.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from dpviz.accountant.amounts import Amount, _fmt, exact
from dpviz.accountant.ledger_display import ledger_html, ledger_table
from dpviz.validation import check_int

__all__ = ["PrivacyAccountant", "BudgetExceededError", "LedgerRow", "Budget", "check_accountant"]


def _amounts(epsilon: Amount, delta: Amount, repeat: int) -> tuple[Fraction, Fraction]:
    """``repeat * (epsilon, delta)`` as exact Fractions, after the checks every spend makes."""
    if isinstance(repeat, bool) or not isinstance(repeat, numbers.Integral):
        raise TypeError(f"repeat must be a positive integer, got {repeat!r} of type {type(repeat).__name__}")
    if repeat < 1:
        raise ValueError(f"repeat must be a positive integer, got {repeat}")
    eps = exact("epsilon", epsilon)
    dlt = exact("delta", delta)
    if dlt > 1:
        raise ValueError(f"delta must lie in [0, 1], got {float(dlt)}")
    if eps == 0 and dlt == 0:
        raise ValueError("a spend must charge epsilon > 0 or delta > 0, got epsilon=0, delta=0")
    return int(repeat) * eps, int(repeat) * dlt


class BudgetExceededError(RuntimeError):
    """Raised when a spend would take the accountant past its budget; nothing was recorded.

    Parameters
    ----------
    message : str
        What was refused and what budget remains.

    Examples
    --------
    >>> acc = PrivacyAccountant(1.0)
    >>> try:
    ...     acc.spend(2.0)
    ... except BudgetExceededError:
    ...     print("refused; spent", acc.spent.epsilon)
    refused; spent 0.0
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)


class Budget(NamedTuple):
    """An (epsilon, delta) pair as floats, for display.

    Parameters
    ----------
    epsilon : float
        The epsilon part.
    delta : float
        The delta part.

    Examples
    --------
    >>> PrivacyAccountant(1.0, 1e-6).budget
    Budget(epsilon=1.0, delta=1e-06)
    """

    epsilon: float
    delta: float


@dataclass(frozen=True)
class LedgerRow:
    """One charge in the ledger: what was charged, how, and the running totals after it.

    Parameters
    ----------
    label : str
        What the charge was for.
    epsilon, delta : fractions.Fraction
        The amount charged (for a parallel charge, the maximum over the parts).
    composition : str
        ``"sequential"`` or ``"parallel"``.
    parts : int
        Number of mechanisms in the charge: the disjoint parts of a parallel charge, or the ``repeat`` runs of a
        sequential one (1 for a single run).
    total_epsilon, total_delta : fractions.Fraction
        Running totals after this charge.

    Examples
    --------
    >>> row = PrivacyAccountant(1.0).spend(0.25, label="count")
    >>> row.label, float(row.total_epsilon)
    ('count', 0.25)
    """

    label: str
    epsilon: Fraction
    delta: Fraction
    composition: str  # "sequential" or "parallel"
    parts: int
    total_epsilon: Fraction
    total_delta: Fraction


class PrivacyAccountant:
    """Track spends of an (epsilon, delta) budget under sequential and parallel composition.

    Parameters
    ----------
    epsilon : float
        Total epsilon budget, finite and > 0.
    delta : float, default 0
        Total delta budget, in [0, 1).

    Examples
    --------
    >>> acc = PrivacyAccountant(1.0)
    >>> for i in range(10):
    ...     _ = acc.spend(0.1, label=f"query {i}")
    >>> acc.remaining
    Budget(epsilon=0.0, delta=0.0)
    >>> acc.spend_parallel([0.5, 0.5], label="disjoint halves")
    Traceback (most recent call last):
    ...
    dpviz.accountant.privacy_accountant.BudgetExceededError: spend 'disjoint halves' of epsilon=0.5, ...
    """

    def __init__(self, epsilon: Amount, delta: Amount = 0.0) -> None:
        self._epsilon = exact("epsilon", epsilon)
        if self._epsilon == 0:
            raise ValueError("epsilon must be > 0, got 0.0")
        self._delta = exact("delta", delta)
        if self._delta >= 1:
            raise ValueError(f"delta must lie in [0, 1), got {float(self._delta)}")
        self._rows: list[LedgerRow] = []

    # ----------------------------------------------------------------- state
    @property
    def budget(self) -> Budget:
        """The total budget."""
        return Budget(float(self._epsilon), float(self._delta))

    @property
    def spent(self) -> Budget:
        """What has been charged so far."""
        e, d = self._totals()
        return Budget(float(e), float(d))

    @property
    def remaining(self) -> Budget:
        """Budget minus what has been spent (never negative)."""
        e, d = self._totals()
        return Budget(float(self._epsilon - e), float(self._delta - d))

    @property
    def history(self) -> list[LedgerRow]:
        """The ledger: one :class:`LedgerRow` per accepted charge, oldest first."""
        return list(self._rows)

    def _totals(self) -> tuple[Fraction, Fraction]:
        """Running (epsilon, delta) totals of the ledger."""
        if not self._rows:
            return Fraction(0), Fraction(0)
        return self._rows[-1].total_epsilon, self._rows[-1].total_delta

    # ----------------------------------------------------------------- charging
    def can_spend(self, epsilon: Amount, delta: Amount = 0.0, *, repeat: int = 1) -> bool:
        """Whether :meth:`spend` would accept ``(epsilon, delta)`` (``repeat`` times): it validates the same way.

        Parameters
        ----------
        epsilon : float, int, fractions.Fraction or decimal.Decimal
            The epsilon of the planned spend, >= 0.
        delta : float, int, fractions.Fraction or decimal.Decimal, default 0
            The delta of the planned spend, in [0, 1] (not both zero).
        repeat : int, default 1
            How many such mechanisms the spend stands for (sequential composition).

        Returns
        -------
        bool
            True if :meth:`spend` would accept it.

        Raises
        ------
        TypeError, ValueError
            For an amount :meth:`spend` refuses: non-numeric, negative, NaN, infinite, a delta above 1, both
            amounts zero, or ``repeat`` not a positive integer.

        Examples
        --------
        >>> acc = PrivacyAccountant(1.0, delta=1e-5)
        >>> acc.can_spend(0.5, 1e-6), acc.can_spend(0.5, repeat=3)
        (True, False)
        """
        eps, dlt = _amounts(epsilon, delta, repeat)
        e, d = self._totals()
        return e + eps <= self._epsilon and d + dlt <= self._delta

    def _charge(self, label: str, eps: Fraction, dlt: Fraction, composition: str, parts: int) -> LedgerRow:
        """Record a charge if it fits; otherwise raise BudgetExceededError and record nothing."""
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}")
        e, d = self._totals()
        if e + eps > self._epsilon or d + dlt > self._delta:
            raise BudgetExceededError(
                f"spend {label!r} of epsilon={_fmt(eps)}, delta={_fmt(dlt)} exceeds the remaining budget "
                f"epsilon={_fmt(self._epsilon - e)}, delta={_fmt(self._delta - d)} "
                f"(total budget epsilon={_fmt(self._epsilon)}, delta={_fmt(self._delta)}); nothing was recorded"
            )
        row = LedgerRow(label, eps, dlt, composition, parts, e + eps, d + dlt)
        self._rows.append(row)
        return row

    def spend(self, epsilon: Amount, delta: Amount = 0.0, label: str = "", *, repeat: int = 1) -> LedgerRow:
        """Charge an (epsilon, delta)-DP mechanism, ``repeat`` times over, by sequential composition.

        ``repeat=k`` records k runs of the mechanism on the same data as one row costing
        ``(k * epsilon, k * delta)`` (shown as "sequential xk").

        Parameters
        ----------
        epsilon : float, int, fractions.Fraction or decimal.Decimal
            The mechanism's epsilon, >= 0.
        delta : float, int, fractions.Fraction or decimal.Decimal, default 0
            The mechanism's delta, in [0, 1] (not both zero).
        label : str, optional
            What the charge is for (default ``"spend <n>"``).
        repeat : int, default 1
            Number of runs of the mechanism that this charge stands for, >= 1.

        Returns
        -------
        LedgerRow
            The recorded charge with the running totals.

        Raises
        ------
        BudgetExceededError
            If the spend does not fit; the ledger is left unchanged.
        ValueError, TypeError
            For a negative, NaN, infinite or non-numeric amount, a delta above 1, both amounts 0, or a
            ``repeat`` that is not a positive integer.

        Examples
        --------
        >>> acc = PrivacyAccountant(10.0)
        >>> acc.spend(0.5, label="one histogram").total_epsilon
        Fraction(1, 2)
        >>> acc.spend(0.5, label="50 more", repeat=5).total_epsilon
        Fraction(3, 1)
        """
        eps, dlt = _amounts(epsilon, delta, repeat)
        try:
            return self._charge(label or f"spend {len(self._rows) + 1}", eps, dlt, "sequential", int(repeat))
        except BudgetExceededError as err:
            if repeat == 1:
                raise
            raise BudgetExceededError(f"repeat={repeat} runs cost {repeat} x epsilon: {err}") from None

    def spend_parallel(self, epsilons: Iterable[Amount], deltas: Sequence[Amount] | None = None,
                       label: str = "", *, parts: int | None = None) -> LedgerRow:
        """Charge mechanisms run on disjoint partitions of the data: costs ``(max eps_i, max delta_i)`` [McS09].

        Parameters
        ----------
        epsilons : iterable of float, int, fractions.Fraction or decimal.Decimal
            The epsilon of each mechanism (at least one).
        deltas : sequence of float, int, fractions.Fraction or decimal.Decimal, optional
            The delta of each mechanism, one per epsilon (default all 0).
        label : str, optional
            What the charge is for (default ``"spend <n>"``).
        parts : int, optional
            When given, ``epsilons`` (and ``deltas``) hold one value, shared by ``parts`` disjoint parts: the
            ledger records the count without a list of ``parts`` equal amounts.

        Returns
        -------
        LedgerRow
            The recorded charge (``composition="parallel"``) with the running totals.

        Raises
        ------
        BudgetExceededError
            If the maximum does not fit; nothing is recorded.
        ValueError
            If the lists are empty or of different lengths, or an amount is invalid, or ``parts`` is not a
            positive integer or comes with more than one epsilon.

        Examples
        --------
        >>> acc = PrivacyAccountant(10.0)
        >>> acc.spend_parallel([0.5, 0.3, 0.5], label="3 disjoint cells").total_epsilon
        Fraction(1, 2)
        >>> acc.spend_parallel([0.25], label="1,000 disjoint cells", parts=1000).parts
        1000
        """
        if isinstance(epsilons, (str, bytes)) or not isinstance(epsilons, Iterable) \
                or getattr(epsilons, "ndim", 1) < 1:
            raise TypeError(f"epsilons must be a list of amounts, one per part, got {epsilons!r}")
        eps_list = [exact(f"epsilons[{i}]", e) for i, e in enumerate(epsilons)]
        if not eps_list:
            raise ValueError("epsilons must list at least one mechanism")
        if deltas is None:
            dlt_list = [Fraction(0)] * len(eps_list)
        else:
            dlt_list = [exact(f"deltas[{i}]", d) for i, d in enumerate(deltas)]
            if len(dlt_list) != len(eps_list):
                raise ValueError(f"deltas must have one entry per epsilon ({len(eps_list)}), got {len(dlt_list)}")
        if parts is not None:
            parts = check_int("parts", parts, minimum=1)
            if len(eps_list) != 1:
                raise ValueError(f"with parts={parts}, epsilons must hold the one value the parts share, got "
                                 f"{len(eps_list)} values")
        eps, dlt = max(eps_list), max(dlt_list)
        if eps == 0 and dlt == 0:
            raise ValueError("epsilons and deltas are all zero: a spend must charge epsilon > 0 or delta > 0")
        try:
            return self._charge(label or f"spend {len(self._rows) + 1}", eps, dlt, "parallel",
                                len(eps_list) if parts is None else parts)
        except BudgetExceededError as err:
            raise BudgetExceededError(f"{err} (epsilons: parallel composition charges their maximum)") from None

    # ----------------------------------------------------------------- display
    def table(self) -> str:
        """Format the ledger as a fixed-width text table (no pandas needed).

        The composition column reads ``sequential xk`` for k runs of one mechanism and ``parallel, k parts`` for
        one run over k disjoint parts; labels are printed in full.

        Returns
        -------
        str
            One line per charge, then the remaining budget.

        Examples
        --------
        >>> acc = PrivacyAccountant(10.0)
        >>> _ = acc.spend_parallel([0.5] * 4, label="4 disjoint cells")
        >>> _ = acc.spend(0.25, label="one count", repeat=2)
        >>> for line in acc.table().splitlines()[2:4]:
        ...     print(line[:51].rstrip())
          1  4 disjoint cells             parallel, 4 parts
          2  one count                    sequential x2
        """
        return ledger_table(self._rows, self.remaining, self.budget)

    def to_html(self) -> str:
        """Format the ledger as an HTML table (what Jupyter shows), for side panels of the explorers.

        Returns
        -------
        str
            An HTML ``<table>`` of the charges followed by the remaining budget.
        """
        return ledger_html(self._rows, self.remaining, self.budget)

    def _repr_html_(self) -> str:
        """Jupyter's rich display: :meth:`to_html`."""
        return self.to_html()

    def __repr__(self) -> str:
        s = self.spent
        return (f"PrivacyAccountant(epsilon={float(self._epsilon):g}, delta={float(self._delta):g}; "
                f"spent epsilon={s.epsilon:g}, delta={s.delta:g} in {len(self._rows)} charge(s))")

    def __str__(self) -> str:
        return self.table()


def check_accountant(accountant: PrivacyAccountant | None) -> PrivacyAccountant | None:
    """Return ``accountant`` if it is a :class:`PrivacyAccountant` or None; raise TypeError naming it otherwise.

    Parameters
    ----------
    accountant : PrivacyAccountant or None
        The accountant passed to a mechanism (None: nothing is charged).

    Returns
    -------
    PrivacyAccountant or None
        ``accountant`` unchanged.

    Raises
    ------
    TypeError
        If ``accountant`` is anything else.

    Examples
    --------
    >>> check_accountant(None) is None
    True
    """
    if accountant is not None and not isinstance(accountant, PrivacyAccountant):
        raise TypeError(f"accountant must be a PrivacyAccountant or None, got {type(accountant).__name__}")
    return accountant
