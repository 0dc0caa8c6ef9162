"""A refusal raised by a callee, re-raised naming the caller's parameters.

A function that hands its ``epsilon_select`` to :func:`dpviz.selection.exponential_probabilities` gets that
function's refusal, which speaks of ``epsilon``; the student typed ``epsilon_select``.  :func:`blame` prefixes the
message with the caller's parameters and their values, so the refusal names what was typed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["blame"]


@contextmanager
def blame(**params: Any) -> Iterator[None]:
    """Re-raise a ValueError/TypeError from the block with ``name=value`` of each of ``params`` in front.

    Parameters
    ----------
    **params
        The caller's parameters (and their values) that the block's refusal is really about.

    Yields
    ------
    None
        The block runs unchanged; only its refusal's message changes.

    Raises
    ------
    ValueError, TypeError
        The block's own, its message prefixed with ``"name=value: "`` for each parameter.

    Examples
    --------
    >>> try:
    ...     with blame(epsilon_select=-1.0):
    ...         raise ValueError("epsilon must be > 0, got -1.0")
    ... except ValueError as err:
    ...     print(err)
    epsilon_select=-1.0: epsilon must be > 0, got -1.0
    """
    try:
        yield
    except (ValueError, TypeError) as exc:
        named = ", ".join(f"{k}={_short(v)}" for k, v in params.items())
        kind = TypeError if isinstance(exc, TypeError) else ValueError
        raise kind(f"{named}: {exc}") from exc


def _short(value: Any) -> str:
    """A repr of at most 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
