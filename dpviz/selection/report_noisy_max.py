"""Report-noisy-max: add independent noise to every score and report the index of the largest noisy score.

The noise has the selection scale ``s`` of :func:`dpviz.mechanisms.selection_scale` (``2 Delta / epsilon``;
``Delta / epsilon`` for monotone scores) and one of three shapes:

* ``"gumbel"``: the mechanism **is** the exponential mechanism, exactly (the Gumbel-max trick:
  ``argmax_r (u_r / s + G_r)`` with standard Gumbel ``G_r`` is drawn with probability
  ``exp(u_r / s) / sum_q exp(u_q / s)``);
* ``"laplace"``: epsilon-DP [DR14].  Fix the other candidates' noise: r wins exactly when its own noise
  exceeds ``max_{q != r}(u_q + Z_q) - u_r``, a threshold that moves by at most ``2 Delta`` between neighbours
  (``Delta`` when the scores are monotone: Claim 3.9 of [DR14] and its proof for counting queries), and a
  Laplace density of scale ``s`` changes by at most ``e^epsilon`` under such a shift;
* ``"exponential"`` (one-sided, ``Exp(s)``): epsilon-DP by the same argument, and identical to
  permute-and-flip [DKSSWXZ21] (:mod:`dpviz.selection.permute_and_flip`).

The noise is added to the scores in units of ``s`` (``(u - max u) / s`` plus unit-scale noise), which picks
the same candidate as ``u + s Z`` but never lets a noise value be lost to rounding against a large score.

References
----------
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
  TCS 9(3-4), 2014, Section 3.3, Claim 3.9.
- [MS20] R. McKenna, D. Sheldon. "Permute-and-Flip: A New Mechanism for Differentially Private Selection."
  NeurIPS 2020.
- [DKSSWXZ21] Z. Ding, D. Kifer, S. M. Saghaian N. E., T. Steinke, Y. Wang, Y. Xiao, D. Zhang. "The
  Permute-and-Flip Mechanism is Identical to Report-Noisy-Max with Exponential Noise." arXiv:2105.07260, 2021.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import PrivacyAccountant, charge
from dpviz.mechanisms import scaled_laplace, selection_scale, standard_exponential, standard_gumbel
from dpviz.rng import RngLike, as_generator
from dpviz.selection.scores import _scores, _standardised
from dpviz.validation import check_choice, check_elements, check_trials

__all__ = ["NOISES", "noisy_max_select"]

#: The noise shapes of report-noisy-max.
NOISES = ("gumbel", "laplace", "exponential")


def _unit_noise(noise: str, gen: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Unit-scale noise of the given shape: standard Gumbel, standard Laplace or Exp(1)."""
    if noise == "gumbel":
        return standard_gumbel(shape, rng=gen)
    if noise == "laplace":
        return scaled_laplace(1.0, shape, rng=gen)
    return standard_exponential(shape, rng=gen)


def noisy_max_select(scores: ArrayLike, epsilon: float, noise: str = "laplace", sensitivity: float = 1.0, *,
                     monotone: bool = False, rng: RngLike = None, size: int | None = None,
                     accountant: PrivacyAccountant | None = None) -> int | np.ndarray:
    """Report-noisy-max: ``argmax_r (u_r + s Z_r)`` with independent noise ``Z_r`` of unit scale.

    ``s`` = :func:`dpviz.mechanisms.selection_scale` ``(sensitivity, epsilon, monotone=monotone)``.  With
    ``noise="gumbel"`` this is the exponential mechanism; with ``"exponential"`` it is permute-and-flip; with
    ``"laplace"`` it is the report-noisy-max of [DR14] (see the module docstring).  Each is epsilon-DP.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    epsilon : float
        Privacy parameter of one release, finite and > 0.
    noise : {"gumbel", "laplace", "exponential"}, default "laplace"
        The noise distribution.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone (e.g. counts under add/remove-one): noise of scale Delta / epsilon.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent releases; None (default) for one.
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` before any noise is drawn.

    Returns
    -------
    int or numpy.ndarray of int
        The reported candidate, or ``size`` of them.

    Raises
    ------
    ValueError
        For invalid scores, epsilon or sensitivity not > 0, an unknown ``noise``, ``size`` < 1, or
        ``size`` x m above the allocation cap.
    TypeError
        If an argument has the wrong type.
    BudgetExceededError
        If the accountant cannot afford ``size * epsilon`` (nothing is recorded or drawn).

    References
    ----------
    See the module's references: [DR14], [MS20], [DKSSWXZ21].

    Examples
    --------
    >>> noisy_max_select([3.0, 2.0, 0.0], 1.0, "gumbel", rng=0, size=5).tolist()
    [2, 0, 0, 2, 1]
    """
    u = _scores(scores)
    noise = check_choice("noise", noise, NOISES)
    s = selection_scale(sensitivity, epsilon, monotone=monotone)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(float(k) * u.size, "size x candidates noise draws", size=size, candidates=u.size)
    gen = as_generator(rng)
    charge(accountant, epsilon, size=size, label=f"report-noisy-max ({noise} noise)")
    noisy = _standardised(u, s)[None, :] + _unit_noise(noise, gen, (k, u.size))
    picks = np.argmax(noisy, axis=1).astype(np.int64)
    return int(picks[0]) if size is None else picks
