"""Algorithm comparison in the style of DPBench: algorithms x datasets x epsilons x trials -> a tidy table.

Every algorithm releases a histogram estimate ``x_hat`` of the same data ``x``
at the same epsilon; its answers to the workload ``W`` are ``W x_hat`` and its
error in one trial is DPBench's *scaled average per-query error* [HMMCZ16]_

    ``scaled_error = ||W x_hat - W x||_2 / (m * s)``

with m the number of queries and ``s = ||x||_1`` the scale (number of
records): an absolute error of 100 means little on a million records and a lot
on a thousand.  The table also keeps the root mean squared error per query,
``||W x_hat - W x||_2 / sqrt(m)``, in counts.

Algorithms (see :data:`ALGORITHMS`): the workload-aware *Identity* (Laplace on
every cell), *H_b* (hierarchy with constrained inference, branching by
Qardaji's rule), *Privelet* (Haar wavelet) and *GreedyH* (matrix mechanism with
a workload-weighted hierarchy); the data-aware *Uniform*, *MWEM* and *DAWA*
(stage 2 GreedyH as in the paper) or *DAWA-H2* (stage 2 a plain binary tree, faster).
Each one spends exactly epsilon.  Seeds are derived from (seed, algorithm,
dataset, epsilon), so any subset of the grid reproduces the same numbers.

Data: the shipped DPBench histograms (:func:`dpviz.datasets.names`), coarsened
to a domain of n cells, or synthetic shapes (:data:`SHAPES`); with ``scale``
given, ``scale`` records are drawn from the shape (multinomial), which is how
DPBench varies scale independently of shape.

References
----------
.. [HMMCZ16] M. Hay, A. Machanavajjhala, G. Miklau, Y. Chen, D. Zhang.
   "Principled Evaluation of Differentially Private Algorithms using
   DPBench." SIGMOD 2016 (scaled error: Definition 4; data generator: §4).
.. [HLM12] M. Hardt, K. Ligett, F. McSherry. NeurIPS 2012 (MWEM).
.. [LHMW14] C. Li, M. Hay, G. Miklau, Y. Wang. PVLDB 7(5), 2014 (DAWA, GreedyH).
.. [QYL13] W. Qardaji, W. Yang, N. Li. PVLDB 6(14), 2013 (H_b).
.. [XWG10] X. Xiao, G. Wang, J. Gehrke. ICDE 2010 (Privelet).
"""

from __future__ import annotations

import functools
import importlib.util
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from dpviz import data_aware, hierarchy, wavelet, workloads
from dpviz.experiments import check_band
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_counts, check_epsilon, check_int, check_positive

__all__ = [
    "ALGORITHMS",
    "AlgorithmInfo",
    "SHAPES",
    "WORKLOADS",
    "available_algorithms",
    "synthetic_shape",
    "make_histogram",
    "make_workload",
    "scaled_error",
    "AlgorithmRun",
    "run_algorithm",
    "ComparisonRow",
    "SummaryRow",
    "ComparisonTable",
    "run_comparison",
    "ExplorerResult",
    "comparison_explorer_run",
    "RoundCurve",
    "mwem_error_by_round",
]


@dataclass(frozen=True)
class AlgorithmInfo:
    """Name, family and one-line description of a compared algorithm."""

    name: str
    family: str  # "workload-aware", "data-aware" or "baseline"
    description: str


ALGORITHMS: dict[str, AlgorithmInfo] = {
    info.name: info for info in [
        AlgorithmInfo("Identity", "workload-aware", "Laplace(1/eps) on every cell"),
        AlgorithmInfo("H_b", "workload-aware",
                      "b-ary tree + constrained inference, b minimising Qardaji's range error"),
        AlgorithmInfo("Privelet", "workload-aware", "Haar wavelet coefficients + Laplace"),
        AlgorithmInfo("GreedyH", "workload-aware",
                      "hierarchy weighted for the workload (matrix mechanism, least squares)"),
        AlgorithmInfo("Uniform", "baseline", "noisy total spread evenly"),
        AlgorithmInfo("MWEM", "data-aware", "T=10 rounds: exp. mech. + Laplace + multiplicative weights"),
        AlgorithmInfo("DAWA", "data-aware",
                      "private dyadic partition (25% of eps) + GreedyH on the buckets, least squares"),
        AlgorithmInfo("DAWA-H2", "data-aware",
                      "private dyadic partition (25% of eps) + binary tree on the buckets, least squares"),
    ]
}

