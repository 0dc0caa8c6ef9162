"""What every noisy release shares: the sampler choice, the check of the true answers and the output shape.

A release of ``answers`` is one array of the same shape; ``size=k`` stacks k
independent releases on a new first axis.  The discrete samplers work on the
grid ``granularity * Z`` and refuse answers off it.  Everything here is private
to :mod:`dpviz.mechanisms`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import upper_reading
from dpviz.validation import check_array, check_elements, check_positive, check_trials

#: How a Laplace or Gaussian release draws its noise: floating point, or exact integer noise on a grid.
Sampler = Literal["float", "discrete", "exact"]
SAMPLERS = ("float", "discrete", "exact")
#: How a discrete sampler draws: vectorised numpy ("fast") or rational arithmetic ("exact").
Method = Literal["exact", "fast"]
METHODS = ("exact", "fast")


#: Largest number of draws of the exact (pure Python, rational-arithmetic) samplers per call: about 20 s.
MAX_EXACT_DRAWS = 2**20

def _scale_at_least(numerator: Fraction, denominator: Fraction, guess: float) -> float:
    """The smallest double ``b >= guess`` with ``b * denominator >= numerator`` (exact): a noise scale rounded up.

    ``guess`` is the float quotient, within an ulp or two of the exact one, so this moves it at most a few ulp.
    """
    b = guess
    while math.isfinite(b) and Fraction(b) * denominator < numerator:
        b = math.nextafter(b, math.inf)
    return b


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


#: Largest grid point (in absolute value, ``answer / granularity``) the discrete mechanisms take.  The noisy
#: grid point is an int64 and its value a double: both hold every integer up to 2**53, and the noise reaches
#: ~44 * 1e14 (the samplers' largest scale); 2**44 (1.8e13) leaves room for both, and keeps the float error of
#: ``answer / granularity`` (a few ulp of it, 4 * 2**-52 * 2**44 = 0.016 grid units) far below half a grid step.
MAX_GRID_POINT = 2**44

#: How far (in grid units, on top of the float error of the division) an answer may sit from its grid point:
#: ``0.3 / 0.1 = 2.9999999999999996`` is grid point 3.
GRID_TOLERANCE = 1e-9


def _grid_answers(answers: ArrayLike, granularity: float) -> tuple[np.ndarray, float, float]:
    """The grid points ``k = rint(answer / g)`` of the checked answers (int64, same shape), the granularity ``g``,
    and the slack: how far (in grid units) any accepted answer may sit from its grid point.

    An answer is on the grid when ``answer / g`` is within ``GRID_TOLERANCE`` grid units (plus the float error of
    the division, 4 ulp of it) of an integer, so 0.3 is accepted for ``g = 0.1`` although ``0.3 / 0.1`` is
    2.9999999999999996.  Answers off the grid, or beyond ``MAX_GRID_POINT`` grid units, are refused.
    """
    checked = check_array("answers", answers)
    g = check_positive("granularity", granularity)
    units = checked / g
    if not np.all(np.isfinite(units)):
        raise ValueError(f"answers / granularity overflows for granularity={granularity!r}: "
                         f"use a coarser granularity or rescale the answers")
    points = np.rint(units)
    far = np.abs(points) > MAX_GRID_POINT
    if np.any(far):
        bad = checked.ravel()[np.flatnonzero(far.ravel())[0]]
        raise ValueError(f"answers must be at most {MAX_GRID_POINT:.4g} grid steps from 0 for the discrete "
                         f"mechanisms (beyond, a double cannot hold the noisy grid point exactly), got {bad!r} with "
                         f"granularity={g!r}: use a coarser granularity or rescale the answers")
    off = np.abs(units - points) > GRID_TOLERANCE + 4 * np.finfo(float).eps * np.abs(units)
    if np.any(off):
        bad = checked.ravel()[np.flatnonzero(off.ravel())[0]]
        raise ValueError(f"answers must be multiples of granularity={g!r} for the discrete mechanisms, got {bad!r} "
                         f"({bad / g!r} grid steps); round the query to the grid first (this adds up to one grid "
                         "step to its sensitivity)")
    # any accepted answer, here or on a neighbour (within a few grid steps of these), is this close to its point
    slack = GRID_TOLERANCE + 4 * float(np.finfo(float).eps) * (float(np.abs(points).max(initial=0.0)) + 2.0**20)
    return points.astype(np.int64), g, slack


def _grid_shift(sensitivity: float, granularity: float, slack: float, coordinates: int, norm: int) -> Fraction:
    """The sensitivity, in grid units, that the integer grid points of two neighbours can differ by.

    Two answer vectors within ``sensitivity`` of each other (in the L1 or L2 ``norm``) have grid points
    ``rint(answer / g)`` that differ by at most ``sensitivity / g`` plus twice each coordinate's ``slack``: an
    integer vector.  Its norm is at most ``sensitivity / g`` (the sensitivity at its larger reading, g as the
    binary value the division used) or, when the slack carries it past an integer (L1) or the square root of an
    integer (L2), that integer's worth: two answers 1e-10 off the grid can round 2 steps apart under a
    sensitivity of 1.9999999998 steps.  The larger of the two is returned, exactly.
    """
    d = upper_reading("sensitivity", sensitivity) / Fraction(granularity)
    if norm == 1:
        reach = d + 2 * coordinates * Fraction(slack)
        return max(d, Fraction(math.floor(reach)))
    reach = d + 2 * Fraction(slack) * Fraction(math.sqrt(coordinates) * (1 + 1e-15))
    squared = math.floor(reach * reach)                 # an integer vector's squared norm is an integer
    root = Fraction(math.isqrt(squared))
    if root * root < squared:                           # not a square: round sqrt(squared) up to a double
        f = math.sqrt(squared)
        while Fraction(f) ** 2 < squared:
            f = math.nextafter(f, math.inf)
        root = Fraction(f)
    return max(d, root)


def _grid_values(points: np.ndarray, granularity: float) -> np.ndarray:
    """The doubles released for the integer grid points ``points``: a function of each point alone.

    The value of point k is the double nearest ``k * g``, with ``g`` read as its shortest decimal ``p / q``
    (0.1 = 1/10, so k = 7 gives 0.7 and never 0.7000000000000001): ``(k p) / q`` is one correctly rounded
    division of two exact doubles.  Where ``|k p|`` passes 2**53 it is ``k * g`` in floating point instead.  Both
    depend on k and g only: two inputs whose noisy grid points coincide release the same bits, which is what
    makes the release as private as the integer mechanism (Mironov's attack reads the low bits of ``answer +
    noise``, and here they carry nothing but k).
    """
    k = np.asarray(points, dtype=np.int64)
    kf = k.astype(np.float64)          # exact: |k| < 2**53
    frac = Fraction(repr(float(granularity)))
    p, q = frac.numerator, frac.denominator
    if p > 2**53 or q > 2**53:
        return kf * granularity
    exact_product = np.abs(k) <= (2**53) // p
    return np.where(exact_product, (kf * float(p)) / float(q), kf * granularity)
