"""Interactive explorers (ipywidgets + plotly FigureWidget).

Each explorer is a class with public ``controls`` (dict of ipywidgets),
``figure`` (plotly ``FigureWidget``), ``result`` (the last computed result)
and ``message``; see :class:`dpviz.widgets.base.Explorer`.  Explorers are
imported lazily, so ``import dpviz.widgets`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPLORERS = {
    "Explorer": "base",
    "PrivacyLossExplorer": "privacy_loss",
    "LaplaceExplorer": "laplace",
    "CompositionExplorer": "composition",
    "SubsamplingExplorer": "subsampling",
    "CompositionBoundsExplorer": "composition_bounds",
    "HierarchyExplorer": "hierarchy",
    "MatrixMechanismExplorer": "matrix_mechanism",
    "SumQueryExplorer": "sums",
    "GPTTAttackExplorer": "gptt",
    "AuditExplorer": "audit",
    "AlgorithmComparisonExplorer": "comparison",
    "SelectionExplorer": "selection",
}

__all__ = list(_EXPLORERS)


def __getattr__(name: str) -> Any:
    """Import an explorer class on first access (``dpviz.widgets.LaplaceExplorer``)."""
    if name in _EXPLORERS:
        module = importlib.import_module(f"{__name__}.{_EXPLORERS[name]}")
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dpviz.widgets' has no attribute {name!r}")
