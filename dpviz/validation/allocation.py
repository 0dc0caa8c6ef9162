"""The cap on how much memory one call may ask for, checked before anything is allocated.

A student who types ``size=10**9`` or ``n=10**12`` should get a clear refusal at once, not a MemoryError
after minutes of swapping (or a kernel killed by the operating system).  Every function whose work grows
with its arguments checks the number of array elements it is about to allocate against :data:`MAX_ELEMENTS`.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

__all__ = ["MAX_ELEMENTS", "MAX_SIMULATED_SCALE", "check_elements", "check_shape", "check_simulated_scale",
           "check_work"]

#: Largest number of array elements one dpviz call allocates: 2**27 float64 values, 1 GiB.  A Binder session has
#: 1-2 GiB in all, and a lecture's largest Monte Carlo run (200 trials of a 65,536-leaf tree) needs about 2**25.
MAX_ELEMENTS = 2**27


def check_elements(count: float, what: str, **params: Any) -> int:
    """Refuse a request for more than :data:`MAX_ELEMENTS` array elements, naming the parameters that asked.

    Parameters
    ----------
    count : float
        The number of elements the call would allocate (a float is accepted so that a product of huge
        integers can be passed without overflowing first).
    what : str
        What would be allocated, e.g. ``"size x n noisy counts"``.
    **params
        The parameters that determine ``count`` and their values, named in the message.

    Returns
    -------
    int
        ``count`` as an int, when it is within the cap.

    Raises
    ------
    ValueError
        If ``count`` exceeds :data:`MAX_ELEMENTS` (or is not finite); the message names every parameter in
        ``params`` with its value and the cap.

    Examples
    --------
    >>> check_elements(200 * 4096, "size x n noisy counts", size=200, n=4096)
    819200
    >>> try:
    ...     check_elements(10**9 * 4096, "size x n noisy counts", size=10**9, n=4096)
    ... except ValueError as err:
    ...     print(str(err)[:60])
    size=1000000000, n=4096 would allocate 4.1e+12 size x n nois
    """
    c = float(count)
    if not math.isfinite(c) or c > MAX_ELEMENTS:
        named = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise ValueError(
            f"{named} would allocate {c:.2g} {what} ({8 * c / 1e12:.3g} TB); the cap is {MAX_ELEMENTS} elements "
            f"({8 * MAX_ELEMENTS / 1e9:.3g} GB): lower {' or '.join(params)}")
    return int(c)


def check_shape(shape: Any, what: str, name: str = "shape") -> tuple[int, ...]:
    """Return an array shape as a tuple of ints, refusing other types, negative sizes and too many elements.

    Parameters
    ----------
    shape : int or tuple of int
        The shape asked for: one int (a 1-D array) or a tuple (or list) of ints, each >= 0.
    what : str
        What the array would hold, e.g. ``"Laplace draws"``, named in the message of a refusal.
    name : str, default "shape"
        The parameter's name, used in the error messages.

    Returns
    -------
    tuple of int
        The shape, its sizes as Python ints.

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple (or list) of ints (a bool or a float is refused).
    ValueError
        If a size is negative, or the shape holds more than :data:`MAX_ELEMENTS` elements.

    Examples
    --------
    >>> check_shape(3, "draws"), check_shape((2, 0), "draws")
    ((3,), (2, 0))
    """
    # plain ints first: samplers call this once per draw, and the general checks below cost microseconds
    if type(shape) is int:
        out: tuple[int, ...] = (shape,)
    elif type(shape) is tuple and all(type(d) is int for d in shape):
        out = shape
    else:
        dims = (shape,) if isinstance(shape, numbers.Integral) else shape
        if not isinstance(dims, tuple | list) or not all(
                isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in dims):
            raise TypeError(f"{name} must be an int or a tuple of ints, got {shape!r}")
        out = tuple(int(d) for d in dims)
    count = 1.0
    for d in out:
        if d < 0:
            raise ValueError(f"{name} must have non-negative dimensions, got {out}")
        count *= d
    if count > MAX_ELEMENTS:
        check_elements(count, what, **{name: out})  # raises, naming the shape
    return out


#: Largest noise scale a simulation may draw with: draws reach a few dozen scales, and they must stay below
#: :data:`dpviz.validation.MAX_MAGNITUDE` (1e100) for their squared errors and sums to be finite.
MAX_SIMULATED_SCALE = 1e98


def check_simulated_scale(scale: float, what: str, **params: Any) -> float:
    """Refuse, naming the parameters that set it, a noise scale whose simulated draws would overflow summaries.

    Parameters
    ----------
    scale : float
        The noise scale the simulation would use (e.g. from :func:`dpviz.mechanisms.laplace_scale`).
    what : str
        Which noise, e.g. ``"the sequential algorithm's Laplace noise"``.
    **params
        The parameters that set ``scale`` and their values, named in the message.

    Returns
    -------
    float
        ``scale``, when it is at most :data:`MAX_SIMULATED_SCALE`.

    Raises
    ------
    ValueError
        If ``scale`` exceeds :data:`MAX_SIMULATED_SCALE`.

    Examples
    --------
    >>> check_simulated_scale(4.0, "Laplace noise", epsilon=0.25)
    4.0
    """
    if not scale <= MAX_SIMULATED_SCALE:
        named = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise ValueError(f"{named} give {what} a scale of {scale:.3g}, above {MAX_SIMULATED_SCALE:.0e}: simulated "
                         f"draws would exceed 1e100 and their squared errors overflow; raise {' or '.join(params)}")
    return scale


def check_work(count: float, limit: float, what: str, **params: Any) -> int:
    """Refuse a call whose work (draws, runs, cells times candidates ...) exceeds ``limit``, naming the parameters.

    :func:`check_elements` bounds memory; a call can stay within it and still run for minutes (``trials=10**7``
    of a simulation with a Python-level step per trial).  Each caller sets ``limit`` from its measured speed so
    that an accepted call answers within seconds on a student's laptop.

    Parameters
    ----------
    count : float
        The work the call would do, in units of ``what``.
    limit : float
        The most one call may do.
    what : str
        The unit of work, e.g. ``"simulated releases"``.
    **params
        The parameters that set ``count`` and their values, named in the message.

    Returns
    -------
    int
        ``count`` as an int, when it is within ``limit``.

    Raises
    ------
    ValueError
        If ``count`` exceeds ``limit`` (or is not finite).

    Examples
    --------
    >>> check_work(100 * 15, 2**19, "isotonic fits", trials=100)
    1500
    """
    c = float(count)
    if not (math.isfinite(c) and c <= limit):
        named = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise ValueError(f"{named} would take {c:.3g} {what}, more than the {limit:.3g} one call may take (it "
                         f"should answer within seconds): lower {' or '.join(params)}")
    return int(c)
