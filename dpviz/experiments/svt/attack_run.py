"""One run of the GPTT attack (NOT differentially private) beside SVT and Laplace, cached for the explorer.

References
----------
- [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
  the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpviz import datasets
from dpviz.experiments.prefetch import canonical, single_flight
from dpviz.svt import (
    ESTIMATORS,
    MAX_COPIES,
    MIN_CALIBRATED_EPSILON,
    NOT_DP,
    Reconstruction,
    ReconstructionAccuracy,
    SVTOracle,
    fraction_exact,
    laplace_reconstruct,
    reconstruct,
    reconstruct_from_oracle,
    support_k,
)
from dpviz.validation import (
    check_bool,
    check_choice,
    check_epsilon,
    check_int,
    check_open_unit,
    check_probability,
)

__all__ = ["GPTTAttackRun", "gptt_attack_run", "prefetch_gptt_runs"]


@dataclass(frozen=True)
class GPTTAttackRun:
    """One run of the GPTT attack beside the honest SVT attack and the Laplace baseline, on one histogram.

    GPTT is **NOT differentially private**; SVT and Laplace are epsilon-DP at the
    same total epsilon.

    Attributes
    ----------
    name : str
        The dataset.
    epsilon : float
        Total budget of each method.
    split : float
        Share of epsilon given to the threshold step (GPTT or SVT).
    query_share : float
        Share of GPTT's budget spent on query noise.
    copies : int
        Repetitions of every difference query.
    calibrate : bool
        Whether the GPTT attack located the noisy threshold first.
    estimator : str
        The attack's estimator.
    truth : numpy.ndarray, shape (d,)
        The true histogram (read-only).
    k : int
        Its support k.
    gptt_guess, svt_guess, laplace_guess : numpy.ndarray, shape (d,)
        The guessed counts of each method (read-only).
    gptt_accuracy, svt_accuracy, laplace_accuracy : ReconstructionAccuracy
        Their exact-guess fractions.
    gptt_groups, svt_groups : int
        Number of groups of each attack's partition.
    gptt_queries : int
        Threshold answers GPTT gave.
    svt_c : int
        SVT's halting count.
    """

    name: str
    epsilon: float
    split: float
    query_share: float
    copies: int
    calibrate: bool
    estimator: str
    truth: np.ndarray
    k: int
    gptt_guess: np.ndarray
    gptt_accuracy: ReconstructionAccuracy
    gptt_groups: int
    gptt_queries: int
    svt_guess: np.ndarray
    svt_accuracy: ReconstructionAccuracy
    svt_groups: int
    svt_c: int
    laplace_guess: np.ndarray
    laplace_accuracy: ReconstructionAccuracy

    def __repr__(self) -> str:
        return (f"GPTTAttackRun(GPTT {NOT_DP}; {self.name}, epsilon={self.epsilon:g}: exact all/<=k "
                f"GPTT {self.gptt_accuracy.overall:.3f}/{self.gptt_accuracy.small:.3f}, "
                f"SVT {self.svt_accuracy.overall:.3f}/{self.svt_accuracy.small:.3f}, "
                f"Laplace {self.laplace_accuracy.overall:.3f}/{self.laplace_accuracy.small:.3f})")


def gptt_attack_run(name: str, epsilon: float, *, split: float = 0.5, query_share: float = 0.0, copies: int = 1,
                    calibrate: bool = False, estimator: str = "average", svt_c: int = 10,
                    seed: int = 0) -> GPTTAttackRun:
    """The GPTT attack (**NOT differentially private**), the same attack through SVT, and Laplace, at one epsilon.

    * GPTT: :func:`dpviz.svt.reconstruct` (Algorithms 3 and 4 of [CM15]).
    * SVT: the same Algorithm 4 with the partition step answered by an
      epsilon-DP :class:`dpviz.svt.SVTOracle` (``split * epsilon``, halting after
      ``svt_c`` ABOVE answers) and the same Laplace totals.
    * Laplace: every count plus ``Lap(1/epsilon)``, rounded.

    Results are cached per setting (the explorer revisits settings), and their
    arrays are read-only; :func:`prefetch_gptt_runs` computes settings in the
    background.  ``seed`` seeds three independent streams.  Epsilon is read to
    12 significant digits.

    Parameters
    ----------
    name : str
        A histogram dataset (see :mod:`dpviz.datasets`).
    epsilon : float
        Total budget of each method, finite and > 0.
    split : float, default 0.5
        Share of epsilon given to the threshold step, in (0, 1).
    query_share : float, default 0
        Share of GPTT's budget spent on query noise, in [0, 1).
    copies : int, default 1
        Repetitions of every difference query (GPTT only), >= 1.
    calibrate : bool, default False
        Locate the noisy threshold first (GPTT only).
    estimator : {"average", "ordered"}, default "average"
        The attack's estimator.
    svt_c : int, default 10
        SVT's halting count, >= 1.
    seed : int, default 0
        Seed of the three streams (GPTT attack, SVT attack, Laplace), >= 0.

    Returns
    -------
    GPTTAttackRun
        The three reconstructions and their exact-guess fractions.

    Raises
    ------
    ValueError, TypeError
        If a parameter is invalid (``copies`` an int in ``[1, 2**30]``,
        ``calibrate`` a bool), ``name`` is not a histogram dataset, or
        ``calibrate=True`` with a threshold budget below
        :data:`dpviz.svt.MIN_CALIBRATED_EPSILON` (see :func:`dpviz.svt.reconstruct`).

    References
    ----------
    See [CM15] (Alg. 3 and 4) in the module docstring.

    Examples
    --------
    >>> run = gptt_attack_run("MEDCOST", 1.0, seed=0)
    >>> run.gptt_accuracy.small > run.laplace_accuracy.small > run.svt_accuracy.small
    True
    """
    return _cached_run(*_setting(name, epsilon, split, query_share, copies, calibrate, estimator, svt_c, seed))


def _setting(name: str, epsilon: float, split: float, query_share: float, copies: int, calibrate: bool,
             estimator: str, svt_c: int, seed: int) -> tuple[Any, ...]:
    """The validated arguments of :func:`gptt_attack_run`, in the order of :func:`_cached_run` (its cache key)."""
    epsilon = canonical(check_epsilon(epsilon))
    split = canonical(check_open_unit("split", split))
    query_share = check_probability("query_share", query_share, low_open=False, high_open=True)
    copies = check_int("copies", copies, minimum=1, maximum=MAX_COPIES)
    calibrate = check_bool("calibrate", calibrate)
    check_choice("estimator", estimator, ESTIMATORS)
    svt_c = check_int("svt_c", svt_c, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    info = datasets.describe(name)
    if info.kind != "histogram":
        raise ValueError(f"name must be a histogram dataset, got {name!r} ({info.kind})")
    for part, label in ((split * epsilon, "split * epsilon"), ((1.0 - split) * epsilon, "(1 - split) * epsilon")):
        if not part > 1e-300:  # every stage's Laplace scale 1/part must be a finite float
            raise ValueError(f"epsilon={epsilon!r} is too small: {label} = {part!r} leaves no finite noise scale")
    if calibrate and (1.0 - query_share) * split * epsilon < MIN_CALIBRATED_EPSILON:
        raise ValueError(f"calibrate=True needs GPTT's threshold budget (1 - query_share) * split * epsilon "
                         f">= {MIN_CALIBRATED_EPSILON:.3g} (epsilon={epsilon!r}, split={split!r}); raise epsilon "
                         "or split, or pass calibrate=False")
    return info.name, epsilon, split, query_share, copies, calibrate, estimator, svt_c, seed


def prefetch_gptt_runs(settings: Sequence[dict[str, Any]]) -> None:
    """Compute, in a background thread, the runs :func:`gptt_attack_run` will be asked for next.

    Each setting is a dict of :func:`gptt_attack_run`'s arguments (``name`` and ``epsilon``, and optionally
    ``split``, ``query_share``, ``copies``, ``calibrate``, ``estimator``, ``svt_c``, ``seed``), most wanted
    first.  The thread starts once calls have been quiet for 0.25 s and never while a call computes; a later
    call replaces the settings still waiting; a call asking for a run being computed waits for it.  A run is
    the same whichever thread computes it (seeded).

    Parameters
    ----------
    settings : sequence of dict
        The settings, most wanted first.

    Raises
    ------
    TypeError, ValueError
        If a setting is not a dict, names an unknown argument or has an invalid value (as
        :func:`gptt_attack_run` would say), before anything is queued.

    Examples
    --------
    >>> prefetch_gptt_runs([dict(name="MEDCOST", epsilon=0.5, seed=3)])
    >>> gptt_attack_run("MEDCOST", 0.5, seed=3).name
    'MEDCOST'
    """
    defaults: dict[str, Any] = dict(split=0.5, query_share=0.0, copies=1, calibrate=False, estimator="average",
                                    svt_c=10, seed=0)
    keys = []
    for setting in settings:
        if not isinstance(setting, dict):
            raise TypeError(f"each setting must be a dict of gptt_attack_run's arguments, got {type(setting).__name__}")
        unknown = set(setting) - set(defaults) - {"name", "epsilon"}
        if unknown:
            raise ValueError(f"unknown setting argument(s) {sorted(unknown)}; allowed: name, epsilon, "
                             f"{', '.join(defaults)}")
        if "name" not in setting or "epsilon" not in setting:
            raise ValueError("each setting needs a name and an epsilon")
        keys.append(_setting(**(defaults | setting)))
    _cached_run.warm(keys)


@single_flight(maxsize=128)
def _cached_run(name: str, epsilon: float, split: float, query_share: float, copies: int, calibrate: bool,
                estimator: str, svt_c: int, seed: int) -> GPTTAttackRun:
    """Uncached body of :func:`gptt_attack_run` on validated arguments (the cache keys on them).

    The three methods are cached apart as well: a change of GPTT's own options (query noise, copies,
    calibration) reuses the SVT attack and the Laplace counts, which do not depend on them.
    """
    x = _histogram(name)
    k = support_k(x)
    gptt = _gptt_part(name, epsilon, split, query_share, copies, calibrate, estimator, seed)
    svt_guess, svt_groups = _svt_part(name, epsilon, split, estimator, svt_c, seed)
    lap = _laplace_part(name, epsilon, seed)
    return GPTTAttackRun(
        name=name, epsilon=epsilon, split=split, query_share=query_share, copies=copies, calibrate=calibrate,
        estimator=estimator, truth=x, k=k, gptt_guess=gptt.guess, gptt_accuracy=fraction_exact(x, gptt.guess, k),
        gptt_groups=gptt.partition.n_groups, gptt_queries=gptt.queries, svt_guess=svt_guess,
        svt_accuracy=fraction_exact(x, svt_guess, k), svt_groups=svt_groups, svt_c=svt_c,
        laplace_guess=lap, laplace_accuracy=fraction_exact(x, lap, k),
    )


def _streams(seed: int) -> list[np.random.SeedSequence]:
    """The three independent streams of a run (GPTT attack, SVT attack, Laplace), spawned from ``seed``."""
    return np.random.SeedSequence(seed).spawn(3)


@functools.lru_cache(maxsize=16)
def _histogram(name: str) -> np.ndarray:
    """The dataset's histogram, read-only."""
    x = datasets.load(name)
    x.setflags(write=False)
    return x


