"""The goals lecture 07's AuditExplorer checks (an honest bound that gets close to the claim, a broken claim caught).

Each ``*_goal`` returns the text and the test that :meth:`dpviz.widgets.Explorer.add_goal` takes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["power_goal", "catch_goal"]


def power_goal(bound: float = 0.9) -> tuple[str, Any]:
    """A goal for the AuditExplorer: take enough samples that the honest Laplace mechanism's bound passes ``bound``.

    Parameters
    ----------
    bound : float, default 0.9
        The lower bound on epsilon to reach (the claim is 1).

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = power_goal()
    >>> class R:
    ...     epsilon_lower = 0.93
    >>> class View:
    ...     result, samples = R(), 20_000
    >>> test(View(), {"mechanism": "laplace", "claimed_epsilon": 1.0})
    'n = 20,000 samples per dataset: epsilon >= 0.930'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if (values.get("mechanism") == "laplace" and values.get("claimed_epsilon") == 1.0
                and result.result.epsilon_lower > bound):
            return f"n = {result.samples:,} samples per dataset: epsilon >= {result.result.epsilon_lower:.3f}"
        return None

    return (f"audit the honest Laplace mechanism (claim 1) with enough samples that its bound exceeds {bound:g}",
            test)


def catch_goal(mechanism: str = "laplace_undernoised") -> tuple[str, Any]:
    """A goal for the AuditExplorer: disprove the claim of a broken mechanism.

    Parameters
    ----------
    mechanism : str, default "laplace_undernoised"
        The broken target to catch (a name of :data:`dpviz.experiments.audit.TARGETS`).

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = catch_goal()
    >>> class R:
    ...     epsilon_lower, violation, confidence = 1.07, True, 0.95
    >>> class View:
    ...     result, samples, claimed_epsilon = R(), 5_000, 1.0
    >>> test(View(), {"mechanism": "laplace_undernoised"})
    'n = 5,000: epsilon >= 1.070 > 1 at 95 % confidence'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if values.get("mechanism") == mechanism and result.result.violation:
            return (f"n = {result.samples:,}: epsilon >= {result.result.epsilon_lower:.3f} > "
                    f"{result.claimed_epsilon:g} at {100 * result.result.confidence:g} % confidence")
        return None

    return "catch the under-noised Laplace mechanism: make the audit disprove its claim", test
