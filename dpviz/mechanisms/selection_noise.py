"""The noise of private selection (the exponential mechanism, report-noisy-max, permute-and-flip): scale and draws.

A selection mechanism picks one of m candidates from their scores ``u(D, r)``, each of sensitivity at most
``Delta`` (adding or removing one record moves every score by at most ``Delta``).  All the selection
mechanisms of dpviz are calibrated by one number, the *selection scale*

* ``s = 2 Delta / epsilon`` in general, and
* ``s = Delta / epsilon`` when the scores are **monotone**: for every pair of neighbours all scores move in the
  same direction (counts under add/remove-one: adding a record can only raise them).

The exponential mechanism picks r with probability proportional to ``exp(u_r / s)`` [MT07]; report-noisy-max
adds Gumbel, Laplace or exponential noise of scale ``s`` to every score and reports the largest [DR14, MS20,
DKSSWXZ21]; permute-and-flip accepts r with probability ``exp((u_r - max u) / s)`` [MS20].  Each is
epsilon-DP.  The scale is computed here and nowhere else (lecture 09), and the unit-scale Gumbel and
exponential noise of report-noisy-max (and of MWEM's Gumbel-max selection) is drawn here:
:func:`standard_gumbel` and :func:`standard_exponential`; its Laplace noise is
:func:`dpviz.mechanisms.scaled_laplace`.  These draws are floating-point and bounded (a standard Gumbel draw
lies in about [-3.6, 36.7]), so a candidate scored far enough below the best is never picked where the ideal
mechanism gives it a tiny probability: the epsilon above is that of the idealised real-valued mechanism
(lecture 07, section 7).

References
----------
- [MT07] F. McSherry, K. Talwar. "Mechanism Design via Differential Privacy." FOCS 2007.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
  TCS 9(3-4), 2014, Section 3.3 (Claim 3.9, report noisy max) and 3.4 (the exponential mechanism).
- [MS20] R. McKenna, D. Sheldon. "Permute-and-Flip: A New Mechanism for Differentially Private Selection."
  NeurIPS 2020.
- [DKSSWXZ21] Z. Ding, D. Kifer, S. M. Saghaian N. E., T. Steinke, Y. Wang, Y. Xiao, D. Zhang. "The
  Permute-and-Flip Mechanism is Identical to Report-Noisy-Max with Exponential Noise." arXiv:2105.07260, 2021.
"""

from __future__ import annotations

import numpy as np

from dpviz.mechanisms.laplace_noise import laplace_scale
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_bool, check_positive, check_shape

__all__ = ["selection_scale", "standard_gumbel", "standard_exponential"]


def selection_scale(sensitivity: float, epsilon: float, *, monotone: bool = False) -> float:
    """The scale ``s`` of epsilon-DP selection: ``2 Delta / epsilon``, or ``Delta / epsilon`` for monotone scores.

    The exponential mechanism with weights ``exp(u / s)``, report-noisy-max with Gumbel, Laplace or exponential
    noise of scale ``s``, and permute-and-flip with acceptance ``exp((u - max u) / s)`` are epsilon-DP with this
    ``s`` [MT07, DR14, MS20].  The factor 2 pays for scores that move in opposite directions between
    neighbours (one up by Delta, another down by Delta); when all move the same way (``monotone``, e.g.
    counts under add/remove-one neighbours) it is not needed ([DR14] Claim 3.9 for report noisy max).

    Parameters
    ----------
    sensitivity : float
        ``Delta``, the largest change of any one score between neighbours, finite and > 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    monotone : bool, default False
        Whether the scores are monotone (all move in the same direction between any two neighbours).

    Returns
    -------
    float
        The selection scale ``s``.

    Raises
    ------
    ValueError
        If ``sensitivity`` <= 0 or ``epsilon`` <= 0 (or either is NaN/inf), or the scale overflows.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references: [MT07], [DR14], [MS20].

    Examples
    --------
    >>> selection_scale(1.0, 0.5), selection_scale(1.0, 0.5, monotone=True)
    (4.0, 2.0)
    """
    delta_u = check_positive("sensitivity", sensitivity)
    factor = 1.0 if check_bool("monotone", monotone) else 2.0
    return laplace_scale(factor * delta_u, epsilon)


def standard_gumbel(shape: int | tuple[int, ...], *, rng: RngLike = None) -> np.ndarray:
    """Draw standard Gumbel noise (location 0, scale 1): report-noisy-max with it is the exponential mechanism.

    ``argmax_r (u_r / s + G_r)`` with independent standard Gumbel ``G_r`` picks r with probability proportional
    to ``exp(u_r / s)`` (the Gumbel-max trick): the exponential mechanism [MT07] with scale ``s`` (see
    :func:`selection_scale`).  The draw is ``rng.gumbel(size=shape)``, so a mechanism that draws here continues
    its ``rng`` stream exactly as a direct call would.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the returned array.
    rng : None, int, SeedSequence or numpy.random.Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray
        Float64 array of the given shape, with cdf ``exp(-exp(-z))``.

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple of ints.
    ValueError
        If a dimension of ``shape`` is negative, or it asks for more than ``MAX_ELEMENTS`` draws.

    References
    ----------
    See the module's references: [MT07], [DR14].

    Examples
    --------
    >>> standard_gumbel((2, 3), rng=0).round(3)
    array([[-0.013,  1.157,  3.174],
           [ 4.094, -0.518, -0.892]])
    """
    return as_generator(rng).gumbel(size=check_shape(shape, "Gumbel draws"))


def standard_exponential(shape: int | tuple[int, ...], *, rng: RngLike = None) -> np.ndarray:
    """Draw standard exponential noise ``Exp(1)``: report-noisy-max with it is permute-and-flip.

    Report-noisy-max with exponential noise of scale ``s`` (see :func:`selection_scale`) has the same output
    distribution as permute-and-flip [DKSSWXZ21].  The draw is ``rng.standard_exponential(size=shape)``
    (numpy's ziggurat sampler), so a mechanism that draws here continues its ``rng`` stream exactly as a direct
    call would.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the returned array.
    rng : None, int, SeedSequence or numpy.random.Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray
        Float64 array of the given shape, with density ``exp(-z)`` on ``z >= 0``.

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple of ints.
    ValueError
        If a dimension of ``shape`` is negative, or it asks for more than ``MAX_ELEMENTS`` draws.

    References
    ----------
    See the module's references: [MS20], [DKSSWXZ21].

    Examples
    --------
    >>> standard_exponential(3, rng=0).round(3)
    array([0.68, 1.02, 0.02])
    """
    return as_generator(rng).standard_exponential(size=check_shape(shape, "exponential draws"))
