"""Experiments for the sparse-vector lecture: SVT vs GPTT answers, the counterexample, the reconstruction attack.

GPTT is **NOT differentially private** ([CM15]_); every result here that
involves it says so in its ``repr``.

Files
-----
``threshold_answers.py``
    SVT (epsilon-DP) and GPTT run many times on one query stream:
    :func:`threshold_answers_experiment`, :class:`ThresholdAnswers`.
``counterexample.py``
    Exact counterexample probabilities beside GPTT simulations:
    :func:`counterexample_experiment`, :class:`CounterexampleExperiment`.
``attack_tables.py``
    The attack on the paper's histograms, Tables 2 and 3:
    :func:`attack_table`, :class:`AttackTable`, ``PAPER_DATASETS``,
    ``PAPER_SMALL_BOUND``, ``TABLE_FIELDS``.
``attack_run.py``
    One cached run of the GPTT attack beside SVT and Laplace, for the explorer:
    :func:`gptt_attack_run`, :class:`GPTTAttackRun`, :func:`prefetch_gptt_runs` (the explorer's next moves, computed
    in the background).

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

from dpviz.experiments.svt.attack_run import GPTTAttackRun, gptt_attack_run, prefetch_gptt_runs
from dpviz.experiments.svt.attack_tables import (
    PAPER_DATASETS,
    PAPER_SMALL_BOUND,
    TABLE_FIELDS,
    AttackTable,
    attack_table,
)
from dpviz.experiments.svt.counterexample import CounterexampleExperiment, counterexample_experiment
from dpviz.experiments.svt.threshold_answers import ThresholdAnswers, threshold_answers_experiment

__all__ = [
    "ThresholdAnswers", "threshold_answers_experiment",
    "CounterexampleExperiment", "counterexample_experiment",
    "AttackTable", "attack_table", "PAPER_DATASETS", "PAPER_SMALL_BOUND", "TABLE_FIELDS",
    "GPTTAttackRun", "gptt_attack_run", "prefetch_gptt_runs",
]
