"""What differential privacy promises: neighbouring datasets, the privacy loss, group privacy, and the
adversary's view (lecture 00).

A mechanism M is eps-differentially private if for every pair of neighbouring datasets D, D' and every set S
of outputs, ``P[M(D) in S] <= e^eps P[M(D') in S]``; equivalently, the privacy loss ``ln(P[M(D) = o] /
P[M(D') = o])`` of every output lies in ``[-eps, eps]``.  The mechanisms themselves, and every noise
calibration, live in :mod:`dpviz.mechanisms` (randomized response included); this package holds what the
definition says about them.

Files
-----
``neighbouring.py``
    The two neighbouring relations (``RELATIONS``: add/remove, the course's, and replace-one),
    ``histogram_neighbours`` and ``l1_sensitivity`` of a query matrix under either.
``loss_ratio.py``
    ``privacy_loss`` (the log-ratio per output), ``tight_epsilon`` (of two discrete output distributions),
    and the loss curves ``laplace_privacy_loss`` (bounded) and ``gaussian_privacy_loss`` (unbounded).
``groups.py``
    ``group_privacy``: eps-DP for one person is k eps-DP for a group of k (and delta grows); the one
    implementation, also exported by ``dpviz.composition``.
``posterior_belief.py``
    The Bayesian reading: ``posterior`` (Bayes' rule for D against D') and ``posterior_bounds`` (how far
    an eps-DP output can move an informed adversary's belief).
``distinguishability.py``
    The hypothesis-testing reading: ``power_bound``, ``advantage_bound`` (``tanh(eps/2)``),
    ``total_variation`` and its closed forms for the Laplace and Gaussian mechanisms.

References
----------
- [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. "Calibrating Noise to Sensitivity in Private Data
  Analysis." TCC 2006.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends
  in TCS 9(3-4), 2014.
- [KS14] S. P. Kasiviswanathan, A. Smith. "On the 'Semantics' of Differential Privacy: A Bayesian
  Formulation." Journal of Privacy and Confidentiality 6(1), 2014.
- [WZ10] L. Wasserman, S. Zhou. "A Statistical Framework for Differential Privacy." JASA 105(489), 2010.
"""

from __future__ import annotations

from dpviz.definition.distinguishability import (
    advantage_bound,
    gaussian_total_variation,
    laplace_total_variation,
    power_bound,
    total_variation,
)
from dpviz.definition.groups import group_privacy
from dpviz.definition.loss_ratio import gaussian_privacy_loss, laplace_privacy_loss, privacy_loss, tight_epsilon
from dpviz.definition.neighbouring import RELATIONS, histogram_neighbours, l1_sensitivity
from dpviz.definition.posterior_belief import posterior, posterior_bounds

__all__ = [
    "RELATIONS",
    "histogram_neighbours",
    "l1_sensitivity",
    "privacy_loss",
    "tight_epsilon",
    "laplace_privacy_loss",
    "gaussian_privacy_loss",
    "group_privacy",
    "posterior",
    "posterior_bounds",
    "power_bound",
    "advantage_bound",
    "total_variation",
    "laplace_total_variation",
    "gaussian_total_variation",
]
