"""Monte Carlo experiments for prefix-sum queries with truncation ([WPKM19]_ Sec. 4).

:func:`compare_algorithms` runs the paper's experiment: every algorithm, with
and without a truncation subroutine, ``trials`` times, one shared threshold
per trial and truncation method (the paper's Algorithm 9; SQM picks its own per
query), with and without isotonic regression (on the *same* noisy answers, so
the comparison is paired).  It returns arrays: answers, thresholds, relative
errors and their 5-95 % bands.  :func:`explore` is the one call behind
:class:`dpviz.widgets.SumQueryExplorer`: one configuration, answers against the
truth, bias and variance per query split out, the thresholds drawn.

Where things are:

===============  =====================================================================
``cps``          ``DEFAULTS``, ``cps_problem`` (the CPS incomes and their queries)
``bands``        ``ErrorBands``, ``error_bands`` (relative error over trials)
``comparison``   ``SumComparison``, ``compare_algorithms``, ``RatioSweep``, ``ratio_sweep``
``exploration``  ``SumExploration``, ``explore``
===============  =====================================================================

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

from dpviz.experiments.sums.bands import ErrorBands, error_bands
from dpviz.experiments.sums.comparison import RatioSweep, SumComparison, compare_algorithms, ratio_sweep
from dpviz.experiments.sums.comparison import base_algs as base_algs  # public, but (as before) not in __all__
from dpviz.experiments.sums.cps import DEFAULTS, cps_problem
from dpviz.experiments.sums.exploration import SumExploration, explore

__all__ = ["cps_problem", "ErrorBands", "error_bands", "SumComparison", "compare_algorithms", "RatioSweep",
           "ratio_sweep", "SumExploration", "explore", "DEFAULTS"]
