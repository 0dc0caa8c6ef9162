"""Choosing privately (lecture 09): exact selection probabilities beside simulated frequencies, and expected scores.

:func:`selection_run` runs one selection mechanism many times on a score vector, returns the simulated
frequency of every candidate beside its exact probability, and the expected score of every mechanism of
:data:`dpviz.selection.MECHANISMS`, at the chosen epsilon and along a grid of epsilons.  The score vectors of
the lecture are named in :data:`SCORE_VECTORS` (counts: sensitivity 1, monotone under add/remove-one).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz import datasets, selection
from dpviz.mechanisms import selection_scale
from dpviz.rng import RngLike
from dpviz.validation import (
    MAX_MAGNITUDE,
    check_array,
    check_bool,
    check_choice,
    check_elements,
    check_epsilon,
    check_int,
    check_positive,
)

__all__ = ["SCORE_VECTORS", "EPSILON_GRID", "CURVE_MECHANISMS", "SelectionRun", "selection_scores",
           "expected_score_curves", "selection_run"]

#: The lecture's score vectors (all counts of people: sensitivity 1, monotone), by name.
SCORE_VECTORS = {
    "adult": "DPBench ADULT: the 10 most common non-zero capital-loss bins (counts of people)",
    "close race": "a close race: ten counts one apart, 30 down to 21",
    "clear winner": "one clear winner: a count of 40 against nine counts of 10",
}

#: Epsilons of the expected-score curves (the explorer's slider range).
EPSILON_GRID = 10.0 ** np.linspace(-2.5, 1.3, 20)

#: The mechanisms with a curve of their own ("rnm-gumbel" has the exponential mechanism's).
CURVE_MECHANISMS = ("exponential", "rnm-laplace", "permute-and-flip")


def selection_scores(name: str) -> tuple[np.ndarray, list[str]]:
    """A named score vector of :data:`SCORE_VECTORS` and the candidates' labels.

    ``"adult"`` takes the DPBench ADULT histogram (capital loss, 4096 bins), drops bin 0 (capital loss 0,
    16,836 of the 17,665 people, which any mechanism picks at any useful epsilon) and keeps the 10 largest
    counts: the candidates are these 10 bins, taken as public for the lecture.

    Parameters
    ----------
    name : {"adult", "close race", "clear winner"}
        Which score vector.

    Returns
    -------
    tuple of (numpy.ndarray, list of str)
        The scores (largest first) and a label per candidate.

    Raises
    ------
    ValueError
        For an unknown name.

    Examples
    --------
    >>> scores, labels = selection_scores("adult")
    >>> scores[:3].tolist(), labels[0]
    ([116.0, 98.0, 75.0], 'bin 1902')
    """
    name = check_choice("name", name, SCORE_VECTORS)
    if name == "adult":
        x = datasets.load("ADULT").astype(float)
        bins = np.argsort(-x[1:], kind="stable")[:10] + 1
        return x[bins], [f"bin {b}" for b in bins]
    if name == "close race":
        scores = np.arange(30.0, 20.0, -1.0)
    else:
        scores = np.array([40.0] + [10.0] * 9)
    return scores, [f"c{i + 1}" for i in range(scores.size)]


@functools.lru_cache(maxsize=32)
def _curves(scores: tuple[float, ...], epsilons: tuple[float, ...], sensitivity: float,
            monotone: bool) -> tuple[tuple[float, ...], ...]:
    """Expected scores of CURVE_MECHANISMS along the grid (cached: they depend on neither the mechanism shown,
    nor the epsilon chosen, nor the seed)."""
    u = np.array(scores)
    return tuple(tuple(float(selection.selection_probabilities(u, e, mech, sensitivity, monotone=monotone) @ u)
                       for e in epsilons) for mech in CURVE_MECHANISMS)


def expected_score_curves(scores: ArrayLike, epsilons: ArrayLike | None = None, sensitivity: float = 1.0, *,
                          monotone: bool = False) -> dict[str, np.ndarray]:
    """The exact expected score of each mechanism of :data:`CURVE_MECHANISMS` along a grid of epsilons.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite; at most 100 candidates.
    epsilons : array_like, optional
        1-D grid of epsilons, each > 0, at most 100 (default :data:`EPSILON_GRID`).
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone (noise scale Delta / epsilon).

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"epsilon": grid, mechanism: expected scores, ..., "guarantee": ...}``; ``"guarantee"`` is the
        exponential mechanism's bound ``max(scores) - s (ln m + 1)`` on its expected score
        (:func:`dpviz.selection.exponential_utility_gap` with t = 1).

    Raises
    ------
    ValueError
        For invalid scores or epsilons, or sensitivity not > 0.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> c = expected_score_curves([10.0, 0.0], [0.1, 10.0])
    >>> c["exponential"].round(3).tolist()
    [6.225, 10.0]
    """
    u = check_array("scores", scores, ndim=1, max_abs=MAX_MAGNITUDE)
    if not 1 <= u.size <= 100:
        raise ValueError(f"scores must hold 1 to 100 candidates for the curves, got {u.size}")
    grid = EPSILON_GRID if epsilons is None else check_array("epsilons", epsilons, ndim=1)
    if not 1 <= grid.size <= 100 or np.any(grid <= 0):
        raise ValueError(f"epsilons must be 1 to 100 values, each > 0, got {grid.tolist()!r:.200}")
    for e in grid:
        check_epsilon(float(e), "epsilons[]")  # each a valid epsilon (a subnormal one is refused here, by name)
    delta = check_positive("sensitivity", sensitivity)
    values = _curves(tuple(u.tolist()), tuple(grid.tolist()), delta, check_bool("monotone", monotone))
    out = {"epsilon": grid.copy()}
    out.update({mech: np.array(v) for mech, v in zip(CURVE_MECHANISMS, values, strict=True)})
    out["guarantee"] = np.array([u.max() - selection.exponential_utility_gap(e, u.size, 1.0, delta, monotone=monotone)
                                 for e in grid])
    return out


@dataclass(frozen=True)
class SelectionRun:
    """One selection mechanism run many times on one score vector: exact probabilities beside frequencies.

    Attributes
    ----------
    scores : numpy.ndarray
        The candidates' scores.
    labels : list of str
        A label per candidate.
    epsilon : float
        The privacy parameter of one selection.
    mechanism : str
        The mechanism run (a key of :data:`dpviz.selection.MECHANISMS`).
    sensitivity : float
        Delta.
    monotone : bool
        Whether the calibration assumes monotone scores.
    scale : float
        The selection scale s (:func:`dpviz.mechanisms.selection_scale`).
    probabilities : numpy.ndarray
        The mechanism's exact selection probabilities.
    frequencies : numpy.ndarray
        The fraction of the ``trials`` runs that chose each candidate.
    stderr : numpy.ndarray
        Standard error of each frequency, ``sqrt(p (1 - p) / trials)`` with the exact p.
    trials : int
        Number of simulated selections.
    mean_score, mean_score_stderr : float
        The simulated mean of the chosen score, and its standard error (from the exact variance).
    expected : dict of str to float
        The exact expected score of every mechanism of :data:`dpviz.selection.MECHANISMS` at ``epsilon``.
    best_probability : dict of str to float
        The exact probability that each mechanism chooses a best candidate, at ``epsilon``.
    best : float
        The best score.
    utility_gap : float
        The exponential mechanism's bound ``s (ln m + 1)`` on the expected shortfall ``E[best - chosen]``.
    curves : dict of str to numpy.ndarray
        :func:`expected_score_curves` along :data:`EPSILON_GRID` (``"epsilon"`` and one curve per mechanism).
    """

    scores: np.ndarray
    labels: list[str]
    epsilon: float
    mechanism: str
    sensitivity: float
    monotone: bool
    scale: float
    probabilities: np.ndarray
    frequencies: np.ndarray
    stderr: np.ndarray
    trials: int
    mean_score: float
    mean_score_stderr: float
    expected: dict[str, float]
    best_probability: dict[str, float]
    best: float
    utility_gap: float
    curves: dict[str, np.ndarray]


def selection_run(scores: ArrayLike, epsilon: float, mechanism: str = "exponential", *, sensitivity: float = 1.0,
                  monotone: bool = False, trials: int = 10_000, labels: list[str] | None = None,
                  rng: RngLike = None) -> SelectionRun:
    """Run ``mechanism`` ``trials`` times on ``scores``; its exact probabilities, every mechanism's expected score.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite; 1 to 100 candidates.
    epsilon : float
        Privacy parameter of one selection, finite and > 0.
    mechanism : {"exponential", "rnm-gumbel", "rnm-laplace", "permute-and-flip"}, default "exponential"
        Which mechanism to simulate.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone (noise scale Delta / epsilon).
    trials : int, default 10_000
        Number of simulated selections, >= 1.
    labels : list of str, optional
        A label per candidate (default ``c1, c2, ...``).
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    SelectionRun
        Exact probabilities, simulated frequencies with standard errors, expected scores and their curves.

    Raises
    ------
    ValueError
        For invalid scores, epsilon, sensitivity, mechanism or trials, or labels of the wrong length.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> run = selection_run([3.0, 2.0, 0.0], 1.0, "permute-and-flip", trials=2000, rng=0)
    >>> run.probabilities.round(3).tolist(), run.expected["permute-and-flip"] >= run.expected["exponential"]
    ([0.63, 0.281, 0.089], True)
    """
    u = check_array("scores", scores, ndim=1, max_abs=MAX_MAGNITUDE)
    if not 1 <= u.size <= 100:
        raise ValueError(f"scores must hold 1 to 100 candidates, got {u.size}")
    mechanism = check_choice("mechanism", mechanism, selection.MECHANISMS)
    trials = check_int("trials", trials, minimum=1)
    check_elements(2.0 * trials * u.size, "trials x candidates draws", trials=trials, candidates=u.size)
    monotone = check_bool("monotone", monotone)
    names = [f"c{i + 1}" for i in range(u.size)] if labels is None else [str(s) for s in labels]
    if len(names) != u.size:
        raise ValueError(f"labels must name every candidate ({u.size}), got {len(names)}")
    s = selection_scale(sensitivity, epsilon, monotone=monotone)
    probs = {mech: selection.selection_probabilities(u, epsilon, mech, sensitivity, monotone=monotone)
             for mech in selection.MECHANISMS}
    p = probs[mechanism]
    picks = selection.select(u, epsilon, mechanism, sensitivity, monotone=monotone, rng=rng, size=trials)
    freq = np.bincount(np.asarray(picks), minlength=u.size) / trials
    top = u == u.max()
    mean = float(p @ u)
    spread = float(np.sqrt(float(p @ (u - mean) ** 2) / trials))
    return SelectionRun(
        scores=u, labels=names, epsilon=float(epsilon), mechanism=mechanism, sensitivity=float(sensitivity),
        monotone=monotone, scale=s, probabilities=p, frequencies=freq, stderr=np.sqrt(p * (1 - p) / trials),
        trials=trials, mean_score=float(freq @ u), mean_score_stderr=spread,
        expected={mech: float(min(q @ u, u.max())) for mech, q in probs.items()},
        best_probability={mech: float(q[top].sum()) for mech, q in probs.items()},
        best=float(u.max()),
        utility_gap=selection.exponential_utility_gap(epsilon, u.size, 1.0, sensitivity, monotone=monotone),
        curves=expected_score_curves(u, None, sensitivity, monotone=monotone),
    )