@functools.lru_cache(maxsize=128)
def _gptt_part(name: str, epsilon: float, split: float, query_share: float, copies: int, calibrate: bool,
               estimator: str, seed: int) -> Reconstruction:
    """The GPTT attack of a run (its guess read-only)."""
    rec = reconstruct(_histogram(name), epsilon, split=split, query_share=query_share, copies=copies,
                      calibrate=calibrate, estimator=estimator, rng=np.random.default_rng(_streams(seed)[0]))
    rec.guess.setflags(write=False)
    return rec


@functools.lru_cache(maxsize=128)
def _svt_part(name: str, epsilon: float, split: float, estimator: str, svt_c: int,
              seed: int) -> tuple[np.ndarray, int]:
    """The same attack through SVT: its guess (read-only) and number of groups."""
    oracle = SVTOracle(_histogram(name), split * epsilon, svt_c, rng=np.random.default_rng(_streams(seed)[1]))
    rec = reconstruct_from_oracle(oracle, (1 - split) * epsilon, estimator=estimator)
    rec.guess.setflags(write=False)
    return rec.guess, rec.partition.n_groups


@functools.lru_cache(maxsize=128)
def _laplace_part(name: str, epsilon: float, seed: int) -> np.ndarray:
    """Rounded Laplace counts of a run (read-only)."""
    lap = laplace_reconstruct(_histogram(name), epsilon, rng=np.random.default_rng(_streams(seed)[2]))
    lap.setflags(write=False)
    return lap