#: Synthetic data shapes for :func:`synthetic_shape`.
SHAPES = ("uniform", "step", "spikes", "smooth", "zipf")
#: Workload names (those of :func:`dpviz.workloads.build`).
WORKLOADS = workloads.WORKLOADS


def available_algorithms() -> list[str]:
    """The algorithms whose code is present (GreedyH and DAWA need :mod:`dpviz.strategies`)."""
    has_strategies = importlib.util.find_spec("dpviz.strategies") is not None
    return [a for a in ALGORITHMS if a not in ("GreedyH", "DAWA") or has_strategies]


# --------------------------------------------------------------------------- data
def synthetic_shape(shape: str, n: int) -> np.ndarray:
    """A probability vector over n cells with a named shape (deterministic, no randomness).

    ``uniform``: constant.  ``step``: four constant pieces with levels 1, 8, 2, 16
    (breakpoints at 20 %, 45 %, 70 % of the domain, cell centres).  ``spikes``: 8 single
    cells hold 90 % of the mass, the rest is spread evenly (sparse data).
    ``smooth``: two Gaussian bumps on a floor.  ``zipf``: ``p_i ~ 1/(i+1)``.

    Examples
    --------
    >>> synthetic_shape("step", 10).round(3).tolist()
    [0.014, 0.014, 0.111, 0.111, 0.028, 0.028, 0.028, 0.222, 0.222, 0.222]
    """
    shape = check_choice("shape", shape, SHAPES)
    n = check_int("n", n, minimum=2)
    t = (np.arange(n) + 0.5) / n
    if shape == "uniform":
        p = np.ones(n)
    elif shape == "step":
        p = np.select([t < 0.2, t < 0.45, t < 0.7], [1.0, 8.0, 2.0], 16.0)
    elif shape == "spikes":
        p = np.full(n, 0.1 / n)
        cells = (np.array([0.03, 0.11, 0.12, 0.3, 0.52, 0.53, 0.77, 0.9]) * n).astype(int)
        np.add.at(p, cells, 0.9 / cells.size)
    elif shape == "smooth":
        p = 0.1 + np.exp(-0.5 * ((t - 0.3) / 0.07) ** 2) + 0.6 * np.exp(-0.5 * ((t - 0.7) / 0.12) ** 2)
    else:
        p = 1.0 / np.arange(1, n + 1)
    return p / p.sum()


def _coarsen(x: np.ndarray, n: int) -> np.ndarray:
    edges = (np.arange(n) * x.size) // n
    return np.add.reduceat(x, edges)


