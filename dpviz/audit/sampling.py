"""Drawing outputs of a mechanism: one checked batch, or an event's hit count over many chunks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dpviz.audit.events import Event, _indicator
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_int

#: A mechanism as the auditor calls it: ``mechanism(data, rng=generator, size=k)`` -> array with k rows.
Mechanism = Callable[..., Any]

def sample_outputs(mechanism: Mechanism, data, size: int, rng: RngLike = None) -> np.ndarray:
    """Call ``mechanism(data, rng=generator, size=size)`` and check it returned ``size`` samples (rows)."""
    size = check_int("samples", size, minimum=1)
    out = np.asarray(mechanism(data, rng=as_generator(rng), size=size))
    if out.ndim == 0 or out.shape[0] != size:
        raise ValueError(f"mechanism must return `size` samples stacked on the first axis: asked for {size}, "
                         f"got shape {out.shape}")
    return out


def _count(mechanism: Mechanism, data, event: Event, n: int, gen: np.random.Generator) -> int:
    """Hits of ``event`` in n fresh samples, drawn in chunks of at most ~5e6 numbers."""
    first = min(n, 10_000)
    out = sample_outputs(mechanism, data, first, gen)
    hits = int(_indicator(event, out).sum())
    width = max(1, out[0].size)
    chunk = max(1_000, 5_000_000 // width)
    done = first
    while done < n:
        k = min(chunk, n - done)
        hits += int(_indicator(event, sample_outputs(mechanism, data, k, gen)).sum())
        done += k
    return hits
