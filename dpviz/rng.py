"""One place that turns a user's ``rng`` argument into a ``numpy.random.Generator``.

dpviz never touches numpy's global random state.  Every function that draws
noise takes ``rng``: ``None`` (fresh OS entropy), an integer seed, a
``numpy.random.SeedSequence`` or an existing ``numpy.random.Generator`` (used
as is, so successive calls continue its stream).
"""

from __future__ import annotations

import numbers
from typing import TypeAlias

import numpy as np

#: What every ``rng`` argument of dpviz accepts (see :func:`as_generator`).
RngLike: TypeAlias = None | int | np.integer | np.random.SeedSequence | np.random.Generator

__all__ = ["RngLike", "as_generator"]


def as_generator(rng: RngLike = None) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``rng``.

    Parameters
    ----------
    rng : None, int, SeedSequence or Generator
        ``None`` seeds from the OS; an int >= 0 or a SeedSequence seeds a new
        PCG64 generator; a Generator is returned unchanged.

    Returns
    -------
    numpy.random.Generator
        The generator to draw from (``rng`` itself if it already is one, so its
        stream continues).

    Raises
    ------
    TypeError
        If ``rng`` is of another type (e.g. the legacy ``RandomState``).
    ValueError
        If ``rng`` is a negative integer.

    Examples
    --------
    >>> g = as_generator(0)
    >>> float(round(g.random(), 6))
    0.636962
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise ValueError(f"rng must be a non-negative integer seed, got {int(rng)}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        "rng must be None, a non-negative int seed, a numpy SeedSequence or a numpy.random.Generator; "
        f"got {type(rng).__name__}"
    )
