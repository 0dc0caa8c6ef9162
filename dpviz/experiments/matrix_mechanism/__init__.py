"""Experiments for the matrix-mechanism lecture: strategy comparisons, per-query errors, Monte Carlo checks.

Everything returned is data (dataclasses of arrays); figures are drawn by
:mod:`dpviz.plots.matrix_mechanism`.

Files
-----
comparison.py
    :func:`compare_strategies`, :func:`comparison_table` (exact totals beside the SVD lower bound)
    and :func:`error_by_width`, with their results :class:`StrategyComparison`, :class:`ErrorByWidth`.
monte_carlo.py
    :func:`query_error_experiment`: simulated vs exact error of every query (:class:`QueryErrorExperiment`).
explorer.py
    The explorer's data: :func:`aggregate`, :func:`default_histogram` and one update,
    :func:`matrix_mechanism_explorer_run` (:class:`MatrixMechanismRun`).
"""

from dpviz.experiments.matrix_mechanism.comparison import (
    ErrorByWidth,
    StrategyComparison,
    compare_strategies,
    comparison_table,
    error_by_width,
)
from dpviz.experiments.matrix_mechanism.explorer import (
    MatrixMechanismRun,
    aggregate,
    default_histogram,
    matrix_mechanism_explorer_run,
)
from dpviz.experiments.matrix_mechanism.monte_carlo import QueryErrorExperiment, query_error_experiment

__all__ = [
    "StrategyComparison",
    "compare_strategies",
    "comparison_table",
    "QueryErrorExperiment",
    "query_error_experiment",
    "ErrorByWidth",
    "error_by_width",
    "aggregate",
    "default_histogram",
    "MatrixMechanismRun",
    "matrix_mechanism_explorer_run",
]
