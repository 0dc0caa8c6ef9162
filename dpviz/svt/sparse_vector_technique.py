"""The sparse vector technique (SVT): above/below answers to a query stream, halting after c "above" (epsilon-DP).

The threshold is perturbed once, ``T^ = T + Lap(Delta / eps1)``; every query gets
fresh noise ``Lap(2 c Delta / eps2)`` (``Lap(c Delta / eps2)`` for monotone
queries); the answer is ``ABOVE`` (1) when ``q_i + nu_i >= T^``, else ``BELOW``
(0), and after the ``c``-th ``ABOVE`` every later query is ``HALTED`` (-1).  The
run is ``(eps1 + eps2)``-DP however many queries answer ``BELOW`` ([CM15]_
Alg. 1; calibration and proof of [LSL17]_ Alg. 1, Thm 2).

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
.. [LSL17] M. Lyu, D. Su, N. Li. "Understanding the Sparse Vector Technique for
   Differential Privacy." PVLDB 10(6), 2017.

- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential
  Privacy." Foundations and Trends in TCS 9(3-4), 2014, Section 3.6.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from dpviz.accountant import PrivacyAccountant, charge, exact, lower_reading, upper_reading
from dpviz.mechanisms import laplace_scale, scaled_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.svt.codes import HALTED
from dpviz.validation import (
    check_array,
    check_bool,
    check_elements,
    check_epsilon,
    check_int,
    check_open_unit,
    check_positive,
    check_real,
    check_trials,
)

__all__ = ["svt_noise_scales", "sparse_vector"]


def svt_noise_scales(epsilon: float, c: int = 1, *, sensitivity: float = 1.0, threshold_share: float = 0.5,
                     monotonic: bool = False) -> tuple[float, float]:
    """Laplace scales ``(b_threshold, b_query)`` that make the sparse vector technique epsilon-DP.

    With ``eps1 = threshold_share * epsilon`` and ``eps2 = epsilon - eps1``:
    ``b_threshold = Delta / eps1`` and ``b_query = 2 c Delta / eps2`` (``c Delta / eps2``
    when every query is monotone in the data) ([LSL17] Alg. 1, Thm 2).  The
    calibration of [DR14]/[CM15] Alg. 1 (``Lap(2c Delta/eps)`` and
    ``Lap(4c Delta/eps)``) is the special case ``eps1 = eps/(2c)``, ``eps2 = eps/2``,
    which spends ``(1 + 1/c) eps / 2``: exactly epsilon for c = 1, less for
    c > 1.  Both scales come from :func:`dpviz.mechanisms.laplace_scale`.

    Parameters
    ----------
    epsilon : float
        Total privacy budget of one SVT run, finite and > 0.
    c : int, default 1
        Number of ``ABOVE`` answers after which SVT halts, >= 1.
    sensitivity : float, default 1
        Delta, the bound on the sensitivity of every single query, > 0.
    threshold_share : float, default 0.5
        Fraction of epsilon spent on the threshold noise, in (0, 1).
    monotonic : bool, default False
        Whether all queries move in the same direction when a record is added or
        removed; halves the query noise.

    Returns
    -------
    b_threshold : float
        Scale ``Delta / eps1`` of the noise added once to the threshold.
    b_query : float
        Scale ``2 c Delta / eps2`` (``c Delta / eps2`` if ``monotonic``) of the
        noise added to every query.

    Raises
    ------
    ValueError, TypeError
        For a bad ``epsilon``, ``c`` (int >= 1), ``sensitivity`` (> 0),
        ``threshold_share`` (in (0, 1)) or ``monotonic`` (not a bool).

    References
    ----------
    See [LSL17] (Alg. 1, Thm 2), [DR14] and [CM15] (Alg. 1) in the module docstring.

    Examples
    --------
    >>> svt_noise_scales(1.0, c=3)
    (2.0, 12.0)
    >>> svt_noise_scales(1.0, c=3, monotonic=True)
    (2.0, 6.0)
    """
    epsilon = check_epsilon(epsilon)
    c = check_int("c", c, minimum=1)
    delta = check_positive("sensitivity", sensitivity)
    share = exact("threshold_share", check_open_unit("threshold_share", threshold_share))
    total = lower_reading("epsilon", epsilon)
    eps1, eps2 = share * total, (1 - share) * total   # exact shares: they never sum above what is charged
    factor = 1 if check_bool("monotonic", monotonic) else 2
    # the query noise's sensitivity factor * c * Delta exactly (in floating point 2 * 3 * 0.7 rounds down)
    return (laplace_scale(delta, eps1, name="threshold_share * epsilon"),
            laplace_scale(factor * c * upper_reading("sensitivity", delta), eps2,
                          name="(1 - threshold_share) * epsilon"))


def sparse_vector(answers: npt.ArrayLike, threshold: float, epsilon: float, c: int = 1, *,
                  sensitivity: float = 1.0, threshold_share: float = 0.5, monotonic: bool = False,
                  accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                  size: int | None = None) -> np.ndarray:
    """The sparse vector technique: above/below answers to a query stream, halting after ``c`` "above".

    One run draws ``rho ~ Lap(b_threshold)`` once and ``nu_i ~ Lap(b_query)`` per
    query (scales from :func:`svt_noise_scales`) and answers query i with
    ``ABOVE`` (1) if ``q_i + nu_i >= T + rho`` and ``BELOW`` (0) otherwise, until
    the ``c``-th ``ABOVE``; every later query is ``HALTED`` (-1).  The whole run
    is epsilon-DP when each query has sensitivity at most ``sensitivity``
    ([CM15] Alg. 1; [LSL17] Thm 2), however many queries answer ``BELOW``.

    Parameters
    ----------
    answers : array_like, shape (m,)
        True answers ``q_1(D), ..., q_m(D)`` of the query stream, in order.
    threshold : float
        The public threshold T.
    epsilon : float
        Total privacy budget of one run, finite and > 0.
    c : int, default 1
        Number of ``ABOVE`` answers after which the algorithm halts.
    sensitivity : float, default 1
        Bound Delta on the sensitivity of every single query.
    threshold_share : float, default 0.5
        Fraction of epsilon spent on the threshold noise, in (0, 1).
    monotonic : bool, default False
        Whether all queries move in the same direction when a record is added or removed (allows
        query noise ``Lap(c Delta / eps2)``).
    accountant : PrivacyAccountant, optional
        Charged through :func:`dpviz.accountant.charge` after every input is
        checked and *before* any noise is drawn: ``epsilon`` for one run, and
        ``size * epsilon`` for ``size`` independent runs (sequential
        composition, one ledger row "sparse vector (c=...) xsize"); raises
        ``BudgetExceededError`` and records nothing if it does not fit.
    rng : None, int, SeedSequence or Generator
        Source of randomness.
    size : int, optional
        Number of independent runs, stacked on a new first axis.

    Returns
    -------
    numpy.ndarray of int8, shape (m,) or (size, m)
        ``ABOVE`` (1), ``BELOW`` (0) or ``HALTED`` (-1) per query.

    Raises
    ------
    ValueError, TypeError
        For bad parameters (named in the message; a bool ``threshold`` is
        refused), ``size * len(answers)`` above :data:`dpviz.validation.MAX_ELEMENTS`,
        or an ``accountant`` that is not a :class:`~dpviz.accountant.PrivacyAccountant`.
    BudgetExceededError
        If ``accountant`` cannot afford ``size * epsilon``; nothing is drawn then.

    References
    ----------
    See [CM15] (Alg. 1) and [LSL17] (Alg. 1, Thm 2) in the module docstring.

    Examples
    --------
    >>> sparse_vector([0, 0, 100, 0, 100, 100], threshold=50, epsilon=1.0, c=2, rng=0)
    array([ 0,  0,  1,  0,  1, -1], dtype=int8)
    """
    answers = check_array("answers", answers, ndim=1)
    threshold = check_real("threshold", threshold)
    b_thr, b_q = svt_noise_scales(epsilon, c, sensitivity=sensitivity, threshold_share=threshold_share,
                                  monotonic=monotonic)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(float(k) * answers.size, "SVT answers", size=size, **{"len(answers)": answers.size})
    gen = as_generator(rng)                 # a bad rng is refused before anything is charged
    charge(accountant, check_epsilon(epsilon), size=size, label=f"sparse vector (c={c})")
    rho = scaled_laplace(b_thr, (k, 1), rng=gen)
    nu = scaled_laplace(b_q, (k, answers.size), rng=gen)
    above = answers[None, :] + nu >= threshold + rho
    positives_before: np.ndarray = np.cumsum(above, axis=1) - above        # ABOVE answers strictly before query i
    out = np.where(positives_before < c, above.astype(np.int8), np.int8(HALTED)).astype(np.int8)
    return out[0] if size is None else out
