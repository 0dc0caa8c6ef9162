"""Exact discrete samplers against their pmf: the lecture's check that integer noise has the law it claims."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from dpviz.rng import RngLike
from dpviz.validation import blame, check_choice, check_elements, check_int, check_positive


@dataclass(frozen=True)
class SamplerFit:
    """Observed counts of a discrete sampler next to its exact pmf, and a chi-square goodness-of-fit p-value.

    Parameters
    ----------
    label : str
        The sampler and its parameter, for the figure title.
    k : numpy.ndarray
        Integer values shown (those with expected count >= 10).
    observed : numpy.ndarray
        Counts at ``k``.
    pmf : numpy.ndarray
        Exact probabilities at ``k``.
    samples : int
        Number of draws.
    p_value : float
        Pearson chi-square p-value over ``k`` plus the two pooled tails.
    """

    label: str
    k: np.ndarray
    observed: np.ndarray
    pmf: np.ndarray
    samples: int
    p_value: float


#: Largest ``scale`` :func:`sampler_fit` accepts: its grid holds about 2 scale ln(samples) integers.
MAX_SCALE = 1e6


def sampler_fit(kind: str, scale: float, samples: int = 20_000, *, method: Literal["exact", "fast"] = "exact",
                rng: RngLike = None) -> SamplerFit:
    """Test a discrete Laplace or discrete Gaussian sampler against its exact pmf (Pearson's chi-square).

    Draws ``samples`` discrete Laplace (``kind="laplace"``, t = scale) or discrete
    Gaussian (sigma = scale) values.  Cells: every integer whose expected count
    is at least 10, plus the two tails pooled; degrees of freedom = cells - 1
    (:func:`scipy.stats.chisquare`).

    Parameters
    ----------
    kind : {"laplace", "gaussian"}
        Which sampler.
    scale : float
        The discrete Laplace parameter t, or the discrete Gaussian's sigma, in (0, :data:`MAX_SCALE`].
    samples : int
        Number of draws, >= 10.
    method : {"exact", "fast"}
        The sampler: exact rational arithmetic or the vectorised one.
    rng : None, int, SeedSequence or Generator
        Source of randomness.

    Returns
    -------
    SamplerFit
        Observed counts, the exact pmf and the p-value.

    Raises
    ------
    ValueError
        If ``kind`` or ``method`` is unknown, ``samples`` < 10 or above
        :data:`dpviz.validation.MAX_ELEMENTS`, ``scale`` is not in (0, :data:`MAX_SCALE`] or so
        small that every expected draw falls on one integer (nothing to test).
    TypeError
        If ``samples`` is not an integer.

    Examples
    --------
    >>> fit = sampler_fit("laplace", 2.0, samples=2_000, rng=0)
    >>> fit.samples, bool(0.0 <= fit.p_value <= 1.0), int(fit.observed.sum()) <= 2_000
    (2000, True, True)
    """
    from scipy import stats

    from dpviz.mechanisms import discrete_gaussian, discrete_gaussian_pmf, discrete_laplace, discrete_laplace_pmf

    check_choice("kind", kind, ("laplace", "gaussian"))
    samples = check_int("samples", samples, minimum=10)
    check_elements(float(samples), "sampler draws", samples=samples)
    check_choice("method", method, ("exact", "fast"))
    scale = check_positive("scale", scale)
    if scale > MAX_SCALE:
        raise ValueError(f"scale must be at most {MAX_SCALE:g} (the chi-square grid spans about "
                         f"2 scale ln(samples) integers), got {scale!r}")
    draw, pmf = ((discrete_laplace, discrete_laplace_pmf) if kind == "laplace"
                 else (discrete_gaussian, discrete_gaussian_pmf))
    with blame(samples=samples):  # the sampler checks them as its size
        x = np.asarray(draw(scale, size=samples, rng=rng, method=method))
    grid = np.arange(int(x.min()) - 200, int(x.max()) + 201)
    p = pmf(grid, scale)
    keep = np.flatnonzero(p * samples >= 10)
    a, b = int(grid[keep[0]]), int(grid[keep[-1]])
    cells = np.arange(a, b + 1)
    obs = np.bincount(x[(x >= a) & (x <= b)] - a, minlength=cells.size)
    observed = np.concatenate([[np.sum(x < a)], obs, [np.sum(x > b)]])
    expected = np.concatenate([[p[grid < a].sum()], pmf(cells, scale), [p[grid > b].sum()]])
    expected = expected * samples / expected.sum()
    if expected[0] == 0 and observed[0] == 0:
        observed, expected = observed[1:], expected[1:]
    if expected[-1] == 0 and observed[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    if observed.size < 2:
        raise ValueError(f"scale={scale!r} puts all {samples} draws' expected mass on one integer: there is no "
                         f"distribution to test; use a larger scale or more samples")
    p_value = float(stats.chisquare(observed, expected).pvalue)
    name = "discrete Laplace DLap" if kind == "laplace" else "discrete Gaussian N_Z, sigma ="
    return SamplerFit(f"{name} {scale:g} ({method} sampler)", cells, obs, pmf(cells, scale), samples, p_value)