def make_histogram(source: str, n: int | None = None, *, scale: float | None = None,
                   rng: RngLike = 0) -> np.ndarray:
    """The data of one comparison: a shipped histogram or a synthetic shape, on n cells, at a scale.

    ``source`` is a shipped histogram name (:func:`dpviz.datasets.names`, coarsened
    to ``n`` cells by summing consecutive cells) or one of :data:`SHAPES`.
    With ``scale`` given, ``scale`` records are drawn iid from the shape
    ``p = x / ||x||_1`` (multinomial; DPBench's data generator [HMMCZ16]_); a
    synthetic shape needs a scale (default 10,000).  Without ``scale`` a shipped
    histogram keeps its real counts.

    Returns
    -------
    numpy.ndarray
        (n,) float counts.

    Examples
    --------
    >>> make_histogram("spikes", 64, scale=1000, rng=0).sum()
    np.float64(1000.0)
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a dataset name or a shape, got {type(source).__name__}")
    if source in SHAPES:
        n = 256 if n is None else check_int("n", n, minimum=2)
        p = synthetic_shape(source, n)
        scale = 10_000 if scale is None else scale
    else:
        from dpviz import datasets

        info = datasets.describe(source)
        if info.kind != "histogram":
            raise ValueError(f"source must be a 1-D histogram dataset or one of {', '.join(SHAPES)}; "
                             f"{source!r} is {info.kind}")
        x = datasets.load(source).astype(float)
        n = x.size if n is None else check_int("n", n, minimum=1, maximum=x.size)
        x = _coarsen(x, n)
        if scale is None:
            return x
        p = x / x.sum()
    scale = check_positive("scale", scale)
    if scale != int(scale) or scale > 1e12:
        raise ValueError(f"scale must be a whole number of records <= 1e12, got {scale}")
    return as_generator(rng).multinomial(int(scale), p).astype(float)


def make_workload(name: str, n: int, *, k: int = 256) -> workloads.Workload:
    """A workload by name (:data:`WORKLOADS`); ``random_ranges`` draws k ranges with a fixed seed (public).

    The same (name, n, k) returns the same immutable object, so strategies
    optimised for it (GreedyH) are computed once and reused.
    """
    name = check_choice("workload", name, WORKLOADS)
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=1)
    if name == "all_ranges" and n > 1024:
        raise ValueError(f"workload 'all_ranges' has n(n+1)/2 queries; use n <= 1024, got n={n}")
    return _workload(name, n, k)


@functools.lru_cache(maxsize=32)
def _workload(name: str, n: int, k: int) -> workloads.Workload:
    return workloads.build(name, n, k=k, rng=20161)


def scaled_error(estimates, x, workload: workloads.Workload) -> np.ndarray:
    """DPBench's scaled average per-query error ``||W x_hat - W x||_2 / (m ||x||_1)`` per release.

    ``estimates`` has shape (n,) or (k, n); returns a float or (k,) [HMMCZ16]_.

    Examples
    --------
    >>> W = workloads.prefix(4)
    >>> round(float(scaled_error([1.0, 1, 1, 1], [2.0, 0, 2, 0], W)), 4)  # errors (-1, 0, -1, 0): sqrt(2) / (4 * 4)
    0.0884
    """
    x = check_counts("x", x)
    err = workload.answer(estimates) - workload.answer(x)
    return np.linalg.norm(err, axis=-1) / (workload.n_queries * x.sum())


# --------------------------------------------------------------------------- one algorithm
@dataclass(frozen=True)
class AlgorithmRun:
    """``trials`` releases of one algorithm on one dataset at one epsilon.

    Attributes
    ----------
    algorithm, epsilon
    estimates : (k, n) released histograms
    errors : (k, m) workload errors ``W x_hat - W x`` (or None if not kept)
    scaled_errors : (k,) DPBench scaled error per release
    rmse : (k,) root mean squared error per query, per release
    partitions : DAWA's learned partitions (one per release) or None
    seconds : wall time per release
    """

    algorithm: str
    epsilon: float
    estimates: np.ndarray
    errors: np.ndarray | None
    scaled_errors: np.ndarray
    rmse: np.ndarray
    partitions: list | None
    seconds: float


@functools.lru_cache(maxsize=64)
def _qardaji_branching(n: int) -> int:
    """Branching factor in 2..16 minimising Qardaji's average range error (epsilon only scales it)."""
    bs = range(2, 17)
    return min(bs, key=lambda b: hierarchy.qardaji_average_mse(max(n, 2), b, 1.0))


def _release(algorithm: str, x: np.ndarray, W: workloads.Workload, epsilon: float, gen: np.random.Generator,
             k: int, accountant) -> tuple[np.ndarray, list | None]:
    if algorithm == "Identity":
        return hierarchy.flat_release(x, epsilon, rng=gen, size=k, accountant=accountant), None
    if algorithm == "Uniform":
        return data_aware.uniform(x, epsilon, rng=gen, size=k, accountant=accountant), None
    if algorithm == "H_b":
        if x.size == 1:
            return hierarchy.flat_release(x, epsilon, rng=gen, size=k, accountant=accountant), None
        rel = hierarchy.measure(x, _qardaji_branching(x.size), epsilon, rng=gen, size=k, accountant=accountant)
        return rel.leaves(constrained=True), None
    if algorithm == "Privelet":
        return wavelet.privelet_release(x, epsilon, rng=gen, size=k, accountant=accountant), None
    if algorithm == "MWEM":
        return data_aware.mwem(x, W, epsilon, rng=gen, size=k, accountant=accountant).estimate, None
    if algorithm in ("DAWA", "DAWA-H2"):
        strategy = "greedy_h" if algorithm == "DAWA" else "hierarchical"
        res = data_aware.dawa(x, epsilon, W, strategy=strategy, rng=gen, size=k, accountant=accountant)
        return res.estimate, res.partitions
    if algorithm == "GreedyH":
        return _greedy_h_release(x, W, epsilon, gen, k, accountant), None
    raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}; got {algorithm!r}")  # pragma: no cover


