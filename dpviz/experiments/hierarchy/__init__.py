"""Experiments for the hierarchies lecture: simulated range-query error beside the exact analytic error.

Everything here returns dataclasses of numpy arrays (never figures).  The
analytic numbers come from :mod:`dpviz.hierarchy` and :mod:`dpviz.wavelet`;
the simulations draw real releases (Flat, H_b, H_b with constrained
inference, Privelet) and measure their squared error on range queries.

Where things are
----------------
``data.py``
    The histograms: :func:`coarsen`, :func:`synthetic_histogram`,
    :func:`dataset_histogram`, and :func:`default_widths`.
``widths.py``
    Error by range width: :data:`METHODS`, :data:`METHOD_LABELS`,
    :class:`WidthCurves`, :func:`range_error_by_width`.
``explorer.py``
    What the hierarchy explorer draws: :class:`CoverNodes`, :class:`HierarchyRun`,
    :func:`hierarchy_explorer_run`.
``prepared.py``
    The explorer's runs on a named dataset, cached and prepared in the background:
    :func:`hierarchy_dataset_run`, :func:`prefetch_hierarchy_runs`.
``picture.py``
    One small tree drawn node by node: :class:`TreePicture`, :func:`tree_picture`.
``branching.py``
    Choosing b and the allocation: :class:`BranchingStudy`, :func:`branching_study`,
    :func:`allocation_study`.
``dimensions.py``
    d-dimensional grids: :func:`dimension_study`, :class:`DimensionSimulation`,
    :func:`dimension_simulation`.

References
----------
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
  Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
- [XWG10] X. Xiao, G. Wang, J. Gehrke. "Differential Privacy via Wavelet
  Transforms." ICDE 2010.
"""

from __future__ import annotations

from dpviz.experiments.hierarchy.branching import BranchingStudy, allocation_study, branching_study
from dpviz.experiments.hierarchy.data import coarsen, dataset_histogram, default_widths, synthetic_histogram
from dpviz.experiments.hierarchy.dimensions import DimensionSimulation, dimension_simulation, dimension_study
from dpviz.experiments.hierarchy.explorer import CoverNodes, HierarchyRun, hierarchy_explorer_run
from dpviz.experiments.hierarchy.picture import MAX_PICTURE_LEAVES, TreePicture, tree_picture
from dpviz.experiments.hierarchy.prepared import hierarchy_dataset_run, prefetch_hierarchy_runs
from dpviz.experiments.hierarchy.widths import METHOD_LABELS, METHODS, WidthCurves, range_error_by_width

__all__ = [
    "METHODS",
    "METHOD_LABELS",
    "coarsen",
    "synthetic_histogram",
    "dataset_histogram",
    "default_widths",
    "WidthCurves",
    "range_error_by_width",
    "CoverNodes",
    "HierarchyRun",
    "hierarchy_explorer_run",
    "hierarchy_dataset_run",
    "prefetch_hierarchy_runs",
    "MAX_PICTURE_LEAVES",
    "TreePicture",
    "tree_picture",
    "BranchingStudy",
    "branching_study",
    "allocation_study",
    "dimension_study",
    "DimensionSimulation",
    "dimension_simulation",
]
