"""An empirical privacy auditor: a statistical lower bound on a mechanism's epsilon.

Differential privacy promises, for neighbouring datasets D, D' and every set of
outputs S, ``P[M(D) in S] <= e^eps P[M(D') in S] + delta``.  So *one* event S
with ``p = P[M(D) in S]`` and ``p' = P[M(D') in S]`` shows

    ``eps >= ln((p - delta) / p')``.

The auditor estimates p and p' from seeded samples.  Exact Clopper-Pearson
intervals ``[p_lo, p_hi]`` and ``[p'_lo, p'_hi]``, each at level
``1 - alpha/2`` (Bonferroni: both hold together with probability at least
``1 - alpha``, ``alpha = 1 - confidence``), turn this into a bound that holds
with the chosen confidence whatever the mechanism:

    ``eps >= ln((p_lo - delta) / p'_hi)``   (reported as ``epsilon_lower``, at least 0).

If this exceeds the claimed epsilon, the claim is *disproved* (up to a chance of
alpha of a false alarm).  A bound below the claim proves nothing: the right
event may not have been tried, or the samples were too few (power).

**Search mode** (``event=None`` or a list of events): a first batch of samples
picks the most damaging event, and a *fresh* batch measures it, so the bound
keeps its confidence despite the search ([DWWZK18]_, [BGDCG18]_; see ``search.py``).

Files
-----
``events.py``
    The events: ``ThresholdEvent``, ``OutputEvent``, ``PredicateEvent``, ``as_event``, ``event_hits``.
``statistics.py``
    Confidence intervals: ``clopper_pearson``, ``privacy_loss_interval``.
``result.py``
    ``AuditResult``: bound, event, counts and verdict of one audit (``AuditResult.from_counts`` builds one).
``neighbours.py``
    Neighbouring inputs: ``NeighbourPair``, ``check_neighbours`` and the ready-made pairs
    ``histogram_pair``, ``sum_pair``, ``query_pair``, ``statdp_x_pair``.
``mironov.py``
    Mironov's floating-point attack: ``numpy_laplace_reachable``, ``mironov_event``.
``sampling.py``
    Drawing outputs: ``sample_outputs`` (and the chunked hit counter of the auditor).
``search.py``
    The event search: ``candidate_events``, ``event_counts``, ``best_event``, ``select_event``.
``auditor.py``
    The audit itself: ``epsilon_lower_bound``.

References
----------
- [CP34] C. J. Clopper, E. S. Pearson. "The Use of Confidence or Fiducial Limits
  Illustrated in the Case of the Binomial." Biometrika 26(4), 1934.

.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer. "Detecting
   Violations of Differential Privacy." CCS 2018 (StatDP).
.. [BGDCG18] B. Bichsel, T. Gehr, D. Drachsler-Cohen, P. Tsankov, M. Vechev.
   "DP-Finder: Finding Differential Privacy Violations by Sampling and
   Optimization." CCS 2018.

- [JUO20] M. Jagielski, J. Ullman, A. Oprea. "Auditing Differentially Private
  Machine Learning: How Private is Private SGD?" NeurIPS 2020 (the
  Clopper-Pearson epsilon lower bound with delta).
- [Mir12] I. Mironov. "On Significance of the Least Significant Bits for
  Differential Privacy." CCS 2012 (the attack on floating-point Laplace noise).
- [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
  the Sparse Vector Technique." arXiv:1508.07306, 2015, Section 4.
"""

from __future__ import annotations

from dpviz.audit.auditor import epsilon_lower_bound
from dpviz.audit.events import Event as Event
from dpviz.audit.events import OutputEvent, PredicateEvent, ThresholdEvent, as_event, event_hits
from dpviz.audit.mironov import mironov_event, numpy_laplace_reachable
from dpviz.audit.neighbours import RELATIONS as RELATIONS
from dpviz.audit.neighbours import (
    NeighbourPair,
    check_neighbours,
    histogram_pair,
    query_pair,
    statdp_x_pair,
    sum_pair,
)
from dpviz.audit.result import AuditResult
from dpviz.audit.sampling import Mechanism as Mechanism
from dpviz.audit.sampling import sample_outputs
from dpviz.audit.search import best_event, candidate_events, event_counts, select_event
from dpviz.audit.statistics import clopper_pearson, privacy_loss_interval

__all__ = [
    "ThresholdEvent",
    "OutputEvent",
    "PredicateEvent",
    "AuditResult",
    "NeighbourPair",
    "clopper_pearson",
    "privacy_loss_interval",
    "epsilon_lower_bound",
    "candidate_events",
    "check_neighbours",
    "histogram_pair",
    "sum_pair",
    "query_pair",
    "statdp_x_pair",
    "sample_outputs",
    "select_event",
    "event_hits",
    "event_counts",
    "best_event",
    "as_event",
    "numpy_laplace_reachable",
    "mironov_event",
]