@functools.lru_cache(maxsize=16)
def _greedy_h_strategy(W: workloads.Workload):
    """GreedyH strategy of a workload (data-independent, so computed once per workload and reused)."""
    from dpviz import matrix_mechanism, strategies

    return matrix_mechanism.LeastSquares(strategies.greedy_h(W))


def _greedy_h_release(x, W, epsilon, gen, k, accountant):
    from dpviz import matrix_mechanism

    return matrix_mechanism.run(W, _greedy_h_strategy(W), x, epsilon, rng=gen, size=k,
                                accountant=accountant).estimate


def run_algorithm(algorithm: str, x, workload: workloads.Workload, epsilon: float, *, trials: int = 5,
                  rng: RngLike = None, keep_errors: bool = False, accountant=None) -> AlgorithmRun:
    """Run ``trials`` independent releases of one algorithm and score them on the workload.

    The accountant (optional) is charged epsilon once, as for one release; the
    trials are the Monte Carlo repetitions of the same experiment.
    """
    algorithm = check_choice("algorithm", algorithm, available_algorithms())
    x = check_counts("x", x)
    if not isinstance(workload, workloads.Workload) or workload.n != x.size:
        raise ValueError(f"workload must be a dpviz.workloads.Workload over n={x.size} cells, got {workload!r}")
    epsilon = check_epsilon(epsilon)
    trials = check_int("trials", trials, minimum=1)
    gen = as_generator(rng)
    t0 = time.perf_counter()
    est, parts = _release(algorithm, x, workload, epsilon, gen, trials, accountant)
    seconds = (time.perf_counter() - t0) / trials
    err = workload.answer(est) - workload.answer(x)
    norm = np.linalg.norm(err, axis=1)
    m = workload.n_queries
    return AlgorithmRun(algorithm, epsilon, est, err if keep_errors else None, norm / (m * x.sum()),
                        norm / np.sqrt(m), parts, seconds)


# --------------------------------------------------------------------------- the grid
@dataclass(frozen=True)
class ComparisonRow:
    """One release in the comparison table (one row per algorithm, dataset, epsilon and trial)."""

    algorithm: str
    dataset: str
    epsilon: float
    trial: int
    scaled_error: float
    rmse: float
    scale: float
    n: int
    workload: str
    seconds: float


@dataclass(frozen=True)
class SummaryRow:
    """Mean and percentile band of the scaled error over the trials of one (algorithm, dataset, epsilon)."""

    algorithm: str
    dataset: str
    epsilon: float
    mean: float
    lower: float
    upper: float
    stderr: float
    trials: int


def _stable_seed(seed: int, *parts: str) -> np.random.SeedSequence:
    return np.random.SeedSequence([seed, *(zlib.crc32(p.encode()) for p in parts)])


