"""Argument checks shared by every dpviz module.

All user-facing validation lives here so that each message has the same shape:
it names the parameter, shows the value received and states the allowed range
or the fix.  ``TypeError`` is raised for a value of the wrong type and
``ValueError`` for a value of the right type outside its range.  Nothing is
ever clipped silently.

Files
-----
``scalars.py``
    One real number: ``check_positive``, ``check_nonnegative``,
    ``check_probability``, ``check_open_unit``; a flag (``check_bool``); one of
    a set of values (``check_choice``).
``allocation.py``
    ``check_elements`` and ``MAX_ELEMENTS``: the cap on array elements one call may allocate; ``check_shape``
    (an array shape, within that cap); ``check_simulated_scale``: the cap on a simulated noise scale;
    ``check_work``: a cap on a call's run time.
``integers.py``
    ``check_int`` (bounded), ``check_int_array`` (whole numbers, never truncated),
    ``check_trials`` (a number of releases or None),
    ``check_widths`` (range widths in ``[1, n]``).
``privacy_parameters.py``
    ``check_epsilon`` and ``check_delta``.
``arrays.py``
    ``check_array`` (dimension, finiteness, numbers only, magnitude), ``check_counts`` (a histogram),
    ``check_matrix`` (a query matrix, dense or sparse), ``check_covariance`` (positive semidefinite),
    ``MAX_MAGNITUDE`` (the largest data value).
``objects.py``
    ``check_instance`` (a tree, a release, a workload ...), ``check_callable``, ``check_sequence`` (a list).
``naming.py``
    ``blame``: a callee's refusal re-raised naming the caller's parameters.
"""

from __future__ import annotations

from dpviz.validation.allocation import (
    MAX_ELEMENTS,
    MAX_SIMULATED_SCALE,
    check_elements,
    check_shape,
    check_simulated_scale,
    check_work,
)
from dpviz.validation.arrays import (
    MAX_MAGNITUDE,
    check_array,
    check_counts,
    check_covariance,
    check_matrix,
    is_sparse,
)
from dpviz.validation.integers import check_int, check_int_array, check_trials, check_widths
from dpviz.validation.naming import blame
from dpviz.validation.objects import check_callable, check_instance, check_sequence
from dpviz.validation.privacy_parameters import check_delta, check_epsilon
from dpviz.validation.scalars import (
    check_bool,
    check_choice,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_probability,
    check_real,
)

__all__ = [
    "check_real",
    "check_positive",
    "check_nonnegative",
    "check_probability",
    "check_open_unit",
    "check_int",
    "check_int_array",
    "check_choice",
    "check_array",
    "check_counts",
    "check_covariance",
    "is_sparse",
    "check_matrix",
    "check_epsilon",
    "check_delta",
    "check_trials",
    "check_bool",
    "check_widths",
    "check_elements",
    "check_shape",
    "MAX_ELEMENTS",
    "MAX_SIMULATED_SCALE",
    "check_simulated_scale",
    "check_work",
    "MAX_MAGNITUDE",
    "check_instance",
    "check_callable",
    "check_sequence",
    "blame",
]
