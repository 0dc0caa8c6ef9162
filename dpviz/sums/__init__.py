"""Prefix-sum queries over a numeric attribute, with truncation: SQM, Identity, Workload, TiMM and TaMM.

Records with values ``w >= 0`` (incomes) are counted in public bins whose upper
edges are their weights ``v``; the prefix-sum queries are ``W_s diag(v) x``.
Truncating every weight at ``tau`` bounds what one record can change, at the
price of an exact, data-dependent bias; ``tau`` is chosen privately with a
share ``rho`` of epsilon, and one of five algorithms answers with the rest
([WPKM19]_).  Each algorithm reads as *select* (threshold, strategy) ->
*measure* (Laplace noise) -> *infer* (least squares, isotonic regression).
The noise is floating-point and Mironov (CCS 2012) showed that the low-order
bits of float Laplace outputs can reveal the input, so the epsilon of every
algorithm here is that of its idealised real-valued version (lecture 07, section 7).

Where things are:

================  ===========================================================================
``options``       ``ALGORITHMS``, ``THRESHOLD_METHODS``, ``NOT_DP``
``bins``          vectorisation: ``uniform_bins``, ``cps_income_bins``, ``cps_thresholds``,
                  ``vectorize``, ``prefix_workload``, ``weighted_workload``
``problem``       ``SumProblem``, ``prepare``, ``check_problem``
``truncation``    ``truncate_weights``, ``truncated_prefix_sums``, ``truncation_bias``,
                  ``workload_sensitivity``
``budget``        ``split_budget`` (threshold vs answers)
``thresholds``    ``threshold_grid``, ``svt_threshold``, ``recursive_threshold``,
                  ``oracle_threshold`` (NOT DP), ``choose_threshold``
``sqm``           SQM's per-query ``sqm_thresholds`` and ``sqm_answers``
``matrix``        TiMM / TaMM strategies: ``prefix_gram``, ``precompute_strategies``
``answers``       ``answer_with_threshold`` (Identity, Workload, TiMM, TaMM), ``isotonic``
``pipeline``      ``SumRelease``, ``release``, ``answer_prefix_sums`` (everything in one call)
``accuracy``      ``relative_error``, ``expected_variance``, ``expected_squared_error``
================  ===========================================================================

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.

- [CZ13] S. Chen, S. Zhou. "Recursive Mechanism: Towards Node Differential
  Privacy and Unrestricted Joins." SIGMOD 2013.
- [LSL17] M. Lyu, D. Su, N. Li. "Understanding the Sparse Vector Technique for
  Differential Privacy." PVLDB 10(6), 2017.
- [LMHMR15] C. Li, G. Miklau, M. Hay, A. McGregor, V. Rastogi. "The matrix
  mechanism: optimizing linear counting queries under differential privacy."
  VLDB Journal 24(6), 2015.
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the accuracy of
  differentially private histograms through consistency." PVLDB 3(1), 2010.
"""

from __future__ import annotations

from dpviz.sums.accuracy import expected_squared_error, expected_variance, relative_error
from dpviz.sums.answers import answer_with_threshold, isotonic
from dpviz.sums.bins import (
    cps_income_bins,
    cps_thresholds,
    prefix_workload,
    uniform_bins,
    vectorize,
    weighted_workload,
)
from dpviz.sums.budget import split_budget
from dpviz.sums.matrix import precompute_strategies, prefix_gram
from dpviz.sums.options import ALGORITHMS, MAX_RUNS, NOT_DP, THRESHOLD_METHODS
from dpviz.sums.pipeline import SumRelease, answer_prefix_sums, release
from dpviz.sums.problem import SumProblem, check_problem, prepare
from dpviz.sums.sqm import sqm_answers, sqm_thresholds
from dpviz.sums.thresholds import (
    choose_threshold,
    oracle_threshold,
    recursive_threshold,
    svt_threshold,
    threshold_grid,
)
from dpviz.sums.truncation import truncate_weights, truncated_prefix_sums, truncation_bias, workload_sensitivity

__all__ = [
    "ALGORITHMS", "THRESHOLD_METHODS", "NOT_DP", "MAX_RUNS",
    "uniform_bins", "cps_income_bins", "cps_thresholds", "vectorize", "prefix_workload", "weighted_workload",
    "truncate_weights",
    "SumProblem", "prepare", "truncated_prefix_sums", "truncation_bias", "workload_sensitivity", "prefix_gram",
    "threshold_grid", "svt_threshold", "recursive_threshold", "oracle_threshold", "choose_threshold",
    "answer_with_threshold", "precompute_strategies", "SumRelease", "release", "answer_prefix_sums", "isotonic",
    "relative_error",
    "expected_variance", "expected_squared_error", "split_budget",
    # public homes for what dpviz.experiments.sums used to reach in for
    "check_problem", "sqm_thresholds", "sqm_answers",
]