@dataclass(frozen=True)
class ComparisonTable:
    """The tidy result of :func:`run_comparison`: one :class:`ComparisonRow` per release.

    Attributes
    ----------
    rows : list of ComparisonRow
    runs : (algorithm, dataset, epsilon) -> AlgorithmRun (estimates, errors, partitions)
    data : dataset -> (n,) the histogram compared on
    workload : the Workload
    algorithms, datasets, epsilons : the grid, in order
    """

    rows: list[ComparisonRow]
    runs: dict[tuple[str, str, float], AlgorithmRun] = field(repr=False)
    data: dict[str, np.ndarray] = field(repr=False)
    workload: workloads.Workload
    algorithms: tuple[str, ...]
    datasets: tuple[str, ...]
    epsilons: tuple[float, ...]

    def column(self, name: str) -> np.ndarray:
        """One column of the table as a numpy array (e.g. ``"scaled_error"``, ``"algorithm"``)."""
        check_choice("name", name, list(ComparisonRow.__dataclass_fields__))
        return np.array([getattr(r, name) for r in self.rows])

    def columns(self) -> dict[str, np.ndarray]:
        """The whole table as a dict of numpy columns (no pandas needed; ``pandas.DataFrame(t.columns())`` works)."""
        return {name: self.column(name) for name in ComparisonRow.__dataclass_fields__}

    def summary(self, band=(5.0, 95.0)) -> list[SummaryRow]:
        """Mean scaled error, percentile band and standard error per (algorithm, dataset, epsilon)."""
        lo, hi = check_band(band)
        out = []
        for (a, d, e), run in self.runs.items():
            s = run.scaled_errors
            se = float(s.std(ddof=1) / np.sqrt(s.size)) if s.size > 1 else float("nan")
            out.append(SummaryRow(a, d, e, float(s.mean()), float(np.percentile(s, lo)),
                                  float(np.percentile(s, hi)), se, int(s.size)))
        return out

    def mean_error(self, algorithm: str, dataset: str, epsilon: float) -> float:
        """Mean scaled error of one cell of the grid."""
        return float(self.runs[(algorithm, dataset, float(epsilon))].scaled_errors.mean())

    def winners(self) -> dict[tuple[str, float], str]:
        """(dataset, epsilon) -> the algorithm with the lowest mean scaled error."""
        out = {}
        for d in self.datasets:
            for e in self.epsilons:
                out[(d, e)] = min(self.algorithms, key=lambda a: self.mean_error(a, d, e))
        return out

    def win_counts(self) -> dict[float, dict[str, int]]:
        """epsilon -> algorithm -> number of datasets it wins."""
        w = self.winners()
        return {e: {a: sum(w[(d, e)] == a for d in self.datasets) for a in self.algorithms} for e in self.epsilons}

    def pivot(self, epsilon: float, *, relative_to: str | None = None) -> str:
        """Fixed-width text table for one epsilon: datasets x algorithms, mean scaled error, winner marked *.

        With ``relative_to`` (an algorithm), each entry is the ratio to that algorithm's error.
        """
        e = float(epsilon)
        if e not in self.epsilons:
            raise ValueError(f"epsilon must be one of {self.epsilons}, got {epsilon}")
        if relative_to is not None:
            check_choice("relative_to", relative_to, self.algorithms)
        w = self.winners()
        width = max(9, *(len(a) + 1 for a in self.algorithms))
        head = f"{'dataset':<12}" + "".join(f"{a:>{width}}" for a in self.algorithms)
        lines = [f"epsilon = {e:g}: mean scaled error per query"
                 + (f", relative to {relative_to}" if relative_to else "") + " (* = lowest)", head, "-" * len(head)]
        for d in self.datasets:
            cells = []
            for a in self.algorithms:
                v = self.mean_error(a, d, e)
                if relative_to is not None:
                    v /= self.mean_error(relative_to, d, e)
                    txt = f"{v:.2f}"
                else:
                    txt = f"{v:.2e}"
                cells.append(f"{txt + ('*' if w[(d, e)] == a else ' '):>{width}}")
            lines.append(f"{d[:12]:<12}" + "".join(cells))
        return "\n".join(lines)


