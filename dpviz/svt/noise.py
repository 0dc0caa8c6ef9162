"""Laplace tail probabilities of noise with scale ``b``, stable far out in both tails (private helpers).

The exact output probabilities of SVT and GPTT (:mod:`dpviz.svt.exact`) and the
GPTT oracle's binomial shortcut need ``log P(Lap(b) < x)`` and
``log P(Lap(b) >= x)`` at values of ``x`` many scales from 0, where the plain
cdf rounds to 0 or 1.  The scale ``b`` itself always comes from
:func:`dpviz.mechanisms.laplace_scale` (through the ``*_noise_scales`` helpers).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt


def _laplace_logcdf(x: npt.ArrayLike, b: float) -> np.ndarray:
    """log P(Lap(b) < x), stable in both tails."""
    x = np.asarray(x, dtype=float)
    return np.where(x < 0, math.log(0.5) + np.minimum(x, 0.0) / b, np.log1p(-0.5 * np.exp(-np.abs(x) / b)))


def _laplace_logsf(x: npt.ArrayLike, b: float) -> np.ndarray:
    """log P(Lap(b) >= x)."""
    return _laplace_logcdf(-np.asarray(x, dtype=float), b)


def _laplace_cdf(x: npt.ArrayLike, b: float) -> np.ndarray:
    """P(Lap(b) < x)."""
    return np.exp(_laplace_logcdf(x, b))


def _laplace_isf(p: float, b: float) -> float:
    """The x with ``P(Lap(b) >= x) = p``, for p in (0, 1)."""
    return -b * math.log(2 * p) if p <= 0.5 else b * math.log(2 * (1 - p))
