"""The one accounting rule: how every dpviz release charges an accountant.

Every function that takes an ``accountant`` checks its own inputs, then calls :func:`charge` (one mechanism)
or :func:`charge_all` (a release made of several mechanisms, e.g. a threshold then the answers), and only then
draws noise.  The rule for ``size=k`` is sequential composition: ``size=k`` draws k independent releases of the
same data, that is k runs of the mechanism, so the ledger records ``k * epsilon`` and ``k * delta``.  A
function that charges differently must say why in its docstring and test it.

References
----------
- [DMNS06] Dwork, McSherry, Nissim, Smith. "Calibrating Noise to Sensitivity in Private Data Analysis."
  TCC 2006 (sequential composition).
- [McS09] F. McSherry. "Privacy Integrated Queries." SIGMOD 2009 (parallel composition).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from dpviz.accountant.amounts import Amount, _fmt
from dpviz.accountant.privacy_accountant import (
    BudgetExceededError,
    LedgerRow,
    PrivacyAccountant,
    _amounts,
    check_accountant,
)
from dpviz.validation import check_int, check_trials

__all__ = ["charge", "charge_all"]


def charge(accountant: PrivacyAccountant | None, epsilon: Amount, delta: Amount = 0.0, *,
           size: int | None = None, label: str, parts: int = 1) -> LedgerRow | None:
    """Charge ``size`` independent releases of an (epsilon, delta)-DP mechanism (``size * epsilon``).

    Parameters
    ----------
    accountant : PrivacyAccountant or None
        Where to record the spend; None records nothing (the inputs are still checked).
    epsilon : float, int, fractions.Fraction or decimal.Decimal
        Epsilon of one release, >= 0.
    delta : float, int, fractions.Fraction or decimal.Decimal, default 0
        Delta of one release, in [0, 1] (not both zero).
    size : int or None, default None
        Number of independent releases drawn; None means one.
    label : str
        What the ledger row says; `` xk`` is appended for k > 1 releases.
    parts : int, default 1
        Number of disjoint parts of the data one release measures, each with ``(epsilon, delta)``: parallel
        composition [McS09] costs ``(epsilon, delta)`` per release whatever ``parts`` is, and the ledger
        row says "parallel x parts".

    Returns
    -------
    LedgerRow or None
        The recorded row, or None without an accountant.

    Raises
    ------
    TypeError
        If ``accountant`` is neither a PrivacyAccountant nor None, or ``size`` is not an integer.
    ValueError
        If an amount is invalid or ``size`` < 1.
    BudgetExceededError
        If ``size * epsilon`` or ``size * delta`` does not fit; nothing is recorded.

    References
    ----------
    Sequential composition [DMNS06]; parallel composition [McS09].

    Examples
    --------
    >>> acc = PrivacyAccountant(10.0)
    >>> _ = charge(acc, 0.5, size=4, label="noisy histogram")
    >>> acc.spent
    Budget(epsilon=2.0, delta=0.0)
    >>> acc.history[-1].label, acc.history[-1].parts
    ('noisy histogram x4', 4)
    >>> row = charge(acc, 0.5, label="4 disjoint cells", parts=4)
    >>> row.composition, row.parts, float(row.epsilon)
    ('parallel', 4, 0.5)
    """
    acc = check_accountant(accountant)
    k = check_trials(size) or 1
    n_parts = check_int("parts", parts, minimum=1)
    eps_k, dlt_k = _amounts(epsilon, delta, k)  # validate even without an accountant
    if acc is None:
        return None
    name = label if k == 1 else f"{label} x{k}"
    try:
        if n_parts > 1:
            return acc.spend_parallel([eps_k], [dlt_k], label=name, parts=n_parts)
        return acc.spend(epsilon, delta, label=name, repeat=k)
    except BudgetExceededError as err:
        if k == 1:
            raise
        raise BudgetExceededError(f"size={k} releases cost {k} x epsilon: {err}") from None


def charge_all(accountant: PrivacyAccountant | None, charges: Sequence[tuple[str, Amount, Amount]], *,
               size: int | None = None) -> list[LedgerRow]:
    """Charge several mechanisms of one release, all or nothing: one row each, each ``size`` times over.

    Parameters
    ----------
    accountant : PrivacyAccountant or None
        Where to record the spends; None records nothing (the inputs are still checked).
    charges : sequence of (label, epsilon, delta)
        The mechanisms of the release in the order they run (e.g. choosing a threshold, then answering).
    size : int or None, default None
        Number of independent releases drawn; None means one.

    Returns
    -------
    list of LedgerRow
        The recorded rows (empty without an accountant).

    Raises
    ------
    TypeError
        If ``accountant`` is neither a PrivacyAccountant nor None, ``size`` is not an integer, or a charge is not
        a (str label, epsilon, delta) triple (checked for all charges before any is recorded).
    ValueError
        If ``charges`` is empty, an amount is invalid or ``size`` < 1.
    BudgetExceededError
        If the total does not fit; nothing at all is recorded.

    References
    ----------
    Sequential composition [DMNS06].

    Examples
    --------
    >>> acc = PrivacyAccountant(1.0)
    >>> rows = charge_all(acc, [("threshold", 0.1, 0.0), ("answers", 0.9, 0.0)])
    >>> [float(r.total_epsilon) for r in rows]
    [0.1, 1.0]
    >>> try:
    ...     charge_all(PrivacyAccountant(1.0), [("threshold", 0.1, 0), ("answers", 0.9, 0)], size=2)
    ... except BudgetExceededError as err:
    ...     print("refused")
    refused
    """
    acc = check_accountant(accountant)
    k = check_trials(size) or 1
    if isinstance(charges, (str, bytes)) or not isinstance(charges, Sequence) or len(charges) == 0:
        raise ValueError(f"charges must be a non-empty sequence of (label, epsilon, delta), got {charges!r}")
    for i, charge_ in enumerate(charges):
        if not (isinstance(charge_, (tuple, list)) and len(charge_) == 3 and isinstance(charge_[0], str)):
            raise TypeError(f"charges[{i}] must be a (label, epsilon, delta) triple with a str label, got {charge_!r}")
    amounts = [_amounts(eps, dlt, k) for _, eps, dlt in charges]
    if acc is None:
        return []
    eps_total = sum((e for e, _ in amounts), Fraction(0))
    dlt_total = sum((d for _, d in amounts), Fraction(0))
    if not acc.can_spend(eps_total, dlt_total):
        left = acc.remaining
        raise BudgetExceededError(
            f"release of {len(charges)} mechanism(s) ({', '.join(lbl for lbl, _, _ in charges)}) needs "
            f"epsilon={_fmt(eps_total)}, delta={_fmt(dlt_total)} but only epsilon={left.epsilon:.6g}, "
            f"delta={left.delta:.3g} remain; nothing was recorded")
    return [acc.spend(eps, dlt, label=lbl if k == 1 else f"{lbl} x{k}", repeat=k) for lbl, eps, dlt in charges]
