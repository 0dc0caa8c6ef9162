"""dpviz: teach differential privacy in Jupyter.

The package is layered, and imports only go one way::

    core maths (validation, rng, mechanisms, sensitivity, accountant, composition,
                datasets, hierarchy, svt, ...)       numpy + scipy only
      -> experiments      Monte Carlo runs and analytic error, returned as data
      -> plots            pure drawing functions (plotly / matplotlib)
      -> widgets          ipywidgets explorers: controls, one call, one redraw

``import dpviz`` loads none of plotly, matplotlib or ipywidgets; submodules
are imported on first attribute access (``dpviz.hierarchy``, ``dpviz.widgets``).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__"]


def __getattr__(name: str) -> Any:
    """Import ``dpviz.<name>`` lazily so that heavy plotting/widget libraries load only when used."""
    if name.startswith("_"):
        raise AttributeError(name)
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{name}":
            raise AttributeError(f"module 'dpviz' has no attribute {name!r}") from None
        raise
    globals()[name] = module
    return module
