"""The cap on how much memory one call may ask for, checked before anything is allocated.

A student who types ``size=10**9`` or ``n=10**12`` should get a clear refusal at once, not a MemoryError
after minutes of swapping (or a kernel killed by the operating system).  Every function whose work grows
with its arguments checks the number of array elements it is about to allocate against :data:`MAX_ELEMENTS`.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["MAX_ELEMENTS", "check_elements"]

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
