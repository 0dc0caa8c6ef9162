"""Mironov's attack on floating-point Laplace noise: which doubles numpy's sampler can output, and the event."""

from __future__ import annotations

import math

import numpy as np

from dpviz.audit.events import PredicateEvent, _as_rows
from dpviz.validation import check_array, check_int, check_positive

_TWO53 = 9007199254740992.0


def numpy_laplace_reachable(outputs, loc: float, scale: float) -> np.ndarray:
    """Whether each float in ``outputs`` can be produced by ``numpy.random.Generator.laplace(loc, scale)``.

    numpy draws ``U = k / 2^53`` (k a 53-bit integer) and returns
    ``loc - scale * log(2 - U - U)`` if ``U >= 1/2``, else ``loc + scale * log(U + U)``,
    in double precision.  Only about 2^53 doubles are reachable, and *which*
    ones depends on ``loc``: an output that the sampler centred at ``loc`` cannot
    produce proves the true answer was not ``loc`` ([Mir12]_).  For each output we
    invert the formula, and try the few integers k around the inverse, recomputing
    the sampler's arithmetic exactly (``math.log`` is the C library ``log`` numpy
    calls).  Pure Python: about 5 microseconds per output.

    References
    ----------
    .. [Mir12] I. Mironov. "On Significance of the Least Significant Bits for
       Differential Privacy." CCS 2012.
    """
    loc = float(check_array("loc", loc, ndim=0))
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
    by the number of samples ([Mir12]_): the textbook float Laplace mechanism is not
    epsilon-DP for any epsilon.  (Integer-valued mechanisms, e.g.
    ``laplace(..., sampler="discrete")``, have no such holes.)
    """
    coordinate = check_int("coordinate", coordinate, minimum=0)

    def unreachable(outputs: np.ndarray) -> np.ndarray:
        return ~numpy_laplace_reachable(_as_rows(outputs)[:, coordinate], loc, scale)

    return PredicateEvent(unreachable, f"output[{coordinate}] unreachable by float Laplace centred at {loc:g}")
