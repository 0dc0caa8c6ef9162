"""Experiments for the privacy-auditing lecture: the library's mechanisms, ready to audit, and how a bound tightens.

Files
-----
``targets.py``
    ``AuditTarget``, ``TARGETS``, ``audit_target`` (the library's mechanisms calibrated
    to a claim, each with a neighbouring pair), ``run_audit`` and ``audit_table``.
``curve.py``
    The explorer's tightening curve: ``AuditCurve``, ``AuditView``, ``prepare_audit_curve``,
    ``audit_curve``, the cached ``audit_explorer_run`` and ``prefetch_audit_curves`` (prepares
    the curves of the explorer's next moves in a background thread).
``samplers.py``
    ``SamplerFit`` and ``sampler_fit``: discrete Laplace and Gaussian samplers
    against their exact pmf (chi-square test).
"""

from __future__ import annotations

from dpviz.experiments.audit.curve import (
    AuditCurve,
    AuditView,
    audit_curve,
    audit_explorer_run,
    prefetch_audit_curves,
    prepare_audit_curve,
)
from dpviz.experiments.audit.samplers import SamplerFit, sampler_fit
from dpviz.experiments.audit.targets import EXAMPLE_COUNTS as EXAMPLE_COUNTS
from dpviz.experiments.audit.targets import SLOW_TARGETS as SLOW_TARGETS
from dpviz.experiments.audit.targets import TARGETS, AuditTarget, audit_table, audit_target, run_audit
from dpviz.experiments.audit.targets import UNDERNOISE as UNDERNOISE

__all__ = ["AuditTarget", "TARGETS", "audit_target", "run_audit", "audit_table", "AuditCurve", "AuditView",
           "prepare_audit_curve", "audit_curve", "audit_explorer_run", "prefetch_audit_curves", "SamplerFit",
           "sampler_fit"]
