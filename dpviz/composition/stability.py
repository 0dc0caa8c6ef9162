"""Stability of a transformation: what an eps-DP mechanism costs when it runs on transformed data.

A transformation T has stability sigma if adding or removing one row of D adds
or removes at most sigma rows of T(D).  An eps-DP mechanism run on T(D) is then
``sigma * eps``-DP on D (the composition lecture's slide "Transformations &
Stability", after McSherry's PINQ [McS09]): the sigma changed rows are sigma
neighbour steps, and each costs eps (group privacy).

The lecture's three transformations:

* V1, a row-by-row map such as ``(x1, x2, x3) -> (x1, x2 + x3)``: stability 1;
* V2, one row per word of the first k words of each tweet (:func:`first_words`): stability k;
* V3, sampling each row with probability p: stability 1, and better than that
  by amplification (:mod:`dpviz.composition.subsampling`).

References
----------
- [McS09] F. McSherry. "Privacy Integrated Queries." SIGMOD 2009, Section 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dpviz.validation import check_epsilon, check_int

__all__ = ["first_words", "stable_epsilon"]

#: Largest stability :func:`stable_epsilon` accepts (an exact integer as a float).
MAX_STABILITY = 10**15


def first_words(documents: Sequence[tuple[Any, Sequence[str]]], k: int) -> list[tuple[Any, str]]:
    """The lecture's V2: one row ``(id, word)`` for each of the first k words of each document.

    Parameters
    ----------
    documents : sequence of (id, sequence of str)
        The rows of D: an identifier and the document's words in order.
    k : int
        How many leading words of each document become rows, >= 1.

    Returns
    -------
    list of (id, str)
        The rows of V2(D), document by document.  One document adds at most k
        rows, so the transformation has stability k.

    Raises
    ------
    TypeError
        If documents is not a sequence of (id, words) pairs, a word is not a
        str, or k is not an integer.
    ValueError
        If k < 1.

    References
    ----------
    McSherry, SIGMOD 2009 (stability of transformations).

    Examples
    --------
    >>> first_words([(1, ["dp", "is", "fun"]), (2, ["hi"])], 2)
    [(1, 'dp'), (1, 'is'), (2, 'hi')]
    """
    k = check_int("k", k, minimum=1)
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence):
        raise TypeError(f"documents must be a sequence of (id, words) pairs, got {type(documents).__name__}")
    rows: list[tuple[Any, str]] = []
    for i, doc in enumerate(documents):
        if not isinstance(doc, (tuple, list)) or len(doc) != 2:
            raise TypeError(f"documents[{i}] must be an (id, words) pair, got {doc!r}")
        ident, words = doc
        if isinstance(words, (str, bytes)) or not isinstance(words, Sequence):
            raise TypeError(f"documents[{i}] words must be a sequence of str, got {type(words).__name__}")
        for w in words[:k]:
            if not isinstance(w, str):
                raise TypeError(f"documents[{i}] words must be str, got {w!r}")
            rows.append((ident, w))
    return rows


def stable_epsilon(epsilon: float, stability: int) -> float:
    """The epsilon on D of an eps-DP mechanism run on T(D), for T of the given stability: ``stability * eps``.

    Parameters
    ----------
    epsilon : float
        Epsilon of the mechanism on the transformed data, finite and > 0.
    stability : int
        Most rows of T(D) one row of D can add or remove, 1 <= stability <= 10**15.

    Returns
    -------
    float
        ``stability * epsilon``.

    Raises
    ------
    ValueError
        If epsilon is not finite and > 0, stability is out of range, or the product overflows.
    TypeError
        If stability is not an integer or epsilon not a real number.

    References
    ----------
    McSherry, SIGMOD 2009, Section 2.

    Examples
    --------
    >>> stable_epsilon(0.5, 3)
    1.5
    """
    epsilon = check_epsilon(epsilon)
    stability = check_int("stability", stability, minimum=1, maximum=MAX_STABILITY)
    total = stability * epsilon
    if total == float("inf"):
        raise ValueError(f"epsilon={epsilon!r} x stability={stability} overflows a float")
    return total