def run_comparison(algorithms: Sequence[str], datasets: Sequence[str] | dict[str, Any], epsilons: Sequence[float],
                   *, trials: int = 5, workload: str | workloads.Workload = "prefix", n: int | None = None,
                   scale: float | None = None, rng: RngLike = 0, keep_errors: bool = False,
                   progress: Callable[[int, int, str], None] | None = None) -> ComparisonTable:
    """Run every algorithm on every dataset at every epsilon, ``trials`` times, and tabulate the errors.

    Parameters
    ----------
    algorithms : names from :func:`available_algorithms`
    datasets : names (shipped histograms or :data:`SHAPES`) or a dict name -> (n,) counts
    epsilons : budgets, each > 0
    trials : int, default 5
        Independent releases per cell of the grid.
    workload : name from :data:`WORKLOADS` (built over n cells) or a Workload
    n : int, optional
        Domain size (shipped histograms are coarsened to it; default: 4096 for
        them, 256 for shapes).
    scale : float, optional
        Number of records to sample from each shape (DPBench's data generator).
    rng : int seed (default 0) or Generator
        Each (algorithm, dataset, epsilon) gets its own stream derived from it.
    keep_errors : bool
        Keep the (trials, m) per-query errors in ``runs`` (for per-query plots).
    progress : callable(done, total, label), optional
        Called after each cell of the grid (for a progress bar).

    Returns
    -------
    ComparisonTable

    Examples
    --------
    >>> t = run_comparison(["Identity", "Uniform"], ["uniform"], [0.01, 1.0], trials=3, n=32, scale=1000)
    >>> len(t.rows), t.winners()[("uniform", 0.01)], t.winners()[("uniform", 1.0)]
    (12, 'Uniform', 'Identity')
    """
    avail = available_algorithms()
    algs = tuple(check_choice("algorithms[]", a, avail) for a in algorithms)
    if not algs:
        raise ValueError("algorithms must name at least one algorithm")
    eps = tuple(check_epsilon(e, "epsilons[]") for e in epsilons)
    if not eps:
        raise ValueError("epsilons must hold at least one budget")
    trials = check_int("trials", trials, minimum=1)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        seed = check_int("rng", rng, minimum=0)
    else:
        seed = int(as_generator(rng).integers(0, 2**63))
    if isinstance(datasets, dict):
        data = {str(k): check_counts(f"datasets[{k!r}]", v) for k, v in datasets.items()}
    else:
        names = list(datasets)
        data = {}
        for name in names:
            data[name] = make_histogram(name, n, scale=scale, rng=_stable_seed(seed, "data", name))
    if not data:
        raise ValueError("datasets must hold at least one dataset")
    sizes = {v.size for v in data.values()}
    if len(sizes) != 1:
        raise ValueError(f"all datasets must have the same number of cells, got sizes {sorted(sizes)}")
    nn = sizes.pop()
    W = workload if isinstance(workload, workloads.Workload) else make_workload(workload, nn)
    if W.n != nn:
        raise ValueError(f"workload must be over n={nn} cells, got {W!r}")
    rows, runs = [], {}
    total, done = len(algs) * len(data) * len(eps), 0
    for d, x in data.items():
        if x.sum() <= 0:
            raise ValueError(f"dataset {d!r} is empty (scale 0); scaled error is undefined")
        for e in eps:
            for a in algs:
                run = run_algorithm(a, x, W, e, trials=trials, rng=_stable_seed(seed, a, d, repr(e)),
                                    keep_errors=keep_errors)
                runs[(a, d, e)] = run
                rows += [ComparisonRow(a, d, e, t, float(run.scaled_errors[t]), float(run.rmse[t]), float(x.sum()),
                                       int(x.size), W.name, run.seconds) for t in range(trials)]
                done += 1
                if progress is not None:
                    progress(done, total, f"{a} on {d}, epsilon={e:g}")
    return ComparisonTable(rows, runs, data, W, algs, tuple(data), eps)


