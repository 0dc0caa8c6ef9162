"""The coins of randomised mechanisms: uniform draws and binomial counts.

A release's privacy rests on more than the noise added to its answers.  Poisson subsampling keeps each row
with probability ``p``; the exponential mechanism picks a candidate by inverting its distribution function at
a uniform draw; permute-and-flip visits the candidates in a random order and flips one biased coin per
candidate; DAWA's private partition decides at each node of a tree whether to stop; the GPTT oracle counts the
"above" answers of many copies of one query.  These coins are drawn here, by :func:`standard_uniform` and
:func:`binomial_heads`, so that every random draw a release depends on goes through :mod:`dpviz.mechanisms`.

They are floating-point coins: ``Generator.random`` returns multiples of ``2**-53``, so a coin "uniform < p"
lands heads with probability ``p`` rounded up to such a multiple, and a probability below ``2**-53`` is
either 0 or ``2**-53``.  The privacy statements of dpviz are those of the idealised mechanisms with exact
coins (lecture 07, section 7); the exact coins of the discrete samplers are elsewhere (``exact_coins``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_array, check_int, check_shape

__all__ = ["standard_uniform", "binomial_heads"]


def standard_uniform(shape: int | tuple[int, ...], *, rng: RngLike = None) -> np.ndarray:
    """Draw uniform values in ``[0, 1)``: a mechanism's coins, random orders and inverse-cdf draws.

    ``standard_uniform(shape) < p`` flips coins of bias ``p``; ``argsort`` of a row is a uniformly random order
    (ties have probability about ``2**-53`` per pair); ``searchsorted(cdf, u * cdf[-1])`` samples from a
    discrete distribution.  The draw is ``rng.random(shape)`` (multiples of ``2**-53``), so a mechanism that
    draws here continues its ``rng`` stream exactly as a direct call would.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the returned array.
    rng : None, int, SeedSequence or numpy.random.Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray
        Float64 array of the given shape, uniform on ``[0, 1)``.

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple of ints.
    ValueError
        If a dimension of ``shape`` is negative, or it asks for more than ``MAX_ELEMENTS`` draws.

    Examples
    --------
    >>> standard_uniform(3, rng=0).round(3)
    array([0.637, 0.27 , 0.041])
    >>> (standard_uniform((2, 4), rng=1) < 0.5).astype(int)      # coins of bias 1/2
    array([[0, 0, 1, 0],
           [1, 1, 0, 1]])
    """
    return as_generator(rng).random(check_shape(shape, "uniform draws"))


def binomial_heads(n: int, p: ArrayLike, shape: int | tuple[int, ...] | None = None, *,
                   rng: RngLike = None) -> np.ndarray:
    """Count the heads among ``n`` independent coins of bias ``p``: a ``Binomial(n, p)`` draw.

    Used where a mechanism's coins need only be counted: how many of ``n`` flagged rows survive Poisson
    subsampling at rate ``p``, how many of ``n`` copies of a query GPTT answers "above".  The draw is
    ``rng.binomial(n, p, size=shape)``, so a mechanism that draws here continues its ``rng`` stream exactly as
    a direct call would.

    Parameters
    ----------
    n : int
        Number of coins, >= 0.
    p : float or array_like of float
        Bias of the coins, each in ``[0, 1]``; an array gives one count per entry.
    shape : int, tuple of int or None, default None
        Shape of the returned array; None: the shape of ``p`` (0-d for a scalar ``p``).
    rng : None, int, SeedSequence or numpy.random.Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray
        Integer counts in ``[0, n]``, of shape ``shape`` (or that of ``p``).

    Raises
    ------
    TypeError
        If ``n`` is not an integer, ``p`` not real numbers or ``shape`` not an int or a tuple of ints.
    ValueError
        If ``n`` < 0, a ``p`` lies outside ``[0, 1]`` (or is NaN), ``shape`` has a negative dimension, asks for
        more than ``MAX_ELEMENTS`` draws, or does not broadcast with ``p``.

    Examples
    --------
    >>> binomial_heads(10, 0.3, 4, rng=0)
    array([3, 2, 1, 0])
    >>> binomial_heads(5, [0.0, 1.0], rng=0)                    # one count per bias
    array([0, 5])
    """
    n = check_int("n", n, minimum=0)
    if np.asarray(p).dtype == bool:
        raise TypeError(f"p must be probabilities (real numbers in [0, 1]), got the flag(s) {p!r}")
    probs = check_array("p", p, finite=False)
    inside = (probs >= 0) & (probs <= 1)                    # False for NaN too
    if not np.all(inside):
        raise ValueError(f"p must hold probabilities in [0, 1], got {float(probs[~inside].flat[0])!r}")
    dims = None if shape is None else check_shape(shape, "binomial draws")
    if dims is not None and probs.ndim and not _broadcasts_to(probs.shape, dims):
        raise ValueError(f"shape={dims} must hold one count per p: p of shape {probs.shape} does not broadcast to it")
    draw = probs if probs.ndim else float(probs)            # a scalar p as numpy's scalar path takes it
    return np.asarray(as_generator(rng).binomial(n, draw, size=dims))


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether an array of ``shape`` broadcasts to ``target`` (numpy's rule for ``size=`` of a sampler)."""
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False
