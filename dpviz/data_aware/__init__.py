"""Data-aware mechanisms: spend part of the budget learning the data's shape, then measure.

Workload-aware mechanisms (identity, H_b, wavelet, GreedyH) add noise whose
distribution ignores the data.  Data-aware mechanisms privately *test* the data
first and adapt what they measure to it (the slides' "Approach 2"):

``uniform``
    The baseline of DPBench [HMMCZ16]_: one noisy total, spread evenly over the
    domain.  All of the error is approximation error: zero on uniform data.
``mwem``
    Multiplicative weights + exponential mechanism [HLM12]_: starting from the
    uniform histogram, repeatedly pick (privately) the workload query the
    current estimate answers worst, measure it with Laplace noise and reweight.
``private_partition`` and ``dawa``
    The two stages of DAWA [LHMW14]_: privately choose a partition of the domain
    into buckets whose counts are nearly uniform, then measure the bucket totals
    with a workload-friendly strategy, solve least squares and spread each
    bucket's estimate evenly over its cells.

**How this DAWA differs from the paper (on purpose, and stated wherever it shows).**
DAWA's efficient variant only considers buckets whose lengths are powers of 2.
Here the candidate buckets are the *aligned* dyadic intervals ``[j 2^l, (j+1) 2^l)``
of the domain padded to ``N = 2^ceil(log2 n)`` empty cells, so a partition is a
pruning of the binary tree over the domain and the search is O(n).  Instead of
adding Laplace noise to every candidate's cost and minimising (whose minimum is
biased towards many small buckets), the partition is *sampled* with the
exponential mechanism on the whole partition's cost ``sum_B dev(B) + lambda |P|``.
One record lies in exactly one bucket of any partition, so this cost has
sensitivity 2 (no ``log n`` factor), and because it is a sum over buckets the
sampling is exact by a sum-product recursion up the tree.

Every function here takes ``epsilon``, ``rng`` and an optional ``accountant``
and spends *exactly* ``epsilon`` per release: the budget shares are computed
as exact fractions and every stage is charged, under its own label, through
:func:`dpviz.accountant.charge_all` before any noise is drawn (a refusal
records nothing).  ``size=k`` runs k independent releases, which are k
mechanisms on the same data: the accountant is charged ``k * epsilon``
(sequential composition), the one rule of :mod:`dpviz.accountant`.  The noise,
MWEM's Gumbel selection and DAWA's partition coins are floating-point draws, and
Mironov (CCS 2012) showed that the low-order bits of float Laplace outputs can
reveal the input, so the epsilon spent is that of the idealised real-valued
mechanisms (lecture 07, section 7).

Where things are (one file per concept):

``uniform_baseline.py``
    :func:`uniform`, the one-bucket baseline.
``mwem_algorithm.py``
    :func:`mwem` and its :class:`MWEMResult`.
``mwem_selection.py``
    :func:`selection_probabilities`: the exact distribution of MWEM's exponential-mechanism selection.
``partition.py``
    :class:`Partition`, :func:`bucket_deviation`, :func:`dyadic_deviations`,
    :func:`default_bucket_penalty` and :func:`private_partition` (DAWA's stage 1).
``dawa_algorithm.py``
    :func:`dawa`, its :class:`DAWAResult` and the stage-2 :data:`STRATEGIES`.
``queries.py``
    (private) a workload as MWEM and GreedyH see it: ranges or a matrix, scaled to sensitivity 1.
``budget.py``
    (private) exact budget shares, and the floor on a stage's epsilon (noise scale at most 1e100).

References
----------
.. [HLM12] M. Hardt, K. Ligett, F. McSherry. "A Simple and Practical Algorithm
   for Differentially Private Data Release." NeurIPS 2012.
.. [LHMW14] C. Li, M. Hay, G. Miklau, Y. Wang. "A Data- and Workload-Aware
   Algorithm for Range Queries Under Differential Privacy." PVLDB 7(5), 2014.

- [MT07] F. McSherry, K. Talwar. "Mechanism Design via Differential Privacy."
  FOCS 2007.

.. [HMMCZ16] M. Hay, A. Machanavajjhala, G. Miklau, Y. Chen, D. Zhang.
   "Principled Evaluation of Differentially Private Algorithms using DPBench."
   SIGMOD 2016.
"""

from __future__ import annotations

from dpviz.data_aware.dawa_algorithm import STRATEGIES, DAWAResult, dawa
from dpviz.data_aware.mwem_algorithm import MWEMResult, mwem
from dpviz.data_aware.mwem_selection import selection_probabilities
from dpviz.data_aware.partition import (
    Partition,
    bucket_deviation,
    default_bucket_penalty,
    dyadic_deviations,
    private_partition,
)
from dpviz.data_aware.uniform_baseline import uniform

__all__ = [
    "STRATEGIES",
    "Partition",
    "MWEMResult",
    "DAWAResult",
    "uniform",
    "mwem",
    "selection_probabilities",
    "bucket_deviation",
    "dyadic_deviations",
    "default_bucket_penalty",
    "private_partition",
    "dawa",
]
