"""Exact random coins for the discrete samplers: integers and rational Bernoullis from raw 64-bit words.

Every coin is a Bernoulli with a *rational* success probability ``n/d``,
flipped by drawing a uniform integer in ``[0, d)`` from raw 64-bit words of the
numpy bit generator (rejection sampling, so exactly uniform).  On top of them
sit the exact one-draw samplers of the discrete Laplace and discrete Gaussian
distributions ([CKS20]_, Algorithms 1-3), in integer and
:class:`fractions.Fraction` arithmetic.  Everything here is private to
:mod:`dpviz.mechanisms`.

References
----------
.. [CKS20] C. L. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for
   Differential Privacy." NeurIPS 2020 (arXiv:2004.00010), Algorithms 1-3.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__: list[str] = []


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
        """A coin that is 1 with probability exactly ``exp(-gamma)``, gamma >= 0 rational ([CKS20], Algorithm 1).

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
        """A coin of probability ``exp(-gamma)`` for rational gamma in [0, 1]."""
        k = 1
        while self.bernoulli(gamma / k):
            k += 1
        return k % 2 == 1


def _exact_dlap_one(coins: _Coins, s: int, t: int) -> int:
    """One draw of ``DLap(t/s)`` for positive integers s, t ([CKS20], Algorithm 2).

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
    """One draw of ``N_Z(0, sigma2)`` for rational sigma2 > 0 ([CKS20], Algorithm 3).

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