# --------------------------------------------------------------------------- the explorer's computation
@dataclass(frozen=True)
class ExplorerResult:
    """What the algorithm-comparison explorer shows for one setting of its controls.

    Attributes
    ----------
    source, n, scale, workload, epsilon, trials, seed : the setting
    x : (n,) the data compared on
    algorithms : the algorithms shown, in order
    runs : algorithm -> AlgorithmRun
    query_rank : (g,) position of each query group (queries sorted by width, then start)
    query_width : (g,) mean width of the queries in each group
    profile_mean, profile_lower, profile_upper : algorithm -> (g,) mean absolute error per query of each group,
        averaged over trials, and its ``band`` percentiles over trials
    band : the percentile band
    partition : DAWA's learned partition in the first trial (None if no DAWA variant is shown)
    partition_algorithm : which DAWA variant it comes from
    estimates : algorithm -> (n,) the first trial's released histogram
    computed : algorithms computed for this call (the others came from the cache)
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
    partition: Any
    partition_algorithm: str | None
    estimates: dict[str, np.ndarray]
    computed: tuple[str, ...]


def comparison_explorer_run(source: str, algorithms: Sequence[str], epsilon: float, *, n: int = 256,
                            scale: float | None = None, workload: str = "prefix", trials: int = 5, rng: int = 0,
                            band=(5.0, 95.0), max_points: int = 256, cache: dict | None = None,
                            progress: Callable[[int, int, str], None] | None = None) -> ExplorerResult:
    """Run (or fetch from ``cache``) every selected algorithm for one explorer setting and summarise it.

    Each algorithm's trials are keyed by the whole setting (data source, n,
    scale, workload, epsilon, trials, seed, algorithm), so moving a control
    back, or ticking one more algorithm, only computes what is new.  Per-query
    absolute errors ``|W x_hat - W x|`` are averaged within at most
    ``max_points`` groups of consecutive queries (sorted by width, then start)
    for the error profile; the band is over trials.
    """
    algs = tuple(check_choice("algorithms[]", a, available_algorithms()) for a in algorithms)
    if not algs:
        raise ValueError("algorithms must name at least one algorithm (tick at least one box)")
    epsilon = check_epsilon(epsilon)
    trials = check_int("trials", trials, minimum=2)
    seed = check_int("rng", rng, minimum=0)
    max_points = check_int("max_points", max_points, minimum=1)
    lo, hi = check_band(band)
    cache = {} if cache is None else cache
    if scale is None and source in SHAPES:
        scale = 10_000  # make_histogram's default for a shape, stated in the result
    dkey = ("data", source, n, scale, seed)
    if dkey not in cache:
        cache[dkey] = make_histogram(source, n, scale=scale, rng=_stable_seed(seed, "data", source))
    x = cache[dkey]
    if x.sum() <= 0:
        raise ValueError(f"the data {source!r} at this scale is empty; choose a larger scale")
    W = make_workload(workload, x.size)
    runs, computed = {}, []
    for i, a in enumerate(algs):
        key = ("run", source, x.size, scale, workload, epsilon, trials, seed, a)
        if key not in cache:
            cache[key] = run_algorithm(a, x, W, epsilon, trials=trials, keep_errors=True,
                                       rng=_stable_seed(seed, a, source, workload, repr(epsilon), str(x.size),
                                                        repr(scale)))
            computed.append(a)
        runs[a] = cache[key]
        if progress is not None:
            progress(i + 1, len(algs), a)
    s, e = W.intervals() if W.is_range else (np.zeros(W.n_queries, dtype=np.int64), np.ones(W.n_queries, dtype=np.int64))
    order = np.lexsort((s, e - s))
    m = order.size
    groups = np.minimum(np.arange(m) * min(max_points, m) // m, max_points - 1)
    counts = np.bincount(groups).astype(float)
    rank = np.bincount(groups, weights=np.arange(m, dtype=float)) / counts
    width = np.bincount(groups, weights=(e - s)[order].astype(float)) / counts
    pm, pl, pu = {}, {}, {}
    for a, run in runs.items():
        absd = np.abs(run.errors[:, order])
        per = np.stack([np.bincount(groups, weights=row) for row in absd]) / counts  # (trials, g)
        pm[a] = per.mean(axis=0)
        pl[a], pu[a] = np.percentile(per, [lo, hi], axis=0)
    dawa = next((a for a in algs if a.startswith("DAWA")), None)
    return ExplorerResult(
        source=source, n=int(x.size), scale=scale, workload=W.name, epsilon=epsilon, trials=trials, seed=seed, x=x,
        algorithms=algs, runs=runs, query_rank=rank, query_width=width, profile_mean=pm, profile_lower=pl,
        profile_upper=pu, band=(lo, hi), partition=None if dawa is None else runs[dawa].partitions[0],
        partition_algorithm=dawa, estimates={a: r.estimates[0] for a, r in runs.items()}, computed=tuple(computed),
    )


@dataclass(frozen=True)
class RoundCurve:
    """RMSE per query of MWEM's estimate after each round (round 0 = the uniform start), over runs."""

    rounds: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    epsilon: float
    trials: int
    band: tuple[float, float]


def mwem_error_by_round(x, workload: workloads.Workload, epsilon: float, *, rounds: int = 20, trials: int = 20,
                        rng: RngLike = 0, band=(5.0, 95.0)) -> RoundCurve:
    """Run MWEM ``trials`` times with T = ``rounds`` and score the estimate after every round [HLM12]_.

    Every prefix of an MWEM run is itself differentially private (it uses only
    the released selections and measurements so far), so the curve shows how
    the synthetic histogram learns the data round after round at a fixed total
    budget.
    """
    x = check_counts("x", x)
    trials = check_int("trials", trials, minimum=2)
    lo, hi = check_band(band)
    res = data_aware.mwem(x, workload, epsilon, rounds=rounds, keep_history=True, rng=rng, size=trials)
    H = res.history.reshape(-1, x.size)
    err = workload.answer(H) - workload.answer(x)
    rmse = np.sqrt(np.mean(err**2, axis=1)).reshape(trials, -1)
    lower, upper = np.percentile(rmse, [lo, hi], axis=0)
    return RoundCurve(np.arange(rmse.shape[1]), rmse.mean(axis=0), lower, upper, float(epsilon), trials, (lo, hi))
