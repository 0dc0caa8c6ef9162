"""Privacy amplification by subsampling: run an eps-DP mechanism on a random sample of the rows.

Each row is kept independently with probability ``rate`` (Poisson sampling), and
an eps-DP mechanism runs on the sample.  Under add/remove neighbours the whole
is ``ln(1 + rate (e^eps - 1))``-DP [Smi09], [BBG18], and the bound is tight:
the extra row is in the sample with probability ``rate``, and only then can it
move the output by the full factor ``e^eps``.  It is at most ``2 rate eps`` (the
composition lecture's "2pε") for every rate when ``eps <= 1.2564``, where
``e^eps - 1 <= 2 eps`` (and ``ln(1 + x) <= x``), and up to larger eps at larger
rates (1.51 at rate 0.1, every eps at rate >= 0.5); for small eps it is close to
``rate * eps``.

The sampling itself is a transformation of stability 1 (one row in, at most one
row out): stability alone would charge the full eps.  The amplification is a
separate theorem, and it needs the sample to stay secret.

References
----------
- [Smi09] A. Smith. "Differential Privacy and the Secrecy of the Sample." Blog post, 2009.
- [BBG18] B. Balle, G. Barthe, M. Gaboardi. "Privacy Amplification by Subsampling: Tight
  Analyses via Couplings and Divergences." NeurIPS 2018, Theorem 9 (Poisson sampling).
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Decimal, localcontext
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import PrivacyAccountant, charge, check_accountant, float_at_least, upper_reading
from dpviz.mechanisms import binomial_heads, laplace, laplace_scale
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_array, check_elements, check_epsilon, check_probability, check_trials

__all__ = ["amplified_epsilon", "subsampled_count"]


def amplified_epsilon(epsilon: float, rate: float) -> float:
    """The epsilon of an eps-DP mechanism run on a Poisson sample: ``ln(1 + rate (e^eps - 1))``.

    Parameters
    ----------
    epsilon : float
        Epsilon of the mechanism on the sample, finite and > 0.
    rate : float
        Probability that each row is kept, in (0, 1].

    Returns
    -------
    float
        The amplified epsilon, in (0, epsilon]; equal to epsilon when ``rate = 1``.  Rounded up (never down):
        the smallest double at or above the exact value, so that charging it never under-counts.

    Raises
    ------
    ValueError
        If epsilon is not finite and > 0, if rate is outside (0, 1], or if
        ``e^epsilon`` overflows a float.
    TypeError
        If an argument is not a real number.

    References
    ----------
    Smith (2009); Balle, Barthe & Gaboardi, NeurIPS 2018, Theorem 9.

    Examples
    --------
    >>> round(amplified_epsilon(1.0, 0.1), 4)
    0.1586
    >>> amplified_epsilon(0.5, 1.0)
    0.5
    """
    epsilon = check_epsilon(epsilon)
    rate = check_probability("rate", rate)
    if epsilon > 700:
        raise ValueError(f"epsilon={epsilon!r}: e^epsilon overflows a float; use epsilon <= 700")
    if rate == 1.0:
        return epsilon
    return float_at_least(_amplified_upper(epsilon, rate))


def _as_decimal(x: Fraction) -> Decimal:
    """``x`` as a Decimal at the current context's precision."""
    return Decimal(x.numerator) / Decimal(x.denominator)


def _amplified_upper(epsilon: float, rate: float) -> Fraction:
    """An upper bound on ``ln(1 + rate (e^epsilon - 1))``, exact to 17 significant digits, rounded up.

    Computed in decimal arithmetic with 60 digits beyond the cancellation of ``e^eps - 1``, from the larger
    readings of epsilon and rate (the value grows with both; see :func:`dpviz.accountant.upper_reading`), then
    rounded up: what an accountant is charged, so that it is never below the amplified epsilon.
    """
    with localcontext() as ctx:
        # e^eps - 1 and ln(1 + x) cancel about -log10(rate * eps) digits: keep 60 beyond them
        ctx.prec = 60 + max(0, -math.floor(math.log10(epsilon) + math.log10(rate)))
        e, q = (_as_decimal(upper_reading(name, x)) for name, x in (("epsilon", epsilon), ("rate", rate)))
        value = (1 + q * (e.exp() - 1)).ln()   # exp and ln are correctly rounded at ctx.prec digits
        value += value.scaleb(-50)   # at least 60 digits are right after the cancellations: a margin of 1e-50
        rounded = value.quantize(Decimal(1).scaleb(value.adjusted() - 16), rounding=ROUND_CEILING)
    return Fraction(rounded)


def subsampled_count(flags: ArrayLike, epsilon: float, rate: float, *, rng: RngLike = None,
                     size: int | None = None, accountant: PrivacyAccountant | None = None) -> np.ndarray:
    """Count the flagged rows of a Poisson sample, with ``Lap(1/epsilon)`` noise.

    Each row is kept with probability ``rate``; the count of kept rows whose flag
    is 1 gets Laplace noise of scale ``1/epsilon`` (sensitivity 1).  On the sample
    this is epsilon-DP; on the data it is ``amplified_epsilon(epsilon, rate)``-DP,
    which is what an ``accountant`` is charged.

    Parameters
    ----------
    flags : array_like of 0/1
        One entry per row: 1 if the row satisfies the counted predicate.
    epsilon : float
        Epsilon of the Laplace count on the sample, finite and > 0.
    rate : float
        Probability that each row is kept, in (0, 1].
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (the sample and the noise).
    size : int, optional
        Number of independent releases (a fresh sample each); the result then has shape ``(size,)``.
    accountant : PrivacyAccountant, optional
        Charged ``size`` (or 1) times the amplified epsilon, rounded up at 17 significant digits, before
        anything is drawn (and only once every input, the noise scale included, has been checked).

    Returns
    -------
    numpy.ndarray
        The noisy count (shape ``()``) or ``size`` of them.

    Raises
    ------
    ValueError
        If flags is not a 1-D array of 0s and 1s, epsilon or rate is out of
        range, size < 1, or the accountant refuses the charge.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    Smith (2009); Balle, Barthe & Gaboardi, NeurIPS 2018, Theorem 9.

    Examples
    --------
    >>> out = subsampled_count([1, 0, 1, 1], 1.0, 0.5, rng=0, size=3)
    >>> out.shape
    (3,)
    """
    x = check_array("flags", flags, ndim=1)
    if x.size and not np.all((x == 0) | (x == 1)):
        bad = x[(x != 0) & (x != 1)][0]
        raise ValueError(f"flags must hold only 0 and 1 (one flag per row); got {float(bad)!r}")
    epsilon = check_epsilon(epsilon)
    rate = check_probability("rate", rate)
    k = check_trials(size)
    check_accountant(accountant)
    check_elements(k or 1, "subsampled counts", size=size)
    laplace_scale(1.0, epsilon)   # a scale that overflows (epsilon = 1e-310) is refused before the charge
    amplified_epsilon(epsilon, rate)   # so are the amplification's own limits
    eps_data = epsilon if rate == 1.0 else _amplified_upper(epsilon, rate)
    charge(accountant, eps_data, size=k, label=f"count on a {rate:g}-sample (eps {epsilon:g} on the sample)")
    gen = as_generator(rng)
    ones = int(x.sum())
    kept = binomial_heads(ones, rate, k, rng=gen)              # flagged rows that survive the sampling
    return np.asarray(laplace(np.asarray(kept, dtype=float), 1.0, epsilon, rng=gen))
