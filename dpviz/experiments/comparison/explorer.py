"""The algorithm-comparison explorer's computation: cached runs per setting, summarised per query group."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpviz.data_aware import Partition
from dpviz.experiments import check_band
from dpviz.experiments.comparison.data import MAX_CELLS, SHAPES, WORKLOADS, make_histogram, make_workload
from dpviz.experiments.comparison.runs import AlgorithmRun, run_algorithm, stable_seed
from dpviz.experiments.prefetch import canonical, single_flight
from dpviz.histogram_algorithms import available_algorithms
from dpviz.validation import check_choice, check_epsilon, check_int, check_positive

__all__ = ["ExplorerResult", "comparison_explorer_run", "prefetch_comparison_runs", "SHARED_RUNS"]

#: Largest number of algorithm runs the shared cache keeps (least recently used dropped first).
SHARED_RUNS = 512


@dataclass(frozen=True)
class ExplorerResult:
    """What the algorithm-comparison explorer shows for one setting of its controls.

    Attributes
    ----------
    source : str
        The data: a shape of :data:`SHAPES` or a shipped histogram.
    n : int
        Number of cells.
    scale : float or None
        Number of records drawn from the data's shape, or None for the real counts.
    workload : str
        Name of the workload.
    epsilon : float
        Budget of each release.
    trials : int
        Releases per algorithm.
    seed : int
        The seed every stream is derived from.
    x : numpy.ndarray
        Shape (n,): the data compared on.
    algorithms : tuple of str
        The algorithms shown, in order.
    runs : dict of str to AlgorithmRun
        Algorithm -> its trials.
    query_rank : numpy.ndarray
        Shape (g,): position of each query group (queries sorted by width, then start).
    query_width : numpy.ndarray
        Shape (g,): mean width of the queries in each group.
    profile_mean : dict of str to numpy.ndarray
        Algorithm -> (g,) mean absolute error per query of each group, averaged over trials.
    profile_lower : dict of str to numpy.ndarray
        Algorithm -> (g,) lower ``band`` percentile of that error over trials.
    profile_upper : dict of str to numpy.ndarray
        Algorithm -> (g,) upper ``band`` percentile of that error over trials.
    band : (float, float)
        The percentile band.
    partition : Partition or None
        DAWA's learned partition in the first trial (None if no DAWA variant is shown).
    partition_algorithm : str or None
        Which DAWA variant it comes from.
    estimates : dict of str to numpy.ndarray
        Algorithm -> (n,) the first trial's released histogram.
    computed : tuple of str
        Algorithms computed for this call (the others came from the cache).
    """

    source: str
    n: int
    scale: float | None
    workload: str
    epsilon: float
    trials: int
    seed: int
    x: np.ndarray
    algorithms: tuple[str, ...]
    runs: dict[str, AlgorithmRun]
    query_rank: np.ndarray
    query_width: np.ndarray
    profile_mean: dict[str, np.ndarray]
    profile_lower: dict[str, np.ndarray]
    profile_upper: dict[str, np.ndarray]
    band: tuple[float, float]
    partition: Partition | None
    partition_algorithm: str | None
    estimates: dict[str, np.ndarray]
    computed: tuple[str, ...]


def _run_seed(seed: int, algorithm: str, source: str, workload: str, epsilon: float, n: int,
              scale: float | None) -> Any:
    """The seed of one algorithm's trials: derived from the whole setting, so each setting draws its own noise."""
    return stable_seed(seed, algorithm, source, workload, repr(epsilon), str(n), repr(scale))


@single_flight(maxsize=16)
def _shared_data(source: str, n: int, scale: float | None, seed: int) -> np.ndarray:
    """The (read-only) histogram of a setting, computed once for the shared cache."""
    x = make_histogram(source, n, scale=scale, rng=stable_seed(seed, "data", source))
    x.flags.writeable = False
    return x


@single_flight(maxsize=SHARED_RUNS)
def _shared_run(source: str, n: int, scale: float | None, workload: str, epsilon: float, trials: int, seed: int,
                algorithm: str) -> AlgorithmRun:
    """One algorithm's trials for a setting, computed once (here or by the background thread) and shared."""
    x = _shared_data(source, n, scale, seed)
    return run_algorithm(algorithm, x, make_workload(workload, x.size), epsilon, trials=trials, keep_errors=True,
                         rng=_run_seed(seed, algorithm, source, workload, epsilon, x.size, scale))


