"""How a privacy ledger reads: the fixed-width text table and the HTML table of its charges.

The composition column says how each row composes: ``sequential xk`` for k runs of one mechanism on the same
data (sequential composition), ``parallel, k parts`` for one run over k disjoint parts (parallel composition),
so that "xk" always counts runs, like the `` xk`` that :func:`dpviz.accountant.charge` adds to a label.
Labels are printed in full: a cut label could hide its "x3".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # the accountant imports this module
    from dpviz.accountant.privacy_accountant import Budget, LedgerRow

__all__ = ["ledger_table", "ledger_html", "composition_text"]


def composition_text(row: LedgerRow) -> str:
    """The ledger's composition column for one row: ``sequential``, ``sequential xk`` or ``parallel, k parts``.

    Parameters
    ----------
    row : LedgerRow
        A recorded charge.

    Returns
    -------
    str
        What the composition column shows.

    Examples
    --------
    >>> from dpviz.accountant import PrivacyAccountant
    >>> acc = PrivacyAccountant(10.0)
    >>> composition_text(acc.spend(0.5, repeat=3)), composition_text(acc.spend_parallel([0.5] * 4))
    ('sequential x3', 'parallel, 4 parts')
    """
    _check_rows("row", [row])
    if row.parts == 1:
        return row.composition
    return f"parallel, {row.parts} parts" if row.composition == "parallel" else f"{row.composition} x{row.parts}"


def ledger_table(rows: Sequence[LedgerRow], remaining: Budget, budget: Budget) -> str:
    """The ledger as a fixed-width text table: one line per charge, then the remaining budget.

    Parameters
    ----------
    rows : sequence of LedgerRow
        The charges, in order.
    remaining, budget : Budget
        What is left, and the whole budget.

    Returns
    -------
    str
        The table (no pandas needed).

    Examples
    --------
    >>> from dpviz.accountant import PrivacyAccountant
    >>> acc = PrivacyAccountant(1.0)
    >>> _ = acc.spend(0.25, label="count", repeat=2)
    >>> print(ledger_table(acc.history, acc.remaining, acc.budget).splitlines()[-1])
    remaining: epsilon=0.5, delta=0 of epsilon=1, delta=0
    """
    _check_rows("rows", rows, remaining, budget)
    comps = [composition_text(r) for r in rows]
    lw = max([28, *(len(r.label) for r in rows)])   # labels are never cut: "... x3" must stay visible
    cw = max([16, *(len(c) for c in comps)])
    head = (f"{'#':>3}  {'label':<{lw}} {'composition':<{cw}} {'epsilon':>9} {'delta':>9} {'total eps':>10} "
            f"{'total delta':>11}")
    lines = [head, "-" * len(head)]
    for i, (r, comp) in enumerate(zip(rows, comps, strict=True), 1):
        lines.append(
            f"{i:>3}  {r.label:<{lw}} {comp:<{cw}} {float(r.epsilon):>9.4g} {float(r.delta):>9.3g} "
            f"{float(r.total_epsilon):>10.4g} {float(r.total_delta):>11.3g}"
        )
    lines.append(f"remaining: epsilon={remaining.epsilon:.4g}, delta={remaining.delta:.3g} of "
                 f"epsilon={budget.epsilon:.4g}, delta={budget.delta:.3g}")
    return "\n".join(lines)


def ledger_html(rows: Sequence[LedgerRow], remaining: Budget, budget: Budget) -> str:
    """The ledger as an HTML table (what Jupyter shows), followed by the remaining budget.

    Parameters
    ----------
    rows : sequence of LedgerRow
        The charges, in order.
    remaining, budget : Budget
        What is left, and the whole budget.

    Returns
    -------
    str
        An HTML ``<table>`` and a ``<p>`` with the remaining budget.

    Examples
    --------
    >>> from dpviz.accountant import PrivacyAccountant
    >>> acc = PrivacyAccountant(1.0)
    >>> _ = acc.spend(0.5, label="a <b> count")
    >>> "a &lt;b&gt; count" in ledger_html(acc.history, acc.remaining, acc.budget)
    True
    """
    _check_rows("rows", rows, remaining, budget)
    body = "".join(
        f"<tr><td>{i}</td><td>{_html(r.label)}</td><td>{composition_text(r)}</td><td>{float(r.epsilon):.4g}</td>"
        f"<td>{float(r.delta):.3g}</td><td>{float(r.total_epsilon):.4g}</td></tr>"
        for i, r in enumerate(rows, 1)
    )
    return (
        "<table><thead><tr><th>#</th><th>label</th><th>composition</th><th>&epsilon;</th><th>&delta;</th>"
        f"<th>total &epsilon;</th></tr></thead><tbody>{body}</tbody></table>"
        f"<p>remaining &epsilon; = {remaining.epsilon:.4g} of {budget.epsilon:.4g}; "
        f"remaining &delta; = {remaining.delta:.3g} of {budget.delta:.3g}</p>"
    )


def _check_rows(name: str, rows: Sequence[LedgerRow], *budgets: Budget) -> None:
    """Refuse, by name, rows that are not LedgerRows and budgets that are not Budgets."""
    from dpviz.accountant.privacy_accountant import Budget, LedgerRow  # it imports this module

    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence):
        raise TypeError(f"{name} must be a sequence of LedgerRow, got {rows!r}")
    for i, r in enumerate(rows):
        if not isinstance(r, LedgerRow):
            raise TypeError(f"{name}[{i}] must be a LedgerRow (a row of PrivacyAccountant.history), got {r!r}"
                            if name == "rows" else f"{name} must be a LedgerRow, got {r!r}")
    for which, b in zip(("remaining", "budget"), budgets, strict=False):
        if not isinstance(b, Budget):
            raise TypeError(f"{which} must be a Budget (PrivacyAccountant.remaining / .budget), got {b!r}")


def _html(text: str) -> str:
    """``text`` with ``&``, ``<`` and ``>`` escaped for HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
