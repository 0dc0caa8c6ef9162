"""Experiments for lecture 00 (what differential privacy promises): exact quantities beside simulations.

Files
-----
``loss_view.py``
    ``PrivacyLossView`` and ``privacy_loss_view``: the explorer's two output distributions and their privacy
    loss, exact and simulated, for randomized response, Laplace and Gaussian (``LOSS_MECHANISMS``).
``survey.py``
    ``SurveyExperiment`` and ``survey_experiment``: randomized response on a survey, the debiased estimate's
    simulated variance beside its closed form.
``post_processing.py``
    ``PostProcessing`` and ``post_processing_losses``: the exact loss of a rounded-and-clamped and of a
    thresholded Laplace count, never above the raw release's.
``adversary.py``
    ``PosteriorCheck`` / ``posterior_check`` (randomized response attains the posterior bound, simulated on a
    population), ``PosteriorCurves`` / ``posterior_curves`` and ``GroupAudit`` / ``group_audit`` (the
    auditor's lower bound on a group's loss beside k eps).
"""

from __future__ import annotations

from dpviz.experiments.definition.adversary import (
    GroupAudit,
    PosteriorCheck,
    PosteriorCurves,
    group_audit,
    posterior_check,
    posterior_curves,
)
from dpviz.experiments.definition.loss_view import LOSS_MECHANISMS, PrivacyLossView, privacy_loss_view
from dpviz.experiments.definition.post_processing import PostProcessing, post_processing_losses
from dpviz.experiments.definition.survey import SurveyExperiment, survey_experiment

__all__ = ["LOSS_MECHANISMS", "PrivacyLossView", "privacy_loss_view", "SurveyExperiment", "survey_experiment",
           "PostProcessing", "post_processing_losses", "PosteriorCheck", "posterior_check", "PosteriorCurves",
           "posterior_curves", "GroupAudit", "group_audit"]