def comparison_explorer_run(source: str, algorithms: Sequence[str], epsilon: float, *, n: int = 256,
                            scale: float | None = None, workload: str = "prefix", trials: int = 5, rng: int = 0,
                            band: tuple[float, float] = (5.0, 95.0), max_points: int = 256,
                            cache: dict[tuple[Any, ...], Any] | None = None,
                            progress: Callable[[int, int, str], None] | None = None) -> ExplorerResult:
    """Run (or fetch from a cache) every selected algorithm for one explorer setting and summarise it.

    Each algorithm's trials are keyed by the whole setting (data source, n,
    scale, workload, epsilon, trials, seed, algorithm), so moving a control
    back, or ticking one more algorithm, only computes what is new.  Without
    ``cache`` the runs go into a cache shared by every call of the process
    (:data:`SHARED_RUNS` runs), which :func:`prefetch_comparison_runs` fills in
    the background; a run being computed there is waited for, not computed
    twice.  Epsilon is read to 12 significant digits.  Per-query
    absolute errors ``|W x_hat - W x|`` are averaged within at most
    ``max_points`` groups of consecutive queries (sorted by width, then start)
    for the error profile; the band is over trials.

    Parameters
    ----------
    source : str
        A shape of :data:`SHAPES` or a shipped 1-D histogram.
    algorithms : sequence of str
        The algorithms to show (at least one).
    epsilon : float
        Budget > 0 of each release.
    n : int, default 256
        Number of cells.
    scale : float, optional
        Number of records drawn from the data's shape (None: real counts; 10,000 for a shape).
    workload : str, default "prefix"
        A name from :data:`WORKLOADS`.
    trials : int, default 5
        Releases per algorithm, >= 2 (the band needs two).
    rng : int, default 0
        The seed every stream is derived from.
    band : (float, float), default (5, 95)
        Percentiles of the band over trials.
    max_points : int, default 256
        Largest number of query groups in the error profile.
    cache : dict, optional
        Results of earlier calls, filled in place (pass the same dict again to reuse them); None (default)
        for the shared cache.
    progress : callable(done, total, label), optional
        Called after each algorithm.

    Returns
    -------
    ExplorerResult
        Everything the explorer's three panels show.

    Raises
    ------
    TypeError, ValueError
        If ``source`` is not a str, no or an unknown algorithm is given, epsilon is not > 0, ``trials``
        < 2, the seed is negative, the band is invalid, or the data is unknown or empty.

    Examples
    --------
    >>> res = comparison_explorer_run("step", ["Identity", "Uniform"], 1.0, n=32, trials=3, rng=0)
    >>> res.algorithms, res.estimates["Identity"].shape, res.computed
    (('Identity', 'Uniform'), (32,), ('Identity', 'Uniform'))
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a dataset name or a shape (a str), got {type(source).__name__}")
    algs = tuple(check_choice("algorithms[]", a, available_algorithms()) for a in algorithms)
    if not algs:
        raise ValueError("algorithms must name at least one algorithm (tick at least one box)")
    epsilon = canonical(check_epsilon(epsilon))
    trials = check_int("trials", trials, minimum=2)
    seed = check_int("rng", rng, minimum=0)
    max_points = check_int("max_points", max_points, minimum=1)
    lo, hi = check_band(band)
    n = check_int("n", n, minimum=1, maximum=MAX_CELLS)
    check_choice("workload", workload, WORKLOADS)
    if scale is not None:
        check_positive("scale", scale)  # make_histogram checks the rest; the key keeps the value as given
    if scale is None and source in SHAPES:
        scale = 10_000  # make_histogram's default for a shape, stated in the result
    if cache is None:
        x = _shared_data(source, n, scale, seed)
    else:
        dkey = ("data", source, n, scale, seed)
        if dkey not in cache:
            cache[dkey] = make_histogram(source, n, scale=scale, rng=stable_seed(seed, "data", source))
        x = cache[dkey]
    if x.sum() <= 0:
        raise ValueError(f"the data {source!r} at this scale is empty; choose a larger scale")
    W = make_workload(workload, x.size)
    runs: dict[str, AlgorithmRun] = {}
    computed: list[str] = []
    for i, a in enumerate(algs):
        if cache is None:
            shared = (source, n, scale, workload, epsilon, trials, seed, a)
            if not _shared_run.cached(shared):
                computed.append(a)
            runs[a] = _shared_run(*shared)
            if progress is not None:
                progress(i + 1, len(algs), a)
            continue
        key = ("run", source, x.size, scale, workload, epsilon, trials, seed, a)
        if key not in cache:
            cache[key] = run_algorithm(a, x, W, epsilon, trials=trials, keep_errors=True,
                                       rng=_run_seed(seed, a, source, workload, epsilon, x.size, scale))
            computed.append(a)
        runs[a] = cache[key]
        if progress is not None:
            progress(i + 1, len(algs), a)
    if W.is_range:
        s, e = W.intervals()
    else:  # not ranges: every query counts as one cell wide, kept in its order
        s, e = np.zeros(W.n_queries, dtype=np.int64), np.ones(W.n_queries, dtype=np.int64)
    order = np.lexsort((s, e - s))
    m = order.size
    groups = np.minimum(np.arange(m) * min(max_points, m) // m, max_points - 1)
    counts = np.bincount(groups).astype(float)
    rank = np.bincount(groups, weights=np.arange(m, dtype=float)) / counts
    width = np.bincount(groups, weights=(e - s)[order].astype(float)) / counts
    pm: dict[str, np.ndarray] = {}
    pl: dict[str, np.ndarray] = {}
    pu: dict[str, np.ndarray] = {}
    for a, run in runs.items():
        if run.errors is None:  # every run above keeps its errors
            raise RuntimeError(f"the cached run of {a} kept no per-query errors")
        absd = np.abs(run.errors[:, order])
        per = np.stack([np.bincount(groups, weights=row) for row in absd]) / counts  # (trials, g)
        pm[a] = per.mean(axis=0)
        pl[a], pu[a] = np.percentile(per, [lo, hi], axis=0)
    dawa = next((a for a in algs if a.startswith("DAWA")), None)
    partitions = None if dawa is None else runs[dawa].partitions
    return ExplorerResult(
        source=source, n=int(x.size), scale=scale, workload=W.name, epsilon=epsilon, trials=trials, seed=seed, x=x,
        algorithms=algs, runs=runs, query_rank=rank, query_width=width, profile_mean=pm, profile_lower=pl,
        profile_upper=pu, band=(lo, hi), partition=None if partitions is None else partitions[0],
        partition_algorithm=dawa, estimates={a: r.estimates[0] for a, r in runs.items()}, computed=tuple(computed),
    )


def prefetch_comparison_runs(settings: Sequence[dict[str, Any]]) -> None:
    """Compute, in a background thread, the runs :func:`comparison_explorer_run` will need for these settings.

    Each setting is a dict of :func:`comparison_explorer_run`'s arguments (``source``, ``algorithms``,
    ``epsilon``, and optionally ``n``, ``scale``, ``workload``, ``trials``, ``rng``), most wanted first.  The
    runs go into the shared cache (calls without ``cache``); the thread starts once calls have been quiet for
    0.25 s and never while a call computes, and a later call replaces the runs still waiting.  A call that
    asks for a run being computed waits for it.  Results are the same whichever thread computes them (seeded
    by the setting).

    Parameters
    ----------
    settings : sequence of dict
        The settings, most wanted first.

    Raises
    ------
    TypeError, ValueError
        If a setting is not a dict, names an unknown argument, or has a bad algorithm, epsilon, trials, seed,
        n or workload (as :func:`comparison_explorer_run` would say), before anything is queued.

    Examples
    --------
    >>> prefetch_comparison_runs([dict(source="step", algorithms=["Identity"], epsilon=0.5, n=32, trials=3)])
    >>> comparison_explorer_run("step", ["Identity"], 0.5, n=32, trials=3).estimates["Identity"].shape
    (32,)
    """
    keys: list[tuple[Any, ...]] = []
    allowed = {"source", "algorithms", "epsilon", "n", "scale", "workload", "trials", "rng"}
    for setting in settings:
        if not isinstance(setting, dict):
            raise TypeError(f"each setting must be a dict of comparison_explorer_run's arguments, "
                            f"got {type(setting).__name__}")
        unknown = set(setting) - allowed
        if unknown:
            raise ValueError(f"unknown setting argument(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
        source = setting.get("source")
        if not isinstance(source, str):
            raise TypeError(f"source must be a dataset name or a shape (a str), got {type(source).__name__}")
        algs = [check_choice("algorithms[]", a, available_algorithms()) for a in setting.get("algorithms", ())]
        epsilon = canonical(check_epsilon(setting.get("epsilon")))
        n = check_int("n", setting.get("n", 256), minimum=1)
        workload = check_choice("workload", setting.get("workload", "prefix"), WORKLOADS)
        trials = check_int("trials", setting.get("trials", 5), minimum=2)
        seed = check_int("rng", setting.get("rng", 0), minimum=0)
        scale = setting.get("scale")
        if scale is not None:
            check_positive("scale", scale)
        elif source in SHAPES:
            scale = 10_000
        keys += [(source, n, scale, workload, epsilon, trials, seed, a) for a in algs]
    _shared_run.warm(keys)
