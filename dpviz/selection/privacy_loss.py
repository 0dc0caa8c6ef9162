"""The exact privacy loss of a selection mechanism between neighbouring score vectors.

A selection mechanism's output is one of m candidates, so for every set S of outputs
``P(M(D) in S) / P(M(D') in S)`` is at most the largest ratio of single outputs: the mechanism is epsilon-DP
on a pair of neighbours exactly when ``max_r |ln P_D(r) - ln P_D'(r)| <= epsilon``.  The selection mechanisms
only see the data through the scores, and a neighbour can move every score by up to Delta: in any direction
(``relation="any"``), or all in the same direction (``"monotone"``: counts under add/remove-one, where an
added record raises some counts and lowers none).  :func:`neighbouring_scores` lists the corners of that box
of moves; :func:`selection_privacy_loss` computes the exact loss over them.  For the exponential mechanism
``ln P_u(r) - ln P_u'(r)`` is largest at a corner u' (``-ln P_u'(r)`` is convex in u'); it approaches
``epsilon`` (and never reaches it) as the other candidates come to dominate the normaliser.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import ArrayLike

from dpviz.selection.menu import MECHANISMS, selection_log_probabilities
from dpviz.selection.scores import _scores
from dpviz.validation import MAX_MAGNITUDE, check_choice, check_positive

__all__ = ["RELATIONS", "neighbouring_scores", "selection_privacy_loss"]

#: How a neighbour may move the scores: each by up to Delta in any direction, or all in one direction.
RELATIONS = ("any", "monotone")

#: Most candidates whose 2^m (or 2^(m+1)) corner neighbours are enumerated.
MAX_CORNER_CANDIDATES = 12


def neighbouring_scores(scores: ArrayLike, sensitivity: float = 1.0, relation: str = "any") -> np.ndarray:
    """The corner neighbours of a score vector: every score moved by exactly 0 or +-Delta.

    ``"any"``: ``u + Delta d`` for every ``d`` in ``{-1, +1}^m`` (2^m vectors); ``"monotone"``: ``u + Delta d``
    for every ``d`` in ``{0, 1}^m`` and in ``{-1, 0}^m`` except ``d = 0`` (all moves in one direction, as
    adding or removing one record moves counts).

    Parameters
    ----------
    scores : array_like, shape (m,)
        The scores on the dataset D, finite; at most 12 candidates.
    sensitivity : float, default 1.0
        Delta, > 0.
    relation : {"any", "monotone"}, default "any"
        How a neighbour may move the scores.

    Returns
    -------
    numpy.ndarray, shape (k, m)
        One neighbouring score vector per row.

    Raises
    ------
    ValueError
        For invalid scores (or more than 12 candidates), sensitivity not > 0, or an unknown relation.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> neighbouring_scores([5.0, 3.0], relation="monotone").tolist()
    [[5.0, 4.0], [6.0, 3.0], [6.0, 4.0], [5.0, 2.0], [4.0, 3.0], [4.0, 2.0]]
    """
    u = _scores(scores)
    if u.size > MAX_CORNER_CANDIDATES:
        raise ValueError(f"scores has {u.size} candidates; at most {MAX_CORNER_CANDIDATES} have their 2^m corner "
                         "neighbours listed")
    delta = check_positive("sensitivity", sensitivity)
    relation = check_choice("relation", relation, RELATIONS)
    if relation == "any":
        moves = np.array(list(itertools.product((-1.0, 1.0), repeat=u.size)))
    else:
        up = np.array(list(itertools.product((0.0, 1.0), repeat=u.size)))[1:]
        moves = np.concatenate([up, -up])
    if np.max(np.abs(u)) + delta > MAX_MAGNITUDE:  # the neighbours' scores must be valid scores too
        raise ValueError(f"scores moved by sensitivity={delta!r} would exceed {MAX_MAGNITUDE:.0e} in magnitude (the "
                         "largest score): lower sensitivity")
    return u[None, :] + delta * moves


def selection_privacy_loss(scores: ArrayLike, epsilon: float, mechanism: str = "exponential",
                           sensitivity: float = 1.0, *, monotone: bool = False, relation: str = "any") -> float:
    """The largest exact privacy loss ``|ln P_u(r) - ln P_u'(r)|`` over the corner neighbours u' of u.

    The mechanism is calibrated with ``monotone`` (its noise scale); the neighbours move the scores as
    ``relation`` says.  A mechanism calibrated for monotone scores but run on scores that are not
    (``monotone=True, relation="any"``) can lose more than epsilon: the reason for the 2 in ``2 Delta / epsilon``.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The scores on D, finite; at most 12 candidates.
    epsilon : float
        The mechanism's privacy parameter, finite and > 0.
    mechanism : {"exponential", "rnm-gumbel", "rnm-laplace", "permute-and-flip"}, default "exponential"
        Which mechanism (see :data:`dpviz.selection.MECHANISMS`).
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        The mechanism's calibration: noise of scale ``Delta / epsilon`` instead of ``2 Delta / epsilon``.
    relation : {"any", "monotone"}, default "any"
        How the neighbours move the scores (:func:`neighbouring_scores`).

    Returns
    -------
    float
        ``max over u', r of |ln P_u(r) - ln P_u'(r)|``.

    Raises
    ------
    ValueError
        For invalid scores (or more than 12 candidates), epsilon or sensitivity not > 0, or an unknown
        mechanism or relation.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> round(selection_privacy_loss([3.0, 2.0, 0.0], 1.0), 3), round(selection_privacy_loss([3.0, 2.0, 0.0], 1.0,
    ...                                                                                    monotone=True), 3)
    (0.92, 1.969)
    """
    mechanism = check_choice("mechanism", mechanism, MECHANISMS)
    here = selection_log_probabilities(scores, epsilon, mechanism, sensitivity, monotone=monotone)
    worst = 0.0
    for other in neighbouring_scores(scores, sensitivity, relation):
        there = selection_log_probabilities(other, epsilon, mechanism, sensitivity, monotone=monotone)
        if not (np.all(np.isfinite(here)) and np.all(np.isfinite(there))):
            # a probability below the doubles (ln P = -inf) leaves the loss, a finite number, uncomputable
            raise ValueError(f"epsilon={epsilon!r}, sensitivity={sensitivity!r}: some selection probability "
                             "underflows to 0 (its log to -inf), so the exact privacy loss cannot be computed in "
                             "double precision; lower epsilon or raise sensitivity")
        worst = max(worst, float(np.max(np.abs(here - there))))
    return worst
