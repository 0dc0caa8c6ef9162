"""Tables 2 and 3 of [CM15]_: the GPTT attack (NOT differentially private) on the paper's histograms.

With its defaults :func:`attack_table` runs the paper's setting: Algorithms 3
and 4 exactly as published (the defaults of :func:`dpviz.svt.reconstruct`),
epsilon in {1, 0.5, 0.1}, 10 repetitions, Table 3 over the cells with count <= 5.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpviz import datasets
from dpviz.rng import RngLike, as_generator
from dpviz.svt import (
    ESTIMATORS,
    GROUPINGS,
    NOT_DP,
    expected_fraction_exact,
    fraction_exact,
    laplace_reconstruct,
    reconstruct,
    support_k,
)
from dpviz.validation import (
    check_bool,
    check_choice,
    check_epsilon,
    check_int,
    check_open_unit,
    check_sequence,
)

__all__ = ["AttackTable", "attack_table", "PAPER_DATASETS", "TABLE_FIELDS", "MAX_ATTACKS", "PAPER_SMALL_BOUND"]


#: The per-repetition fields of :class:`AttackTable`.
TABLE_FIELDS = ("overall", "small", "small_nonzero", "laplace_overall", "laplace_small", "laplace_small_nonzero")
#: The four histograms of [CM15] Table 1, by their dpviz names.
PAPER_DATASETS = ("ADULT", "MEDCOST", "INCOME", "HEPTH")
#: Most attacks one :func:`attack_table` call runs (datasets x epsilons x repetitions); one attack on a
#: 4096-cell histogram takes about 30 ms, so the cap is a few minutes.
MAX_ATTACKS = 10_000
#: The count bound of [CM15] Table 3: its cell counts (4062, 3878, 2369, 1153) are the cells with count <= 5.
PAPER_SMALL_BOUND = 5


@dataclass(frozen=True)
class AttackTable:
    """Fractions of cells reconstructed exactly by the GPTT attack ([CM15] Tables 2 and 3), per repetition.

    GPTT is **NOT differentially private**.  Arrays are indexed
    ``[dataset, epsilon, repetition]``; ``laplace_*`` are the honest baseline
    (Laplace counts, rounded) at the same total epsilon.  "Small" cells are
    those with count <= ``small_bound`` (5 in the paper's Table 3).

    Attributes
    ----------
    names : tuple of str
        The datasets, in order.
    epsilons : numpy.ndarray
        The total budgets, in order.
    k : numpy.ndarray, shape (n_datasets,)
        Support k of each histogram (:func:`dpviz.svt.support_k`, [CM15] Table 1).
    small_bound : numpy.ndarray, shape (n_datasets,)
        The bound on "small" counts used for each histogram (the ``small_bound``
        argument, or k where it was None).
    scale : numpy.ndarray, shape (n_datasets,)
        Total count of each histogram.
    domain : numpy.ndarray, shape (n_datasets,)
        Number of cells of each histogram.
    n_small : numpy.ndarray, shape (n_datasets,)
        Cells with count <= small_bound (the "# of cells" column of [CM15] Table 3).
    overall, small, small_nonzero : numpy.ndarray, shape (n_datasets, n_epsilons, repetitions)
        Fraction of the attack's guesses that are exact among all cells (Table 2),
        cells with count <= small_bound (Table 3), and cells with
        1 <= count <= small_bound.
    laplace_overall, laplace_small, laplace_small_nonzero : numpy.ndarray
        The same fractions for rounded Laplace counts.
    expected_overall, expected_small : numpy.ndarray, shape (n_datasets, n_epsilons)
        The exact expectations of ``overall`` and ``small`` over GPTT's and the
        totals' noise (:func:`dpviz.svt.expected_fraction_exact`), the values the
        repetitions estimate; NaN for the extensions it does not cover
        (``calibrate=True`` or ``estimator="ordered"``).
    split : float
        Share of epsilon given to GPTT.
    calibrate : bool
        Whether the attack located the noisy threshold first.
    estimator : str
        The attack's estimator, one of :data:`dpviz.svt.ESTIMATORS`.
    grouping : str
        How the attack grouped cells, one of :data:`dpviz.svt.GROUPINGS`.
    """

    names: tuple[str, ...]
    epsilons: np.ndarray
    k: np.ndarray
    small_bound: np.ndarray
    scale: np.ndarray
    domain: np.ndarray
    n_small: np.ndarray
    overall: np.ndarray
    small: np.ndarray
    small_nonzero: np.ndarray
    laplace_overall: np.ndarray
    laplace_small: np.ndarray
    laplace_small_nonzero: np.ndarray
    expected_overall: np.ndarray
    expected_small: np.ndarray
    split: float
    calibrate: bool
    estimator: str
    grouping: str

    @property
    def repetitions(self) -> int:
        """Number of repetitions per dataset and epsilon."""
        return int(self.overall.shape[2])

    def mean(self, which: str = "overall") -> np.ndarray:
        """Mean over repetitions of one of :data:`TABLE_FIELDS` (``overall``, ``small``, ``laplace_small``, ...).

        Parameters
        ----------
        which : str, default "overall"
            The field, one of :data:`TABLE_FIELDS`.

        Returns
        -------
        numpy.ndarray, shape (n_datasets, n_epsilons)
            The mean fraction.

        Raises
        ------
        ValueError
            If ``which`` is not one of :data:`TABLE_FIELDS`.
        """
        check_choice("which", which, TABLE_FIELDS)
        return getattr(self, which).mean(axis=2)

    def stderr(self, which: str = "overall") -> np.ndarray:
        """Standard error of that mean over repetitions (sample sd / sqrt(reps)).

        Parameters
        ----------
        which : str, default "overall"
            The field, one of :data:`TABLE_FIELDS`.

        Returns
        -------
        numpy.ndarray, shape (n_datasets, n_epsilons)
            The standard error (NaN with a single repetition).

        Raises
        ------
        ValueError
            If ``which`` is not one of :data:`TABLE_FIELDS`.
        """
        check_choice("which", which, TABLE_FIELDS)
        v = getattr(self, which)
        return v.std(axis=2, ddof=1) / math.sqrt(v.shape[2]) if v.shape[2] > 1 else np.full(v.shape[:2], np.nan)

    def __repr__(self) -> str:
        return (f"AttackTable(GPTT attack, {NOT_DP}; datasets={list(self.names)}, "
                f"epsilons={self.epsilons.tolist()}, repetitions={self.repetitions}, split={self.split:g}, "
                f"calibrate={self.calibrate}, estimator={self.estimator!r}, grouping={self.grouping!r}, "
                f"small_bound={self.small_bound.tolist()})")


def attack_table(names: Sequence[str] = PAPER_DATASETS, epsilons: Sequence[float] = (1.0, 0.5, 0.1),
                 repetitions: int = 10, *, split: float = 0.5, calibrate: bool = False, estimator: str = "average",
                 grouping: str = "row_and_column", small_bound: int | None = PAPER_SMALL_BOUND,
                 rng: RngLike = None) -> AttackTable:
    """Run the GPTT reconstruction attack (Alg. 3 and 4 of [CM15]) on shipped histograms at several epsilons.

    Each repetition calls :func:`dpviz.svt.reconstruct` (GPTT is **NOT
    differentially private**) and scores it with :func:`dpviz.svt.fraction_exact`:
    the fraction of all cells guessed exactly (Table 2) and of cells with
    count <= ``small_bound`` (Table 3).  With the defaults this is the paper's
    experiment ([CM15] Section 5): Algorithms 3 and 4 as published, epsilon in
    {1.0, 0.5, 0.1}, 10 repetitions, and Table 3 over the cells with count <= 5
    (its "# of cells" column, 4062, 3878, 2369 and 1153, is exactly the number of
    such cells in the four histograms).

    Parameters
    ----------
    names : sequence of str, default PAPER_DATASETS
        Histogram datasets to attack (see :mod:`dpviz.datasets`).
    epsilons : sequence of float, default (1.0, 0.5, 0.1)
        Total (claimed) budgets, each finite and > 0.
    repetitions : int, default 10
        Runs per dataset and epsilon, >= 1.
    split : float, default 0.5
        Share of epsilon given to GPTT, in (0, 1).
    calibrate : bool, default False
        Locate the noisy threshold first (see :func:`dpviz.svt.calibrate_shift`).
    estimator : {"average", "ordered"}, default "average"
        The attack's estimator (see :data:`dpviz.svt.ESTIMATORS`).
    grouping : {"row_and_column", "row"}, default "row_and_column"
        How Algorithm 3 groups cells (see :func:`dpviz.svt.ordered_partition`).
    small_bound : int or None, default 5
        Cells with count <= small_bound are "small" (Table 3); None uses each
        histogram's support k (:func:`dpviz.svt.support_k`).
    rng : None, int, SeedSequence or Generator
        One stream for every attack and Laplace baseline, in order.

    Returns
    -------
    AttackTable
        Exact-guess fractions per dataset, epsilon and repetition, with the
        Laplace baseline.

    Raises
    ------
    ValueError, TypeError
        If ``names`` is a single string, empty, or names a dataset that is not a
        histogram (the CPS records are refused: the attack needs counts per
        cell), ``epsilons`` is empty, an epsilon is invalid, ``repetitions``,
        ``split``, ``calibrate`` (a bool), ``estimator``, ``grouping`` or
        ``small_bound`` (an int >= 0 or None) is invalid, or the number of
        attacks exceeds :data:`MAX_ATTACKS`.

    References
    ----------
    See [CM15] (Section 5, Tables 1-3) in the module docstring.

    Examples
    --------
    >>> t = attack_table(names=("MEDCOST",), epsilons=(1.0,), repetitions=2, rng=0)
    >>> t.overall.shape, int(t.n_small[0]), bool(t.mean("small")[0, 0] > t.mean("laplace_small")[0, 0])
    ((1, 1, 2), 3878, True)
    """
    if isinstance(names, (str, bytes)):
        raise TypeError(f"names must be a sequence of dataset names, got the string {names!r}; "
                        f"write names=({names!r},)")
    names = tuple(names)
    if not names:
        raise ValueError("names must list at least one dataset")
    for name in names:
        try:
            info = datasets.describe(name)
        except (TypeError, ValueError) as err:
            raise type(err)(f"names: {err}") from None
        if info.kind != "histogram":
            raise ValueError(f"names must list histogram datasets: {name!r} holds {info.kind} (one value per "
                             f"person), not counts per cell; choose from {', '.join(PAPER_DATASETS)} or another "
                             "histogram of dpviz.datasets")
    if isinstance(epsilons, (str, bytes)):
        raise TypeError(f"epsilons must be a sequence of numbers, got the string {epsilons!r}")
    eps = np.array([check_epsilon(e, "epsilons") for e in check_sequence("epsilons", epsilons)], dtype=float)
    if eps.size == 0:
        raise ValueError("epsilons must list at least one epsilon")
    repetitions = check_int("repetitions", repetitions, minimum=1)
    split = check_open_unit("split", split)
    calibrate = check_bool("calibrate", calibrate)
    check_choice("estimator", estimator, ESTIMATORS)
    check_choice("grouping", grouping, GROUPINGS)
    if small_bound is not None:
        small_bound = check_int("small_bound", small_bound, minimum=0)
    attacks = len(names) * eps.size * repetitions
    if attacks > MAX_ATTACKS:
        raise ValueError(f"names x epsilons x repetitions = {len(names)} x {eps.size} x {repetitions} = {attacks} "
                         f"attacks exceeds the cap of {MAX_ATTACKS}: lower repetitions or the number of names "
                         "or epsilons")
    gen = as_generator(rng)
    shape = (len(names), eps.size, repetitions)
    overall, small, nz, lap_o, lap_s, lap_nz = (np.empty(shape) for _ in range(6))
    exp_o, exp_s = np.full(shape[:2], np.nan), np.full(shape[:2], np.nan)
    closed_form = not calibrate and estimator == "average"
    ks, bounds, scale, domain, n_small = [], [], [], [], []
    for i, name in enumerate(names):
        x = datasets.load(name)
        ks.append(support_k(x))
        bound = ks[-1] if small_bound is None else small_bound
        bounds.append(bound)
        scale.append(int(x.sum()))
        domain.append(x.size)
        n_small.append(int(np.count_nonzero(x <= bound)))
        for j, e in enumerate(eps):
            if closed_form:
                exp_o[i, j] = expected_fraction_exact(x, e, split=split, grouping=grouping)
                exp_s[i, j] = expected_fraction_exact(x, e, split=split, grouping=grouping, small_bound=bound)
            for r in range(repetitions):
                rec = reconstruct(x, e, split=split, calibrate=calibrate, estimator=estimator, grouping=grouping,
                                  rng=gen)
                acc = fraction_exact(x, rec.guess, bound)
                overall[i, j, r], small[i, j, r], nz[i, j, r] = acc.overall, acc.small, acc.small_nonzero
                lap = fraction_exact(x, laplace_reconstruct(x, e, rng=gen), bound)
                lap_o[i, j, r], lap_s[i, j, r], lap_nz[i, j, r] = lap.overall, lap.small, lap.small_nonzero
    return AttackTable(names=names, epsilons=eps, k=np.array(ks), small_bound=np.array(bounds), scale=np.array(scale),
                       domain=np.array(domain), n_small=np.array(n_small), overall=overall, small=small,
                       small_nonzero=nz, laplace_overall=lap_o, laplace_small=lap_s, laplace_small_nonzero=lap_nz,
                       expected_overall=exp_o, expected_small=exp_s, split=split, calibrate=calibrate,
                       estimator=estimator, grouping=grouping)
