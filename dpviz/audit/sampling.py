"""Drawing outputs of a mechanism: one checked batch, or an event's hit count over many chunks.

Every dpviz mechanism is vectorised: ``mechanism(data, rng=generator, size=k)``
returns k independent outputs stacked on the first axis.  The auditor only
ever calls mechanisms through :func:`sample_outputs`, which checks that contract.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dpviz.audit.events import Event, _indicator
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_elements, check_int

#: A mechanism as the auditor calls it: ``mechanism(data, rng=generator, size=k)`` -> array with k rows.
Mechanism = Callable[..., Any]


def sample_outputs(mechanism: Mechanism, data: Any, size: int, rng: RngLike = None) -> np.ndarray:
    """Call ``mechanism(data, rng=generator, size=size)`` and check it returned ``size`` samples (rows).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng=Generator, size=k)`` returning k outputs stacked on the first axis.
    data : object
        The input the mechanism runs on.
    size : int
        Number of samples, >= 1.
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray
        The outputs, ``size`` rows.

    Raises
    ------
    ValueError
        If ``size`` < 1 or above :data:`dpviz.validation.MAX_ELEMENTS`, the mechanism refuses
        ``data`` with a ValueError (re-raised naming ``data``), or it does not return ``size``
        rows of at least one coordinate, or returns NaN or inf.
    TypeError
        If ``size`` is not an integer, the mechanism refuses ``data`` with a TypeError, or returns
        something other than numbers.

    Examples
    --------
    >>> from dpviz.mechanisms import laplace
    >>> mech = lambda x, rng, size: laplace(x, 1.0, 1.0, rng=rng, size=size)
    >>> sample_outputs(mech, [3.0, 4.0], 5, rng=0).shape
    (5, 2)
    """
    size = check_int("size", size, minimum=1)
    check_elements(float(size), "samples", size=size)
    return _sample(mechanism, data, size, as_generator(rng), "data")


def _sample(mechanism: Mechanism, data: Any, size: int, gen: np.random.Generator, name: str) -> np.ndarray:
    """_``size`` outputs of ``mechanism(data)``; a refusal of ``data`` by the mechanism names ``name``."""
    try:
        out = np.asarray(mechanism(data, rng=gen, size=size))
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}={_short(data)} was refused by mechanism({name}, rng=..., size=...): {exc}") from exc
    if out.ndim == 0 or out.shape[0] != size:
        raise ValueError(f"mechanism must return `size` samples stacked on the first axis: asked for {size}, "
                         f"got shape {out.shape}")
    if out.dtype.kind not in "biuf":
        raise TypeError(f"mechanism must return numbers, got an array of dtype {out.dtype} for {name}={_short(data)}")
    if out.dtype.kind == "f" and not np.all(np.isfinite(out)):
        raise ValueError(f"mechanism returned NaN or inf for {name}={_short(data)}: an audit counts events on "
                         "finite outputs only (a NaN is in no event, so it would bias both probabilities)")
    if out[0].size == 0:
        raise ValueError(f"mechanism({name}) returned outputs with no coordinates (shape {out.shape}) for "
                         f"{name}={_short(data)}: there is nothing to audit")
    return out


def _short(value: Any) -> str:
    """A repr of at most 60 characters, for error messages."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _count(mechanism: Mechanism, data: Any, event: Event, n: int, gen: np.random.Generator,
           name: str = "data") -> int:
    """Hits of ``event`` in n fresh samples, drawn in chunks of at most ~5e6 numbers."""
    first = min(n, 10_000)
    out = _sample(mechanism, data, first, gen, name)
    hits = int(_indicator(event, out).sum())
    width = max(1, out[0].size)
    chunk = max(1_000, 5_000_000 // width)
    done = first
    while done < n:
        k = min(chunk, n - done)
        hits += int(_indicator(event, _sample(mechanism, data, k, gen, name)).sum())
        done += k
    return hits
