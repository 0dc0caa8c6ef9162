"""Composition: theorems, the privacy-loss view, Rényi DP and zCDP, the pitfalls, and the lecture's worked example.

The releases here (the BMI algorithms, ``adaptive_counts``, and ``subsampled_count`` with its sampling coins)
draw floating-point noise, and Mironov (CCS 2012) showed that the low-order bits of float Laplace outputs can
reveal the input: the epsilon they state is that of the idealised real-valued mechanism (lecture 07, section 7).

Files
-----
``theorems.py``
    ``basic_composition``, ``advanced_composition`` [DRV10]_ and
    ``advanced_epsilon_per_query`` (the largest per-query epsilon advanced
    composition allows within a total), ``advanced_crossover`` (the k from which
    it beats basic composition), ``optimal_composition`` (the exact best bound for
    any eps-DP mechanisms, Kairouz, Oh & Viswanath). ``group_privacy`` is re-exported from
    ``dpviz.definition.groups``, where it lives.
``loss_distribution.py``
    A discrete privacy-loss law and its privacy: ``LossDistribution``, ``loss_delta``
    (delta(eps) of the law), ``loss_epsilon`` (its exact inverse), ``loss_tail``.
``privacy_loss.py``
    The privacy-loss random variable of Laplace counts and why composition adds it:
    ``laplace_loss``, ``laplace_loss_moments``, ``laplace_loss_samples``,
    ``laplace_loss_distribution`` (the k-fold total on a grid, bracketing the exact law).
``concentrated.py``
    Rényi DP and zero-concentrated DP: ``gaussian_rho``, ``pure_dp_rho``,
    ``laplace_rdp``, ``gaussian_rdp``, the conversions ``zcdp_epsilon`` and
    ``rdp_epsilon`` (Mironov; Canonne, Kamath & Steinke), the orders ``ORDERS``.
``partitions.py``
    When parallel composition holds: ``partition_epsilon`` (overlapping parts,
    replace-one neighbours) and the counterexample of parts chosen from the data,
    ``split_at_mean`` / ``split_at_mean_counts`` (NOT eps-DP).
``adaptive.py``
    Adaptive composition: ``adaptive_counts`` (the second query chosen from the
    first noisy answer), ``AGE_GROUPS``.
``bmi_example.py``
    The worked example on a five-row (sex, height, weight) table:
    ``BMI_TABLE``, ``BMI_QUERY_NAMES``, ``bmi``, ``bmi_cells``, ``bmi_queries``,
    Algorithm 1 ``bmi_sequential`` (four queries, sequential composition,
    total error 128/eps^2), Algorithm 2 ``bmi_parallel`` (four disjoint cells,
    parallel composition, 12/eps^2), their ``bmi_expected_error``, Algorithm 1's
    exact charges ``sequential_charges`` and ``check_bmi_table``.
``stability.py``
    Transformations and their stability: ``first_words`` (the lecture's V2,
    stability k) and ``stable_epsilon`` (an eps-DP mechanism on a
    sigma-stable transformation is sigma*eps-DP).
``subsampling.py``
    Privacy amplification by Poisson subsampling: ``amplified_epsilon``
    (``ln(1 + p(e^eps - 1))``) and ``subsampled_count`` (a Laplace count on a sample).

References
----------
.. [DRV10] C. Dwork, G. Rothblum, S. Vadhan. "Boosting and Differential Privacy." FOCS 2010.
"""

from __future__ import annotations

from dpviz.composition.adaptive import AGE_GROUPS, adaptive_counts
from dpviz.composition.bmi_example import (
    BMI_QUERY_NAMES,
    BMI_TABLE,
    bmi,
    bmi_cells,
    bmi_expected_error,
    bmi_parallel,
    bmi_queries,
    bmi_sequential,
    check_bmi_table,
    sequential_charges,
)
from dpviz.composition.concentrated import (
    CONVERSIONS,
    ORDERS,
    gaussian_rdp,
    gaussian_rho,
    laplace_rdp,
    pure_dp_rho,
    rdp_epsilon,
    zcdp_epsilon,
)
from dpviz.composition.loss_distribution import LossDistribution, loss_delta, loss_epsilon, loss_tail
from dpviz.composition.partitions import NEIGHBOURS, partition_epsilon, split_at_mean, split_at_mean_counts
from dpviz.composition.privacy_loss import (
    laplace_loss,
    laplace_loss_distribution,
    laplace_loss_moments,
    laplace_loss_samples,
)
from dpviz.composition.stability import first_words, stable_epsilon
from dpviz.composition.subsampling import amplified_epsilon, subsampled_count
from dpviz.composition.theorems import (
    advanced_composition,
    advanced_crossover,
    advanced_epsilon_per_query,
    basic_composition,
    optimal_composition,
)
from dpviz.definition.groups import group_privacy

__all__ = [
    "basic_composition",
    "advanced_composition",
    "advanced_epsilon_per_query",
    "BMI_TABLE",
    "bmi",
    "bmi_queries",
    "bmi_cells",
    "bmi_sequential",
    "bmi_parallel",
    "bmi_expected_error",
    "BMI_QUERY_NAMES",
    "sequential_charges",
    "check_bmi_table",
    "first_words",
    "stable_epsilon",
    "amplified_epsilon",
    "subsampled_count",
    "advanced_crossover",
    "optimal_composition",
    "group_privacy",
    "LossDistribution",
    "laplace_loss",
    "laplace_loss_moments",
    "laplace_loss_samples",
    "laplace_loss_distribution",
    "loss_delta",
    "loss_epsilon",
    "loss_tail",
    "ORDERS",
    "CONVERSIONS",
    "gaussian_rho",
    "pure_dp_rho",
    "zcdp_epsilon",
    "laplace_rdp",
    "gaussian_rdp",
    "rdp_epsilon",
    "NEIGHBOURS",
    "partition_epsilon",
    "split_at_mean",
    "split_at_mean_counts",
    "AGE_GROUPS",
    "adaptive_counts",
]
