"""Exact noise on an integer grid: the discrete Laplace and discrete Gaussian distributions.

Textbook Laplace noise is drawn in floating point, and the set of doubles it
can produce depends on the true answer: Mironov (2012) showed that seeing the
noisy output's low-order bits can reveal the input, so the float
implementation is not differentially private at all.  Canonne, Kamath and
Steinke (2020) avoid floats altogether: on integer-valued queries add integer
noise,

* discrete Laplace ``DLap(t)``:  ``P[Y = k] = (1 - e^{-1/t}) / (1 + e^{-1/t}) * e^{-|k|/t}``, k in Z,
* discrete Gaussian ``N_Z(0, s^2)``: ``P[Y = k] = e^{-k^2 / (2 s^2)} / sum_{j in Z} e^{-j^2 / (2 s^2)}``,

and sample them exactly.  Two samplers are offered for each (``method=``):

``"exact"``
    The algorithms of [CKS20]_ in integer and :class:`fractions.Fraction`
    arithmetic: every coin is a Bernoulli with a *rational* success
    probability ``n/d``, flipped by drawing a uniform integer in ``[0, d)``
    from raw 64-bit words of the numpy bit generator (rejection sampling, so
    exactly uniform).  The output distribution is exactly the pmf above, with
    the parameters read as exact rationals.  Pure Python: about 10-50
    microseconds per draw, meant for moderate sizes and for checking.
``"fast"``
    Vectorised numpy.  Discrete Laplace: ``Y = G1 - G2`` with ``G1, G2`` iid
    geometric with success probability ``1 - e^{-1/t}``, an exact identity in
    distribution (both have pmf proportional to ``e^{-|k|/t}``).  Discrete
    Gaussian: the rejection sampler of [CKS20]_ (Algorithm 3) with the
    acceptance coin ``U < e^{-(|Y| - s^2/t)^2 / (2 s^2)}`` flipped with a
    double ``U``.  The identities are exact; numpy's geometric inversion and
    the acceptance test are computed in double precision, so each
    probability is off by a relative error of order 1e-16 -- a privacy loss
    of order 1e-16, not the unbounded loss of Mironov's attack, because the
    output is an integer whose support does not depend on the input.

References
----------
.. [CKS20] C. L. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for
   Differential Privacy." NeurIPS 2020 (arXiv:2004.00010): Algorithms 1-3,
   Theorem 7 (exact (eps, delta) of the discrete Gaussian), Proposition 5 and
   Corollary 13 (concentrated DP and its conversion to (eps, delta)).
.. [Mir12] I. Mironov. "On Significance of the Least Significant Bits for
   Differential Privacy." CCS 2012.
.. [GRS09] A. Ghosh, T. Roughgarden, M. Sundararajan. "Universally
   Utility-Maximizing Privacy Mechanisms." STOC 2009 (the geometric mechanism).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

import numpy as np
from scipy import optimize

from dpviz.accountant import exact
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_nonnegative,
    check_positive,
    check_trials,
)

__all__ = [
    "discrete_laplace",
    "discrete_gaussian",
    "discrete_laplace_pmf",
    "discrete_gaussian_pmf",
    "discrete_gaussian_delta",
    "discrete_gaussian_sigma",
    "discrete_laplace_mechanism",
    "discrete_gaussian_mechanism",
]

Method = Literal["exact", "fast"]
_METHODS = ("exact", "fast")
#: Largest grid-unit sigma for which the discrete-Gaussian sums are taken term by term.
_MAX_SIGMA = 1e5


# --------------------------------------------------------------------------- exact coins
class _Coins:
    """Exact random integers and rational Bernoulli coins from a numpy Generator's raw 64-bit output."""

    def __init__(self, gen: np.random.Generator) -> None:
        self._bitgen = gen.bit_generator
        self._buf = 0
        self._nbits = 0

    def bits(self, k: int) -> int:
        """``k`` uniform random bits as a Python int."""
        while self._nbits < k:
            self._buf |= int(self._bitgen.random_raw()) << self._nbits
            self._nbits += 64
        out = self._buf & ((1 << k) - 1)
        self._buf >>= k
        self._nbits -= k
        return out

    def below(self, d: int) -> int:
        """A uniform integer in ``[0, d)`` by rejection sampling (exact)."""
        k = (d - 1).bit_length()
        while True:
            u = self.bits(k)
            if u < d:
                return u

    def bernoulli(self, p: Fraction) -> bool:
        """A coin that is 1 with probability exactly ``p`` (rational in [0, 1])."""
        if p.numerator <= 0:
            return False
        if p.numerator >= p.denominator:
            return True
        return self.below(p.denominator) < p.numerator

    def bernoulli_exp(self, gamma: Fraction) -> bool:
        """A coin that is 1 with probability exactly ``exp(-gamma)``, gamma >= 0 rational ([CKS20]_, Algorithm 1).

        For gamma in [0, 1]: draw ``A_k ~ Bernoulli(gamma / k)`` for k = 1, 2, ... until the
        first 0 at step K; ``P[K odd] = sum_j (-gamma)^j / j! = e^{-gamma}``.  For gamma > 1
        multiply ``floor(gamma)`` coins of ``e^{-1}`` and one of ``e^{-(gamma - floor(gamma))}``.
        """
        whole = gamma.numerator // gamma.denominator
        one = Fraction(1)
        for _ in range(whole):
            if not self._bernoulli_exp_unit(one):
                return False
        return self._bernoulli_exp_unit(gamma - whole)

    def _bernoulli_exp_unit(self, gamma: Fraction) -> bool:
        k = 1
        while self.bernoulli(gamma / k):
            k += 1
        return k % 2 == 1


