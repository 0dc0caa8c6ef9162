"""Choosing privately: the exponential mechanism, report-noisy-max and permute-and-flip (lecture 09).

A *selection* problem has m public candidates and a score ``u_r = u(D, r)`` for each, computed on the private
data; the goal is a candidate with a high score.  Releasing all the scores with Laplace noise and taking the
best would pay for m releases; the mechanisms here pay epsilon once, whatever m is.  Every score may move by
up to its sensitivity Delta between neighbours (add/remove-one-record, as in every lecture); all the
mechanisms use the scale ``s = 2 Delta / epsilon`` (``Delta / epsilon`` for monotone scores) of
:func:`dpviz.mechanisms.selection_scale`:

* the **exponential mechanism** [MT07] picks r with probability proportional to ``exp(u_r / s)``;
* **report-noisy-max** adds noise of scale s to every score and reports the largest [DR14]: with Gumbel noise
  it *is* the exponential mechanism, with Laplace noise it is another epsilon-DP mechanism, with exponential
  noise it *is* permute-and-flip [DKSSWXZ21];
* **permute-and-flip** [MS20] visits the candidates in random order and accepts r with probability
  ``exp((u_r - OPT) / s)``; its expected score is never below the exponential mechanism's.

Every mechanism has its exact selection probabilities beside its sampler, in logarithms where privacy-loss
ratios need them.  The samplers' noise and coins are floating-point and bounded (a candidate scored far enough
below the best is never picked, see :mod:`dpviz.mechanisms.selection_noise`), so, as for every float release
(Mironov, CCS 2012; lecture 07, section 7), the epsilon stated is that of the idealised real-valued mechanism.

Files
-----
``scores.py``
    Score vectors and what a selection achieves: :func:`expected_score`, :func:`shortfall_probability`.
``exponential_mechanism.py``
    :func:`exponential_probabilities` (a softmax), :func:`exponential_log_probabilities`,
    :func:`exponential_select`, and the utility guarantee :func:`exponential_utility_gap`.
``report_noisy_max.py``
    :func:`noisy_max_select` with Gumbel, Laplace or exponential noise (``NOISES``).
``permute_and_flip.py``
    :func:`permute_and_flip_select` (the algorithm) and its exact :func:`permute_and_flip_probabilities`.
``noisy_max_exact.py``
    Exact report-noisy-max probabilities ``int f_r prod F_q``: :func:`noisy_max_probabilities` (closed forms,
    and a graded quadrature for Laplace noise) and :func:`noisy_max_integral` (:func:`scipy.integrate.quad`,
    an independent check).
``menu.py``
    The four mechanisms of the lecture by name (``MECHANISMS``): :func:`select`,
    :func:`selection_probabilities`, :func:`selection_log_probabilities`.
``privacy_loss.py``
    The exact privacy loss over neighbouring score vectors: :func:`neighbouring_scores`,
    :func:`selection_privacy_loss`.

References
----------
- [MT07] F. McSherry, K. Talwar. "Mechanism Design via Differential Privacy." FOCS 2007.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
  TCS 9(3-4), 2014, Sections 3.3-3.4.
- [MS20] R. McKenna, D. Sheldon. "Permute-and-Flip: A New Mechanism for Differentially Private Selection."
  NeurIPS 2020.
- [DKSSWXZ21] Z. Ding, D. Kifer, S. M. Saghaian N. E., T. Steinke, Y. Wang, Y. Xiao, D. Zhang. "The
  Permute-and-Flip Mechanism is Identical to Report-Noisy-Max with Exponential Noise." arXiv:2105.07260, 2021.
"""

from __future__ import annotations

from dpviz.selection.exponential_mechanism import (
    exponential_log_probabilities,
    exponential_probabilities,
    exponential_select,
    exponential_utility_gap,
)
from dpviz.selection.menu import MECHANISMS, select, selection_log_probabilities, selection_probabilities
from dpviz.selection.noisy_max_exact import noisy_max_integral, noisy_max_log_probabilities, noisy_max_probabilities
from dpviz.selection.permute_and_flip import (
    permute_and_flip_log_probabilities,
    permute_and_flip_probabilities,
    permute_and_flip_select,
)
from dpviz.selection.privacy_loss import RELATIONS, neighbouring_scores, selection_privacy_loss
from dpviz.selection.report_noisy_max import NOISES, noisy_max_select
from dpviz.selection.scores import expected_score, shortfall_probability

__all__ = [
    "MECHANISMS", "NOISES", "RELATIONS",
    "exponential_probabilities", "exponential_log_probabilities", "exponential_select", "exponential_utility_gap",
    "noisy_max_select", "noisy_max_probabilities", "noisy_max_log_probabilities", "noisy_max_integral",
    "permute_and_flip_select", "permute_and_flip_probabilities", "permute_and_flip_log_probabilities",
    "select", "selection_probabilities", "selection_log_probabilities",
    "neighbouring_scores", "selection_privacy_loss",
    "expected_score", "shortfall_probability",
]
