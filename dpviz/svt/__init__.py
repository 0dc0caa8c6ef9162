"""The sparse vector technique, its broken variant GPTT, and the attack that reconstructs histograms with GPTT.

**Sparse vector (SVT).**  A stream of queries ``q_1, q_2, ...`` of sensitivity
``Delta`` is compared with a threshold ``T``.  The threshold is perturbed *once*,
``T^ = T + rho`` with ``rho ~ Lap(Delta / eps1)``; every query gets fresh noise
``nu_i ~ Lap(2 c Delta / eps2)``; the answer is "above" (``ABOVE = 1``) when
``q_i + nu_i >= T^`` and "below" (``BELOW = 0``) otherwise, and the algorithm
*halts* after its ``c``-th "above" (later queries are ``HALTED = -1``).  It is
``(eps1 + eps2)``-DP whatever the number of "below" answers ([CM15]_ Alg. 1,
calibration and proof of [LSL17]_ Alg. 1 / Thm 2; for monotone queries
``Lap(c Delta / eps2)`` suffices).  The noise is floating-point, with a rounding
and a bounded range the proof ignores (Mironov, CCS 2012, showed such gaps break
float Laplace), so this epsilon is the idealised real-valued mechanism's (lecture 07).

**Generalized private threshold testing (GPTT)** ([CM15]_ Alg. 2) is SVT
*without the halt*: threshold noise ``Lap(Delta/eps1)``, query noise
``Lap(Delta/eps2)`` (or none, ``eps2 = inf``), any number of "above" answers.
Prior work claimed it is ``(eps1 + eps2)``-DP.  **It is NOT differentially
private for any finite epsilon** ([CM15]_ Thm 4.7): :func:`counterexample_probability`
computes the exact probabilities of the Section 4 counterexample, whose ratio
grows without bound with the number of query copies ``t``.

**The attack** ([CM15]_ Section 5).  GPTT without query noise answers all
difference queries ``q_{x,y} = c(x) - c(y)`` (sensitivity 1, every ordered pair
of cells) against one noisy threshold ``T^``.  Algorithm 3 groups two cells when
every query they appear in -- as first argument (their answer *rows*) and as
second argument (their *columns*) -- got the same answer, and orders the groups
by ``|S_x| = #{y : c(x) - c(y) >= T^}`` (:func:`ordered_partition`): the groups
are level sets of the histogram, or unions of neighbouring ones where no count
separates them.  Spending the rest of the budget on one Laplace-noised total
per group and rounding the average (Algorithm 4, :func:`reconstruct_from_oracle`,
:func:`reconstruct`, whose defaults are exactly Algorithms 3 and 4) recovers
most counts exactly, small counts above all.  The attack talks to the data only
through a :class:`GPTTOracle`.

Files
-----
``codes.py``
    The output codes ``ABOVE``, ``BELOW``, ``HALTED`` and the ``NOT_DP`` label.
``noise.py``
    Private Laplace tail probabilities (log cdf, log survival function).
``sparse_vector_technique.py``
    SVT (epsilon-DP): :func:`svt_noise_scales`, :func:`sparse_vector`.
``gptt_variant.py``
    GPTT (NOT differentially private): :func:`gptt_noise_scales`, :func:`gptt`.
``exact.py``
    Exact output probabilities: :func:`event_probability` (GPTT),
    :func:`sparse_vector_probability` (SVT).
``counterexample.py``
    The [CM15]_ Section 4 counterexample that GPTT is NOT DP:
    :func:`counterexample_probability` and its pieces.
``oracles.py``
    What the attack may ask of the data: :class:`DifferenceOracle`,
    :class:`GPTTOracle` (NOT DP), :class:`SVTOracle` (epsilon-DP).
``partition.py``
    The attack's first step (Algorithm 3): :func:`ordered_partition`,
    :class:`OrderedPartition`, ``GROUPINGS``, and our :func:`calibrate_shift`.
``answer_keys.py``
    How Algorithm 3 holds the 16.8 million answers: each cell's answer row and
    column packed to bits, block by block, and the cells grouped by them
    (internal to :func:`ordered_partition`; not re-exported).
``attack.py``
    The GPTT reconstruction attack end to end (Algorithm 4):
    :func:`reconstruct`, :func:`reconstruct_from_oracle`,
    :func:`ordered_estimate`, :class:`Reconstruction`, and the honest
    baseline :func:`laplace_reconstruct`.
``expected_accuracy.py``
    The attack's exact expected accuracy without query noise, beside the
    sampler: :func:`expected_fraction_exact`.
``scoring.py``
    How well an attack did: :func:`fraction_exact`, :func:`support_k`,
    :class:`ReconstructionAccuracy`.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
.. [LSL17] M. Lyu, D. Su, N. Li. "Understanding the Sparse Vector Technique for
   Differential Privacy." PVLDB 10(6), 2017.

- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential
  Privacy." Foundations and Trends in TCS 9(3-4), 2014, Section 3.6.
"""

from __future__ import annotations

from dpviz.svt.attack import (
    ESTIMATORS,
    MIN_CALIBRATED_EPSILON,
    Reconstruction,
    laplace_reconstruct,
    ordered_estimate,
    reconstruct,
    reconstruct_from_oracle,
)
from dpviz.svt.codes import ABOVE, BELOW, HALTED, NOT_DP
from dpviz.svt.counterexample import (
    COUNTEREXAMPLE_THRESHOLD,
    MAX_T_VALUES,
    CounterexampleProbability,
    counterexample_answers,
    counterexample_databases,
    counterexample_event,
    counterexample_log_ratio_bound,
    counterexample_probability,
)
from dpviz.svt.exact import event_probability, sparse_vector_probability
from dpviz.svt.expected_accuracy import MAX_THRESHOLD_STEPS, expected_fraction_exact
from dpviz.svt.gptt_variant import gptt, gptt_noise_scales
from dpviz.svt.oracles import MAX_COPIES, DifferenceOracle, GPTTOracle, SVTOracle
from dpviz.svt.partition import (
    GROUPINGS,
    MAX_CALIBRATION_STEPS,
    OrderedPartition,
    calibrate_shift,
    ordered_partition,
)
from dpviz.svt.scoring import ReconstructionAccuracy, fraction_exact, support_k
from dpviz.svt.sparse_vector_technique import sparse_vector, svt_noise_scales

__all__ = [
    "ABOVE", "BELOW", "HALTED", "NOT_DP",
    "svt_noise_scales", "sparse_vector", "sparse_vector_probability", "gptt", "gptt_noise_scales",
    "event_probability", "COUNTEREXAMPLE_THRESHOLD", "counterexample_databases", "counterexample_answers",
    "counterexample_event", "counterexample_probability", "counterexample_log_ratio_bound", "CounterexampleProbability",
    "GPTTOracle", "SVTOracle", "DifferenceOracle", "OrderedPartition", "ordered_partition", "calibrate_shift",
    "GROUPINGS",
    "Reconstruction", "ESTIMATORS", "ordered_estimate", "reconstruct_from_oracle", "reconstruct", "laplace_reconstruct",
    "ReconstructionAccuracy", "fraction_exact", "support_k", "expected_fraction_exact", "MAX_THRESHOLD_STEPS",
    "MAX_COPIES", "MAX_CALIBRATION_STEPS", "MAX_T_VALUES", "MIN_CALIBRATED_EPSILON",
]