def _exact_dlap_one(coins: _Coins, s: int, t: int) -> int:
    """One draw of ``DLap(t/s)`` for positive integers s, t ([CKS20]_, Algorithm 2).

    ``U`` uniform on {0..t-1} kept with probability e^{-U/t} and ``V`` geometric with
    ratio e^{-1} give ``X = U + tV`` geometric with ratio e^{-1/t}; ``Y = floor(X/s)`` is
    geometric with ratio e^{-s/t}; a random sign (rejecting "-0") makes it two-sided.
    """
    while True:
        u = coins.below(t)
        if not coins.bernoulli_exp(Fraction(u, t)):
            continue
        v = 0
        while coins.bernoulli_exp(Fraction(1)):
            v += 1
        y = (u + t * v) // s
        negative = coins.bits(1) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def _exact_dgauss_one(coins: _Coins, sigma2: Fraction) -> int:
    """One draw of ``N_Z(0, sigma2)`` for rational sigma2 > 0 ([CKS20]_, Algorithm 3).

    Propose ``Y ~ DLap(t)`` with ``t = floor(sigma) + 1`` and accept with probability
    ``exp(-(|Y| - sigma2/t)^2 / (2 sigma2))``.
    """
    t = math.isqrt(sigma2.numerator // sigma2.denominator) + 1
    shift = sigma2 / t
    while True:
        y = _exact_dlap_one(coins, 1, t)
        gamma = (abs(y) - shift) ** 2 / (2 * sigma2)
        if coins.bernoulli_exp(gamma):
            return y


# --------------------------------------------------------------------------- samplers
def _shape(size) -> tuple[int, ...]:
    size = check_trials(size)
    return () if size is None else (size,)


def _as_output(values: np.ndarray, size) -> np.ndarray | int:
    return values if size is not None else int(values.reshape(-1)[0])


def discrete_laplace(scale: float, *, size: int | None = None, rng: RngLike = None,
                     method: Method = "fast") -> np.ndarray | int:
    """Draw from the discrete Laplace distribution ``DLap(t)`` on the integers, ``t = scale``.

    ``P[Y = k] = (1 - e^{-1/t}) / (1 + e^{-1/t}) e^{-|k|/t}`` ([CKS20]_, Definition 2;
    the two-sided geometric of [GRS09]_).  Adding ``DLap(Delta/epsilon)`` to an
    integer query of sensitivity Delta is epsilon-DP.

    Parameters
    ----------
    scale : float
        t > 0.  With ``method="exact"`` it is read as an exact rational (a float
        as its shortest decimal, e.g. 0.1 = 1/10).
    size : int, optional
        Number of iid draws (array of shape ``(size,)``); ``None`` returns one int.
    rng : None, int, SeedSequence or Generator
        Source of randomness.
    method : {"fast", "exact"}
        "fast": vectorised ``G1 - G2`` with numpy geometrics (exact identity,
        double-precision inversion); "exact": [CKS20]_ Algorithm 2 in rational
        arithmetic (see the module docstring).

    Returns
    -------
    numpy.ndarray of int64, or int

    Examples
    --------
    >>> discrete_laplace(2.0, size=5, rng=0).dtype
    dtype('int64')
    """
    t = check_positive("scale", scale)
    check_choice("method", method, _METHODS)
    shape = _shape(size)
    n = int(np.prod(shape)) if shape else 1
    gen = as_generator(rng)
    if method == "exact":
        tq = exact("scale", scale)
        coins = _Coins(gen)
        out = np.array([_exact_dlap_one(coins, tq.denominator, tq.numerator) for _ in range(n)], dtype=np.int64)
    else:
        p = -math.expm1(-1.0 / t)  # 1 - e^{-1/t}, accurately for large t
        out = gen.geometric(p, size=n).astype(np.int64) - gen.geometric(p, size=n).astype(np.int64)
    return _as_output(out.reshape(shape or (1,)), size)


def discrete_gaussian(sigma: float, *, size: int | None = None, rng: RngLike = None,
                      method: Method = "fast") -> np.ndarray | int:
    """Draw from the discrete Gaussian ``N_Z(0, sigma^2)`` on the integers.

    ``P[Y = k] = e^{-k^2/(2 sigma^2)} / sum_j e^{-j^2/(2 sigma^2)}`` ([CKS20]_,
    Definition 1), sampled by rejection from ``DLap(floor(sigma) + 1)``
    ([CKS20]_, Algorithm 3; expected fewer than two proposals for sigma >= 1).

    Parameters
    ----------
    sigma : float
        The scale parameter (> 0; the variance is slightly below ``sigma^2``).
        ``method="exact"`` uses ``sigma^2`` as the exact square of the rational
        read from ``sigma``.
    size, rng, method
        As in :func:`discrete_laplace`.

    Returns
    -------
    numpy.ndarray of int64, or int

    Examples
    --------
    >>> discrete_gaussian(3.0, size=4, rng=0).shape
    (4,)
    """
    s = check_positive("sigma", sigma)
    check_choice("method", method, _METHODS)
    shape = _shape(size)
    n = int(np.prod(shape)) if shape else 1
    gen = as_generator(rng)
    if method == "exact":
        sq = exact("sigma", sigma)
        coins = _Coins(gen)
        out = np.array([_exact_dgauss_one(coins, sq * sq) for _ in range(n)], dtype=np.int64)
        return _as_output(out.reshape(shape or (1,)), size)
    t = math.floor(s) + 1
    p = -math.expm1(-1.0 / t)
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        m = todo.size
        y = gen.geometric(p, size=m).astype(np.int64) - gen.geometric(p, size=m).astype(np.int64)
        accept = gen.random(m) < np.exp(-((np.abs(y) - s * s / t) ** 2) / (2.0 * s * s))
        out[todo[accept]] = y[accept]
        todo = todo[~accept]
    return _as_output(out.reshape(shape or (1,)), size)


# --------------------------------------------------------------------------- pmfs and privacy
def discrete_laplace_pmf(k, scale: float) -> np.ndarray:
    """``P[Y = k]`` for ``Y ~ DLap(t)``: ``tanh(1/(2t)) e^{-|k|/t}`` (= (1 - e^{-1/t})/(1 + e^{-1/t}) e^{-|k|/t}).

    ``k`` must hold integers ([CKS20]_, Definition 2).
    """
    t = check_positive("scale", scale)
    k = check_array("k", k)
    if np.any(k != np.round(k)):
        raise ValueError("k must hold integers (the discrete Laplace lives on Z)")
    return math.tanh(0.5 / t) * np.exp(-np.abs(k) / t)


def _gauss_normaliser(s: float) -> float:
    """``sum_{j in Z} e^{-j^2/(2 s^2)}`` (terms beyond 40 s are below e^{-800}, i.e. 0 in doubles)."""
    if s > _MAX_SIGMA:
        raise ValueError(f"sigma must be <= {_MAX_SIGMA:g} grid units for the discrete Gaussian sums, got {s}")
    j = np.arange(1, math.ceil(40 * s) + 2, dtype=float)
    return 1.0 + 2.0 * float(np.sum(np.exp(-(j * j) / (2 * s * s))))


def discrete_gaussian_pmf(k, sigma: float) -> np.ndarray:
    """``P[Y = k]`` for ``Y ~ N_Z(0, sigma^2)``: ``e^{-k^2/(2 sigma^2)} / sum_j e^{-j^2/(2 sigma^2)}`` ([CKS20]_, Def. 1).

    The normaliser is summed term by term out to 40 sigma (the rest is below 1e-340).
    """
    s = check_positive("sigma", sigma)
    k = check_array("k", k)
    if np.any(k != np.round(k)):
        raise ValueError("k must hold integers (the discrete Gaussian lives on Z)")
    return np.exp(-(k * k) / (2 * s * s)) / _gauss_normaliser(s)


def _gauss_tail(a: float, s: float, norm: float) -> float:
    """``P[Y > a]`` for ``Y ~ N_Z(0, s^2)`` (a sum over integers k > a, out to 40 s beyond)."""
    start = math.floor(a) + 1
    if start <= 0:  # by symmetry P[Y <= a] = P[Y <= start - 1] = P[Y >= 1 - start] = P[Y > -start]
        return 1.0 - _gauss_tail(-start, s, norm)
    k = np.arange(start, start + math.ceil(40 * s) + 2, dtype=float)
    return float(np.sum(np.exp(-(k * k) / (2 * s * s)))) / norm


def _integer_shift(sensitivity: float) -> float:
    """The largest integer shift an integer-valued query of sensitivity Delta can make (at least 1)."""
    return float(max(1, math.floor(sensitivity * (1 + 1e-12))))


def discrete_gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """Exact delta at ``epsilon`` of adding ``N_Z(0, sigma^2)`` to one integer query of sensitivity Delta.

    ``delta = P[Y > eps sigma^2/Delta - Delta/2] - e^eps P[Y > eps sigma^2/Delta + Delta/2]``
    with ``Y ~ N_Z(0, sigma^2)`` ([CKS20]_, Theorem 7; the privacy loss of a shift by
    Delta exceeds epsilon exactly when ``Y > eps sigma^2/Delta - Delta/2``).  For a
    single (scalar) query only; see :func:`discrete_gaussian_sigma` for vectors.

    The query is integer-valued, so neighbours differ by an integer shift of at
    most ``floor(Delta)``; Theorem 7 is for an integer shift, and delta grows with
    the shift, so a non-integer ``Delta`` is replaced by ``max(1, floor(Delta))``
    (using the real-valued Delta in the formula would understate delta).
    """
    s = check_positive("sigma", sigma)
    d = _integer_shift(check_positive("sensitivity", sensitivity))
    eps = check_nonnegative("epsilon", epsilon)
    norm = _gauss_normaliser(s)
    c = eps * s * s / d
    return max(0.0, _gauss_tail(c - d / 2, s, norm) - math.exp(eps) * _gauss_tail(c + d / 2, s, norm))


def _zcdp_delta(rho: float, eps: float) -> float:
    """delta of rho-zCDP at epsilon: ``inf_{a>1} e^{(a-1)(a rho - eps)} / (a-1) * (1 - 1/a)^a`` ([CKS20]_, Cor. 13)."""

    def log_delta(a: float) -> float:
        return (a - 1) * (a * rho - eps) - math.log(a - 1) + a * math.log1p(-1.0 / a)

    a_star = (eps + rho) / (2 * rho) + 1.0  # minimiser of the leading term
    res = optimize.minimize_scalar(log_delta, bounds=(1.0 + 1e-9, max(4.0 * a_star, 4.0)), method="bounded",
                                   options={"xatol": 1e-10})
    return min(1.0, math.exp(min(res.fun, log_delta(a_star))))


def discrete_gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float, *, scalar: bool = True) -> float:
    """Smallest grid-unit sigma making the discrete Gaussian mechanism (epsilon, delta)-DP.

    ``scalar=True`` (one integer query): root of the exact Theorem 7 delta
    (:func:`discrete_gaussian_delta`, for the integer shift ``max(1, floor(Delta))``) at ``delta``.  ``scalar=False`` (a vector of
    integer queries with L2 sensitivity ``l2_sensitivity``): the discrete Gaussian
    is ``rho = Delta^2/(2 sigma^2)``-zCDP in one dimension ([CKS20]_, Prop. 5) and
    Renyi divergences of independent coordinates add, so the vector is
    ``Delta_2^2/(2 sigma^2)``-zCDP; sigma is the root of its (epsilon, delta)
    conversion ([CKS20]_, Corollary 13).  Both roots are rounded up.
    """
    d = check_positive("l2_sensitivity", l2_sensitivity)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    if scalar:
        f = lambda log_s: discrete_gaussian_delta(math.exp(log_s), d, eps) - delta  # noqa: E731
    else:
        f = lambda log_s: _zcdp_delta(d * d / (2 * math.exp(2 * log_s)), eps) - delta  # noqa: E731
    lo, hi = math.log(d) - 5.0, math.log(d) + 3.0
    while f(lo) < 0:
        lo -= 3.0
    while f(hi) > 0:
        hi += 3.0
        if hi > math.log(_MAX_SIGMA):
            raise ValueError(f"epsilon={eps}, delta={delta} need sigma > {_MAX_SIGMA:g} grid units; "
                             "use a coarser grid (rescale the answers)")
    log_s = optimize.brentq(f, lo, hi, xtol=1e-12, rtol=1e-12)
    return math.exp(log_s) * (1 + 1e-9)


