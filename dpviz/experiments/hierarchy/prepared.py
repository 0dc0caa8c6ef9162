"""The hierarchy explorer's runs on a named dataset, cached per setting and prepared in the background.

:func:`hierarchy_dataset_run` is :func:`dpviz.experiments.hierarchy.hierarchy_explorer_run` on
:func:`dpviz.experiments.hierarchy.dataset_histogram` ``(dataset, n)``, with an integer seed, cached per setting;
:func:`prefetch_hierarchy_runs` computes the settings a student is likely to ask for next while the figure is
read (:mod:`dpviz.experiments.prefetch`).  A run is the same whichever thread computes it: it depends on the
setting alone.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpviz.experiments.hierarchy.data import dataset_histogram
from dpviz.experiments.hierarchy.explorer import HierarchyRun, hierarchy_explorer_run
from dpviz.experiments.prefetch import canonical, single_flight
from dpviz.hierarchy import ALLOCATIONS
from dpviz.validation import check_bool, check_choice, check_epsilon, check_int

__all__ = ["hierarchy_dataset_run", "prefetch_hierarchy_runs"]

def hierarchy_dataset_run(dataset: str, n: int, branching: int, epsilon: float, *, allocation: str = "uniform",
                          measure_root: bool = True, constrained: bool = True, trials: int = 100,
                          query: tuple[int, int] | None = None, ranges_per_trial: int | None = 32,
                          seed: int = 0) -> HierarchyRun:
    """What the hierarchy explorer shows for a named dataset, cached per setting.

    The result of ``hierarchy_explorer_run(dataset_histogram(dataset, n), branching, epsilon, ..., rng=seed)``
    with ``epsilon`` read to 12 significant digits (:func:`dpviz.experiments.prefetch.canonical`, so that a
    value computed ahead in Python and one sent by the browser's slider find the same run).  A repeated call
    returns the very same object; treat it as read-only.

    Parameters
    ----------
    dataset : str
        ``"synthetic"`` or a shipped 1-D histogram (see :func:`dpviz.experiments.hierarchy.dataset_histogram`).
    n : int
        Number of bins the dataset is coarsened to, >= 1.
    branching : int
        Branching factor b >= 2.
    epsilon : float
        Privacy budget of every release, finite and > 0.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the tree's levels.
    measure_root : bool, default True
        Whether the tree's root is measured.
    constrained : bool, default True
        Whether the explorer shows the leaves after constrained inference.
    trials : int, default 100
        Releases behind the error curves, >= 2.
    query : (start, stop), optional
        The range whose cover is shown; default ``(0, max(1, n // 3))``.
    ranges_per_trial : int or None, default 32
        Random ranges per width and trial (None: all ranges).
    seed : int, default 0
        Seed of the releases, >= 0.

    Returns
    -------
    HierarchyRun
        As :func:`dpviz.experiments.hierarchy.hierarchy_explorer_run`.

    Raises
    ------
    TypeError, ValueError
        If an argument is invalid (as :func:`dpviz.experiments.hierarchy.hierarchy_explorer_run` and
        :func:`dpviz.experiments.hierarchy.dataset_histogram` say), before anything is computed or cached.

    Examples
    --------
    >>> a = hierarchy_dataset_run("ADULT", 64, 4, 1.0, trials=4, seed=3)
    >>> a is hierarchy_dataset_run("ADULT", 64, 4, 1.0, trials=4, seed=3), a.truth.size
    (True, 64)
    """
    return _cached_run(*_setting(dataset, n, branching, epsilon, allocation=allocation, measure_root=measure_root,
                                 constrained=constrained, trials=trials, query=query,
                                 ranges_per_trial=ranges_per_trial, seed=seed))


def _setting(dataset: str, n: int, branching: int, epsilon: float, *, allocation: str, measure_root: bool,
             constrained: bool, trials: int, query: tuple[int, int] | None, ranges_per_trial: int | None,
             seed: int) -> tuple[Any, ...]:
    """The validated arguments of :func:`hierarchy_dataset_run`, in the order of :func:`_cached_run` (its key).

    Everything a setting can get wrong is refused here, before a computation is started or queued: the dataset
    and n (by coarsening it, which is cached), the query against n, and the other arguments' types and ranges
    (the remaining checks, of b against n, are :func:`hierarchy_explorer_run`'s own and raise from the call).
    """
    n = check_int("n", n, minimum=1)
    try:
        _histogram(dataset, n)
    except (TypeError, ValueError) as err:
        raise type(err)(f"dataset={dataset!r} with n={n}: {err}") from None
    branching = check_int("branching", branching, minimum=2)
    epsilon = canonical(check_epsilon(epsilon))
    check_choice("allocation", allocation, tuple(ALLOCATIONS))
    measure_root = check_bool("measure_root", measure_root)
    constrained = check_bool("constrained", constrained)
    trials = check_int("trials", trials, minimum=2)
    if query is not None:
        if not isinstance(query, (tuple, list)) or len(query) != 2:
            raise ValueError(f"query must be a (start, stop) pair, got {query!r:.60}")
        start = check_int("query start", query[0], minimum=0, maximum=n - 1)
        query = (start, check_int("query stop", query[1], minimum=start + 1, maximum=n))
    if ranges_per_trial is not None:
        ranges_per_trial = check_int("ranges_per_trial", ranges_per_trial, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    return dataset, n, branching, epsilon, allocation, measure_root, constrained, trials, query, ranges_per_trial, seed


@functools.lru_cache(maxsize=32)
def _histogram(dataset: str, n: int) -> np.ndarray:
    """The dataset coarsened to n bins, read-only (shared by every cached run)."""
    x = dataset_histogram(dataset, n)
    x.setflags(write=False)
    return x


def _read_only(value: Any) -> Any:
    """``value`` with every numpy array in it (in dataclass fields and dicts, recursively) made read-only."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif isinstance(value, dict):
        for v in value.values():
            _read_only(v)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _read_only(getattr(value, f.name))
    return value


@single_flight(maxsize=64)
def _cached_run(dataset: str, n: int, branching: int, epsilon: float, allocation: str, measure_root: bool,
                constrained: bool, trials: int, query: tuple[int, int] | None, ranges_per_trial: int | None,
                seed: int) -> HierarchyRun:
    """Uncached body of :func:`hierarchy_dataset_run` on validated arguments; the run's arrays read-only (it is
    shared by every caller of the same setting)."""
    return _read_only(hierarchy_explorer_run(_histogram(dataset, n), branching, epsilon, allocation=allocation,
                                             measure_root=measure_root, constrained=constrained, trials=trials,
                                             query=query, ranges_per_trial=ranges_per_trial, rng=seed))


def prefetch_hierarchy_runs(settings: Sequence[dict[str, Any]]) -> None:
    """Compute, in a background thread, the runs :func:`hierarchy_dataset_run` will be asked for next.

    Each setting is a dict of :func:`hierarchy_dataset_run`'s arguments (``dataset``, ``n``, ``branching`` and
    ``epsilon``, and optionally the keyword arguments), most wanted first.  The thread starts once calls have
    been quiet for 0.25 s and never while a call computes; a later call replaces the settings still waiting; a
    call asking for a run being computed waits for it.

    Parameters
    ----------
    settings : sequence of dict
        The settings, most wanted first.

    Raises
    ------
    TypeError, ValueError
        If a setting is not a dict, names an unknown argument, lacks a required one or has an invalid value,
        before anything is queued.

    Examples
    --------
    >>> prefetch_hierarchy_runs([dict(dataset="ADULT", n=64, branching=5, epsilon=1.0, trials=4, seed=3)])
    >>> hierarchy_dataset_run("ADULT", 64, 5, 1.0, trials=4, seed=3).curves.branching
    5
    """
    required = ("dataset", "n", "branching", "epsilon")
    options = {name: p.default for name, p in inspect.signature(hierarchy_dataset_run).parameters.items()
               if p.kind is inspect.Parameter.KEYWORD_ONLY}
    if isinstance(settings, (dict, str)):
        raise TypeError(f"settings must be a sequence of dicts, got a {type(settings).__name__}")
    keys = []
    for setting in settings:
        if not isinstance(setting, dict):
            raise TypeError(f"each setting must be a dict of hierarchy_dataset_run's arguments, "
                            f"got {type(setting).__name__}")
        unknown = set(setting) - set(options) - set(required)
        if unknown:
            raise ValueError(f"unknown setting argument(s) {sorted(unknown)}; allowed: {', '.join(required)}, "
                             f"{', '.join(options)}")
        missing = [name for name in required if name not in setting]
        if missing:
            raise ValueError(f"each setting needs {', '.join(required)}; missing {', '.join(missing)}")
        given = options | {k: v for k, v in setting.items() if k in options}
        keys.append(_setting(*(setting[name] for name in required), **given))
    _cached_run.warm(keys)
