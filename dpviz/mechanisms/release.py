"""What every noisy release shares: the sampler choice, the check of the true answers and the output shape.

A release of ``answers`` is one array of the same shape; ``size=k`` stacks k
independent releases on a new first axis.  The discrete samplers work on the
grid ``granularity * Z`` and refuse answers off it.  Everything here is private
to :mod:`dpviz.mechanisms`.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpviz.validation import check_array, check_elements, check_positive, check_trials

#: How a Laplace or Gaussian release draws its noise: floating point, or exact integer noise on a grid.
Sampler = Literal["float", "discrete", "exact"]
SAMPLERS = ("float", "discrete", "exact")
#: How a discrete sampler draws: vectorised numpy ("fast") or rational arithmetic ("exact").
Method = Literal["exact", "fast"]
METHODS = ("exact", "fast")


#: Largest number of draws of the exact (pure Python, rational-arithmetic) samplers per call: about 20 s.
MAX_EXACT_DRAWS = 2**20

def _discrete_method(sampler: Sampler) -> Method:
    """The discrete ``method`` behind a non-float ``sampler``: "discrete" -> "fast", "exact" -> "exact"."""
    return "fast" if sampler == "discrete" else "exact"


def _answers_and_shape(answers: ArrayLike, size: int | None) -> tuple[np.ndarray, tuple[int, ...]]:
    """The checked answers (finite float64) and the shape of ``size`` stacked releases of them."""
    checked = check_array("answers", answers)
    trials = check_trials(size)
    check_elements(float(trials or 1) * checked.size, "noisy answers", size=size, answers_size=checked.size)
    shape = checked.shape if trials is None else (trials, *checked.shape)
    return checked, shape


def _draw_shape(size: int | None) -> tuple[int, ...]:
    """Shape of ``size`` iid draws: ``()`` for a single draw, ``(size,)`` otherwise."""
    trials = check_trials(size)
    check_elements(float(trials or 1), "draws", size=size)
    return () if trials is None else (trials,)


def _as_output(values: np.ndarray, size: int | None) -> np.ndarray | int:
    """``values`` as returned by a sampler: the array when ``size`` is given, else its one draw as an int."""
    return values if size is not None else int(values.reshape(-1)[0])


def _grid_answers(answers: ArrayLike, granularity: float) -> tuple[np.ndarray, float]:
    """The checked answers and granularity ``g``, refusing answers that are not multiples of ``g``."""
    checked = check_array("answers", answers)
    g = check_positive("granularity", granularity)
    units = checked / g
    if units.size and not np.all(units == np.round(units)):
        bad = checked.ravel()[np.flatnonzero(units.ravel() != np.round(units.ravel()))[0]]
        raise ValueError(f"answers must be multiples of granularity={g} for the discrete mechanisms, got {bad}; "
                         "round the query to the grid first (this adds up to one grid step to its sensitivity)")
    return checked, g
