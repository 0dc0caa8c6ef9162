"""The comparison grid: algorithms x datasets x epsilons x trials -> a tidy table of DPBench errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpviz import workloads
from dpviz.experiments import check_band
from dpviz.experiments.comparison.data import MAX_CELLS, make_histogram, make_workload
from dpviz.experiments.comparison.runs import AlgorithmRun, run_algorithm, stable_seed
from dpviz.histogram_algorithms import available_algorithms
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_bool,
    check_choice,
    check_counts,
    check_elements,
    check_epsilon,
    check_int,
    check_sequence,
)

__all__ = ["ComparisonRow", "SummaryRow", "ComparisonTable", "run_comparison"]


@dataclass(frozen=True)
class ComparisonRow:
    """One release in the comparison table (one row per algorithm, dataset, epsilon and trial).

    Attributes
    ----------
    algorithm : str
        The algorithm's name.
    dataset : str
        The dataset's name.
    epsilon : float
        Budget of the release.
    trial : int
        Index of the release among the trials, from 0.
    scaled_error : float
        DPBench's scaled error of this release.
    rmse : float
        Root mean squared error per query, in counts.
    scale : float
        Number of records of the data (``||x||_1``).
    n : int
        Number of cells.
    workload : str
        Name of the workload.
    seconds : float
        Wall time per release of this cell of the grid.
    """

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
    """Mean and percentile band of the scaled error over the trials of one (algorithm, dataset, epsilon).

    Attributes
    ----------
    algorithm : str
        The algorithm's name.
    dataset : str
        The dataset's name.
    epsilon : float
        Budget of each release.
    mean : float
        Mean scaled error over the trials.
    lower : float
        Lower percentile of the band.
    upper : float
        Upper percentile of the band.
    stderr : float
        Standard error of the mean (NaN with one trial).
    trials : int
        Number of trials.
    """

    algorithm: str
    dataset: str
    epsilon: float
    mean: float
    lower: float
    upper: float
    stderr: float
    trials: int


@dataclass(frozen=True)
class ComparisonTable:
    """The tidy result of :func:`run_comparison`: one :class:`ComparisonRow` per release.

    Attributes
    ----------
    rows : list of ComparisonRow
        One row per release.
    runs : dict
        (algorithm, dataset, epsilon) -> :class:`AlgorithmRun` (estimates, errors, partitions).
    data : dict
        dataset -> (n,) the histogram compared on.
    workload : Workload
        The :class:`dpviz.workloads.Workload` the errors are measured on.
    algorithms : tuple of str
        The algorithms of the grid, in order.
    datasets : tuple of str
        The datasets of the grid, in order.
    epsilons : tuple of float
        The budgets of the grid, in order.
    """

    rows: list[ComparisonRow]
    runs: dict[tuple[str, str, float], AlgorithmRun] = field(repr=False)
    data: dict[str, np.ndarray] = field(repr=False)
    workload: workloads.Workload
    algorithms: tuple[str, ...]
    datasets: tuple[str, ...]
    epsilons: tuple[float, ...]

    def column(self, name: str) -> np.ndarray:
        """One column of the table as a numpy array (e.g. ``"scaled_error"``, ``"algorithm"``).

        Parameters
        ----------
        name : str
            A field of :class:`ComparisonRow`.

        Returns
        -------
        numpy.ndarray
            One entry per row.

        Raises
        ------
        ValueError
            If ``name`` is not a field of :class:`ComparisonRow`.
        """
        check_choice("name", name, list(ComparisonRow.__dataclass_fields__))
        return np.array([getattr(r, name) for r in self.rows])

    def columns(self) -> dict[str, np.ndarray]:
        """The whole table as a dict of numpy columns (no pandas needed; ``pandas.DataFrame(t.columns())`` works).

        Returns
        -------
        dict of str to numpy.ndarray
            Field name of :class:`ComparisonRow` -> its column.
        """
        return {name: self.column(name) for name in ComparisonRow.__dataclass_fields__}

    def summary(self, band: tuple[float, float] = (5.0, 95.0)) -> list[SummaryRow]:
        """Mean scaled error, percentile band and standard error per (algorithm, dataset, epsilon).

        Parameters
        ----------
        band : (float, float), default (5, 95)
            Percentiles of the band over trials, ``0 <= lo < hi <= 100``.

        Returns
        -------
        list of SummaryRow
            One row per cell of the grid.

        Raises
        ------
        TypeError, ValueError
            If ``band`` is not a pair of percentiles with ``0 <= lo < hi <= 100``.
        """
        lo, hi = check_band(band)
        out = []
        for (a, d, e), run in self.runs.items():
            s = run.scaled_errors
            se = float(s.std(ddof=1) / np.sqrt(s.size)) if s.size > 1 else float("nan")
            out.append(SummaryRow(a, d, e, float(s.mean()), float(np.percentile(s, lo)),
                                  float(np.percentile(s, hi)), se, int(s.size)))
        return out

    def mean_error(self, algorithm: str, dataset: str, epsilon: float) -> float:
        """Mean scaled error of one cell of the grid.

        Parameters
        ----------
        algorithm : str
            One of :attr:`algorithms`.
        dataset : str
            One of :attr:`datasets`.
        epsilon : float
            One of :attr:`epsilons`.

        Returns
        -------
        float
            The mean over trials of the scaled error.
        """
        return float(self.runs[(algorithm, dataset, float(epsilon))].scaled_errors.mean())

    def winners(self) -> dict[tuple[str, float], str]:
        """(dataset, epsilon) -> the algorithm with the lowest mean scaled error.

        Returns
        -------
        dict
            (dataset, epsilon) -> name of the winning algorithm.
        """
        out = {}
        for d in self.datasets:
            for e in self.epsilons:
                out[(d, e)] = min(self.algorithms, key=lambda a: self.mean_error(a, d, e))
        return out

    def win_counts(self) -> dict[float, dict[str, int]]:
        """epsilon -> algorithm -> number of datasets it wins.

        Returns
        -------
        dict
            epsilon -> (algorithm -> number of datasets on which its mean scaled error is lowest).
        """
        w = self.winners()
        return {e: {a: sum(w[(d, e)] == a for d in self.datasets) for a in self.algorithms} for e in self.epsilons}

    def pivot(self, epsilon: float, *, relative_to: str | None = None) -> str:
        """Fixed-width text table for one epsilon: datasets x algorithms, mean scaled error, winner marked with ``*``.

        Parameters
        ----------
        epsilon : float
            One of :attr:`epsilons`.
        relative_to : str, optional
            An algorithm of the table: each entry becomes the ratio to its error.

        Returns
        -------
        str
            The table, one line per dataset.

        Raises
        ------
        ValueError
            If ``epsilon`` is not in the grid or ``relative_to`` is not one of its algorithms.
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
    algorithms : sequence of str
        Names from :func:`~dpviz.histogram_algorithms.available_algorithms`.
    datasets : sequence of str or dict
        Names (shipped histograms or :data:`SHAPES`), or a dict name -> (n,) counts.
    epsilons : sequence of float
        Budgets, each > 0.
    trials : int, default 5
        Independent releases per cell of the grid.
    workload : str or Workload, default "prefix"
        A name from :data:`WORKLOADS` (built over the n cells) or a :class:`dpviz.workloads.Workload`.
    n : int, optional
        Domain size (shipped histograms are coarsened to it; default: 4096 for
        them, 256 for shapes).
    scale : float, optional
        Number of records to sample from each shape (DPBench's data generator).
    rng : int, SeedSequence or Generator, default 0
        Each (algorithm, dataset, epsilon) gets its own stream derived from it.
    keep_errors : bool, default False
        Keep the (trials, m) per-query errors in ``runs`` (for per-query plots).
    progress : callable(done, total, label), optional
        Called after each cell of the grid (for a progress bar).

    Returns
    -------
    ComparisonTable
        One row per release, the runs, the data and the grid.

    Raises
    ------
    TypeError, ValueError
        If an algorithm is unknown, a list is empty, a budget is not > 0, a
        dataset is unknown, empty or of another size than the others, the
        workload is not over the datasets' cells, ``keep_errors`` is not a bool,
        or the grid (trials x algorithms x epsilons x datasets x n) exceeds
        :data:`dpviz.validation.MAX_ELEMENTS`.

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
    eps = tuple(check_epsilon(e, "epsilons[]") for e in check_sequence("epsilons", epsilons))
    if not eps:
        raise ValueError("epsilons must hold at least one budget")
    trials = check_int("trials", trials, minimum=1)
    keep_errors = check_bool("keep_errors", keep_errors)
    if not isinstance(datasets, dict):
        datasets = list(datasets)
    if n is not None:
        n = check_int("n", n, minimum=1, maximum=MAX_CELLS)
    n_data = len(datasets) if isinstance(datasets, dict) else len(list(datasets))
    check_elements(float(trials) * len(algs) * len(eps) * max(n_data, 1) * (1 if n is None else n),
                   "trials x algorithms x epsilons x datasets x n released cells",
                   trials=trials, algorithms=len(algs), epsilons=len(eps), datasets=n_data, n=n)
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
            data[name] = make_histogram(name, n, scale=scale, rng=stable_seed(seed, "data", name))
    if not data:
        raise ValueError("datasets must hold at least one dataset")
    sizes = {v.size for v in data.values()}
    if len(sizes) != 1:
        raise ValueError(f"all datasets must have the same number of cells, got sizes {sorted(sizes)}")
    nn = sizes.pop()
    W = workload if isinstance(workload, workloads.Workload) else make_workload(workload, nn)
    if W.n != nn:
        raise ValueError(f"workload must be over n={nn} cells, got {W!r}")
    rows: list[ComparisonRow] = []
    runs: dict[tuple[str, str, float], AlgorithmRun] = {}
    total, done = len(algs) * len(data) * len(eps), 0
    for d, x in data.items():
        if x.sum() <= 0:
            raise ValueError(f"dataset {d!r} is empty (scale 0); scaled error is undefined")
        for e in eps:
            for a in algs:
                run = run_algorithm(a, x, W, e, trials=trials, rng=stable_seed(seed, a, d, repr(e)),
                                    keep_errors=keep_errors)
                runs[(a, d, e)] = run
                rows += [ComparisonRow(a, d, e, t, float(run.scaled_errors[t]), float(run.rmse[t]), float(x.sum()),
                                       int(x.size), W.name, run.seconds) for t in range(trials)]
                done += 1
                if progress is not None:
                    progress(done, total, f"{a} on {d}, epsilon={e:g}")
    return ComparisonTable(rows, runs, data, W, algs, tuple(data), eps)
