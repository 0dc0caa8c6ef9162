"""Algorithm comparison in the style of DPBench: algorithms x datasets x epsilons x trials -> a tidy table.

Every algorithm releases a histogram estimate ``x_hat`` of the same data ``x``
at the same epsilon; its answers to the workload ``W`` are ``W x_hat`` and its
error in one trial is DPBench's *scaled average per-query error* [HMMCZ16]_

    ``scaled_error = ||W x_hat - W x||_2 / (m * s)``

with m the number of queries and ``s = ||x||_1`` the scale (number of
records): an absolute error of 100 means little on a million records and a lot
on a thousand.  The table also keeps the root mean squared error per query,
``||W x_hat - W x||_2 / sqrt(m)``, in counts.

Algorithms (see :data:`ALGORITHMS`, defined with how each one is run in the
core module :mod:`dpviz.histogram_algorithms` and re-exported here): the workload-aware *Identity* (Laplace on
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

Where things are (one file per concept):

``data.py``
    :data:`SHAPES`, :data:`WORKLOADS`, :func:`synthetic_shape`, :func:`make_histogram`,
    :func:`make_workload` and DPBench's :func:`scaled_error`.
``runs.py``
    :class:`AlgorithmRun` and :func:`run_algorithm`: one cell of the grid, ``trials`` releases scored.
``table.py``
    :class:`ComparisonRow`, :class:`SummaryRow`, :class:`ComparisonTable` and :func:`run_comparison`: the grid.
``explorer.py``
    :class:`ExplorerResult`, :func:`comparison_explorer_run` (the explorer's cached computation) and
    :func:`prefetch_comparison_runs` (its background warm-up of the next moves).
``mwem_rounds.py``
    :class:`RoundCurve` and :func:`mwem_error_by_round`: MWEM's error after every round.

References
----------
.. [HMMCZ16] M. Hay, A. Machanavajjhala, G. Miklau, Y. Chen, D. Zhang.
   "Principled Evaluation of Differentially Private Algorithms using
   DPBench." SIGMOD 2016 (scaled error: Definition 4; data generator: §4).

- [HLM12] M. Hardt, K. Ligett, F. McSherry. NeurIPS 2012 (MWEM).
- [LHMW14] C. Li, M. Hay, G. Miklau, Y. Wang. PVLDB 7(5), 2014 (DAWA, GreedyH).
- [QYL13] W. Qardaji, W. Yang, N. Li. PVLDB 6(14), 2013 (H_b).
- [XWG10] X. Xiao, G. Wang, J. Gehrke. ICDE 2010 (Privelet).
"""

from __future__ import annotations

from dpviz.experiments.comparison.data import (
    SHAPES,
    WORKLOADS,
    make_histogram,
    make_workload,
    scaled_error,
    synthetic_shape,
)
from dpviz.experiments.comparison.explorer import (
    SHARED_RUNS,
    ExplorerResult,
    comparison_explorer_run,
    prefetch_comparison_runs,
)
from dpviz.experiments.comparison.mwem_rounds import RoundCurve, mwem_error_by_round
from dpviz.experiments.comparison.runs import AlgorithmRun, run_algorithm
from dpviz.experiments.comparison.table import ComparisonRow, ComparisonTable, SummaryRow, run_comparison
from dpviz.histogram_algorithms import ALGORITHMS, AlgorithmInfo, available_algorithms

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
    "prefetch_comparison_runs",
    "SHARED_RUNS",
    "RoundCurve",
    "mwem_error_by_round",
]
