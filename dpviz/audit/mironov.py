"""Mironov's attack on floating-point Laplace noise: which doubles numpy's sampler can output, and the event.

The textbook Laplace mechanism adds floating-point noise to the true answer.  Not
every double is a possible output, and the set of possible outputs moves with
the true answer, so one output can rule out a dataset with certainty ([Mir12],
listed in :mod:`dpviz.audit`).  The noise scale is an input here: the audit
target calibrates it with :func:`dpviz.mechanisms.laplace_scale`.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from dpviz.audit.events import PredicateEvent, _as_rows
from dpviz.validation import check_array, check_int, check_positive, check_real

#: 2^53: numpy draws its uniform as ``k / 2^53`` with a 53-bit integer k.
_TWO53 = 9007199254740992.0


def numpy_laplace_reachable(outputs: npt.ArrayLike, loc: float, scale: float) -> npt.NDArray[np.bool_]:
    """Whether each float in ``outputs`` can be produced by ``numpy.random.Generator.laplace(loc, scale)``.

    numpy draws ``U = k / 2^53`` (k a 53-bit integer) and returns
    ``loc - scale * log(2 - U - U)`` if ``U >= 1/2``, else ``loc + scale * log(U + U)``,
    in double precision.  Only about 2^53 doubles are reachable, and *which*
    ones depends on ``loc``: an output that the sampler centred at ``loc`` cannot
    produce proves the true answer was not ``loc`` ([Mir12]).  For each output we
    invert the formula, and try the few integers k around the inverse, recomputing
    the sampler's arithmetic exactly (``math.log`` is the C library ``log`` numpy
    calls).  Pure Python: about 5 microseconds per output.

    Parameters
    ----------
    outputs : array_like
        Floats to test, any shape.
    loc : float
        The centre (true answer) of the sampler.
    scale : float
        The sampler's Laplace scale b, > 0.

    Returns
    -------
    numpy.ndarray of bool
        Same shape as ``outputs``: True where ``Generator.laplace(loc, scale)`` can return the value.

    Raises
    ------
    ValueError
        If ``loc`` is not a scalar or ``scale`` <= 0 (or not finite).
    TypeError
        If ``outputs`` or ``loc`` is not numeric.

    References
    ----------
    I. Mironov. "On Significance of the Least Significant Bits for
    Differential Privacy." CCS 2012 ([Mir12]).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.random.default_rng(0).laplace(0.0, 1.0, size=4)
    >>> numpy_laplace_reachable(y, 0.0, 1.0).tolist()
    [True, True, True, True]
    >>> numpy_laplace_reachable(y, 1.0, 1.0).tolist()  # not reachable from the neighbour's centre
    [False, False, False, False]
    """
    loc = check_real("loc", loc)
    scale = check_positive("scale", scale)
    ys = check_array("outputs", outputs).ravel()
    out = np.zeros(ys.size, dtype=bool)
    for i, y in enumerate(ys.tolist()):
        u = 1.0 - math.exp((loc - y) / scale) / 2.0 if y >= loc else math.exp((y - loc) / scale) / 2.0
        k0 = int(round(u * _TWO53))
        for k in range(max(k0 - 4, 1), min(k0 + 5, 2**53)):
            v = k / _TWO53
            val = loc - scale * math.log(2.0 - v - v) if v >= 0.5 else loc + scale * math.log(v + v)
            if val == y:
                out[i] = True
                break
    return out.reshape(np.shape(outputs))


def mironov_event(loc: float, scale: float, coordinate: int = 0) -> PredicateEvent:
    """The event "output[coordinate] could NOT come from numpy's float Laplace sampler centred at ``loc``".

    Under a dataset whose true answer is ``loc`` it has probability 0; under a
    neighbour it can have probability near 1, so the audit's bound is limited only
    by the number of samples ([Mir12]): the textbook float Laplace mechanism is not
    epsilon-DP for any epsilon.  (Integer-valued mechanisms, e.g.
    ``laplace(..., sampler="discrete")``, have no such holes.)

    Parameters
    ----------
    loc : float
        The true answer of the dataset the event is built on.
    scale : float
        The Laplace scale b of the mechanism, > 0.
    coordinate : int
        Which output coordinate (flattened per sample) the event looks at, >= 0.

    Returns
    -------
    PredicateEvent
        The event.

    Raises
    ------
    ValueError
        If ``loc`` is not finite, ``scale`` is not a finite number > 0 or ``coordinate`` < 0.
    TypeError
        If ``loc`` or ``scale`` is not a real number (a bool is refused) or ``coordinate`` is not an integer.

    References
    ----------
    I. Mironov. "On Significance of the Least Significant Bits for
    Differential Privacy." CCS 2012 ([Mir12]).

    Examples
    --------
    >>> import numpy as np
    >>> event = mironov_event(0.0, 1.0)
    >>> y = np.random.default_rng(0).laplace(1.0, 1.0, size=(4, 1))  # outputs of the neighbour, true answer 1
    >>> event(y).tolist()
    [True, True, True, True]
    """
    loc = check_real("loc", loc)
    scale = check_positive("scale", scale)
    loc = check_real("loc", loc)
    scale = check_positive("scale", scale)
    coordinate = check_int("coordinate", coordinate, minimum=0)

    def unreachable(outputs: np.ndarray) -> np.ndarray:
        return ~numpy_laplace_reachable(_as_rows(outputs)[:, coordinate], loc, scale)

    return PredicateEvent(unreachable, f"output[{coordinate}] unreachable by float Laplace centred at {loc:g}")
