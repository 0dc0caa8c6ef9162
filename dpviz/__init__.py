"""dpviz: teach differential privacy in Jupyter.

The package is layered, and imports only go one way::

    core maths (validation, rng, mechanisms (noise, its calibration, sensitivity),
                accountant, composition, datasets, hierarchy, svt, ...)   numpy + scipy only
      -> experiments      Monte Carlo runs and analytic error, returned as data
      -> plots            pure drawing functions (plotly / matplotlib)
      -> widgets          ipywidgets explorers: controls, one call, one redraw

``import dpviz`` loads none of plotly, matplotlib or ipywidgets; submodules
are imported on first attribute access (``dpviz.hierarchy``, ``dpviz.widgets``).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0"

__all__ = ["__version__"]

#: Modules that moved into a package: ``from dpviz import sensitivity`` keeps working (lecture 01 uses it).
_MOVED = {"sensitivity": "mechanisms.sensitivity", "discrete": "mechanisms"}


def __getattr__(name: str) -> Any:
    """Import ``dpviz.<name>`` lazily so that heavy plotting/widget libraries load only when used.

    Parameters
    ----------
    name : str
        The submodule's name, e.g. ``"hierarchy"``.  ``"sensitivity"`` and
        ``"discrete"`` name modules that moved into :mod:`dpviz.mechanisms`.

    Returns
    -------
    types.ModuleType
        The imported submodule (cached in the package namespace).

    Raises
    ------
    AttributeError
        If there is no such submodule.
    """
    if name.startswith("_"):
        raise AttributeError(name)
    target = f"{__name__}.{_MOVED.get(name, name)}"
    try:
        module = importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name == target:
            raise AttributeError(f"module 'dpviz' has no attribute {name!r}") from None
        raise
    globals()[name] = module
    return module
