"""Composition theorems and the lecture's worked example of sequential vs parallel composition.

Files
-----
``theorems.py``
    ``basic_composition``, ``advanced_composition`` [DRV10]_ and
    ``advanced_epsilon_per_query`` (the largest per-query epsilon advanced
    composition allows within a total).
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
from dpviz.composition.stability import first_words, stable_epsilon
from dpviz.composition.subsampling import amplified_epsilon, subsampled_count
from dpviz.composition.theorems import advanced_composition, advanced_epsilon_per_query, basic_composition

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
]