# --------------------------------------------------------------------------- mechanisms
def _grid_answers(answers, granularity: float) -> tuple[np.ndarray, float]:
    answers = check_array("answers", answers)
    g = check_positive("granularity", granularity)
    units = answers / g
    if units.size and not np.all(units == np.round(units)):
        bad = answers.ravel()[np.flatnonzero(units.ravel() != np.round(units.ravel()))[0]]
        raise ValueError(f"answers must be multiples of granularity={g} for the discrete mechanisms, got {bad}; "
                         "round the query to the grid first (this adds up to one grid step to its sensitivity)")
    return answers, g


def discrete_laplace_mechanism(answers, sensitivity: float, epsilon: float, *, granularity: float = 1.0,
                               rng: RngLike = None, size: int | None = None, method: Method = "fast") -> np.ndarray:
    """Release ``answers + granularity * DLap(sensitivity / (granularity * epsilon))`` per entry.

    For answers on the grid ``granularity * Z`` whose L1 sensitivity is
    ``sensitivity``, this is epsilon-DP exactly: a neighbour shifts the
    grid-unit answers by an integer vector of L1 norm at most
    ``sensitivity/granularity`` and the pmf ratio is at most ``e^{epsilon}``
    ([CKS20]_; [GRS09]_).  Output is float64 holding exact grid points.
    """
    answers, g = _grid_answers(answers, granularity)
    t = check_positive("sensitivity", sensitivity) / (g * check_epsilon(epsilon))
    if method == "exact":  # the exact rational Delta / (g eps), each read as its shortest decimal
        t = exact("sensitivity", sensitivity) / (exact("granularity", granularity) * exact("epsilon", epsilon))
    size = check_trials(size)
    shape = answers.shape if size is None else (size, *answers.shape)
    n = int(np.prod(shape))
    noise = discrete_laplace(t, size=max(n, 1), rng=rng, method=method)[:n].reshape(shape)
    return answers + g * noise


def discrete_gaussian_mechanism(answers, l2_sensitivity: float, epsilon: float, delta: float, *,
                                granularity: float = 1.0, rng: RngLike = None, size: int | None = None,
                                method: Method = "fast") -> np.ndarray:
    """Release ``answers + granularity * N_Z(0, sigma^2)`` per entry, (epsilon, delta)-DP on the grid.

    sigma (in grid units) is :func:`discrete_gaussian_sigma` of
    ``l2_sensitivity / granularity``: the exact Theorem 7 calibration of [CKS20]_
    when ``answers`` holds one number, the zCDP calibration (Prop. 5 + Cor. 13)
    for a vector.  Answers must lie on the grid.
    """
    answers, g = _grid_answers(answers, granularity)
    sigma = discrete_gaussian_sigma(check_positive("l2_sensitivity", l2_sensitivity) / g, epsilon, delta,
                                    scalar=answers.size == 1)
    size = check_trials(size)
    shape = answers.shape if size is None else (size, *answers.shape)
    n = int(np.prod(shape))
    noise = discrete_gaussian(sigma, size=max(n, 1), rng=rng, method=method)[:n].reshape(shape)
    return answers + g * noise
