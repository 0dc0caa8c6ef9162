"""The noise scale of private selection: the exponential mechanism, report-noisy-max and permute-and-flip.

A selection mechanism picks one of m candidates from their scores ``u(D, r)``, each of sensitivity at most
``Delta`` (adding or removing one record moves every score by at most ``Delta``).  All the selection
mechanisms of dpviz are calibrated by one number, the *selection scale*

* ``s = 2 Delta / epsilon`` in general, and
* ``s = Delta / epsilon`` when the scores are **monotone**: for every pair of neighbours all scores move in the
  same direction (counts under add/remove-one: adding a record can only raise them).

The exponential mechanism picks r with probability proportional to ``exp(u_r / s)`` [MT07]; report-noisy-max
adds Gumbel, Laplace or exponential noise of scale ``s`` to every score and reports the largest [DR14, MS20,
DKSSWXZ21]; permute-and-flip accepts r with probability ``exp((u_r - max u) / s)`` [MS20].  Each is
epsilon-DP.  The scale is computed here and nowhere else (lecture 09).

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

from dpviz.mechanisms.laplace_noise import laplace_scale
from dpviz.validation import check_bool, check_positive

__all__ = ["selection_scale"]


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
