"""Kernel-free explorers: one self-contained HTML page per explorer, its main control precomputed over a grid.

``export("LaplaceExplorer", "laplace.html")`` runs the explorer at 15-25 values of its main control (values the live
slider can show, spread over its range, seeded as the explorer is), records the figure and the side-panel numbers it
shows at each, and writes a page that switches between them in any browser with no Python and no network.
``export_all(directory)`` writes every explorer's page (``make exports``).  This layer sits above
:mod:`dpviz.widgets`; nothing below it imports it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dpviz.export.frames import Snapshot, explorer_names, snapshot
from dpviz.export.grid import GRID_SIZE, grid_values
from dpviz.export.packing import gunzip_base64, unpack
from dpviz.export.page import page_html

__all__ = ["export", "export_all", "read_page", "explorer_names", "grid_values", "MAX_PAGE_BYTES", "MIN_GRID"]

#: The size budget of one page (benchmarks check it too).
MAX_PAGE_BYTES = 3_000_000
#: Fewest grid values a page keeps when it must drop some to fit :data:`MAX_PAGE_BYTES`.
MIN_GRID = 15


def _thin(snap: Snapshot, keep: int) -> Snapshot:
    """``snap`` with ``keep`` of its frames, evenly spread, ends and the start frame kept."""
    n = len(snap.values)
    chosen = sorted({round(i * (n - 1) / (keep - 1)) for i in range(keep)} | {snap.start})
    while len(chosen) > keep:   # the start frame pushed one too many: drop the chosen frame nearest it
        chosen.remove(min((k for k in chosen if k not in (0, n - 1, snap.start)), key=lambda k: abs(k - snap.start)))
    used = sorted({i for k in chosen for i in snap.frames[k]["data"] + list(snap.frames[k]["layout"].values())})
    renumber = {old: new for new, old in enumerate(used)}
    frames = [{"data": [renumber[i] for i in snap.frames[k]["data"]],
               "layout": {key: renumber[i] for key, i in snap.frames[k]["layout"].items()},
               "panels": snap.frames[k]["panels"]} for k in chosen]
    return Snapshot(name=snap.name, title=snap.title, control=snap.control, label=snap.label,
                    values=[snap.values[k] for k in chosen], labels=[snap.labels[k] for k in chosen],
                    start=chosen.index(snap.start), fixed=snap.fixed, pieces=[snap.pieces[i] for i in used],
                    frames=frames)


def export(explorer_name: str, path: str | Path, size: int = GRID_SIZE) -> Path:
    """Write the self-contained interactive page of one explorer.

    Parameters
    ----------
    explorer_name : str
        The explorer's name as in ``dpviz.widgets.__all__``, e.g. ``"LaplaceExplorer"``.
    path : str or Path
        Where to write the HTML file (its folder is created).
    size : int, default GRID_SIZE
        Number of grid values of the main control (at most; fewer when the control shows fewer, or when the page
        would exceed :data:`MAX_PAGE_BYTES`, down to :data:`MIN_GRID`).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ValueError
        If ``explorer_name`` is not an explorer, or ``size`` is not in [2, 101].
    """
    if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= 101:
        raise ValueError(f"size must be an integer in [2, 101], got {size!r}")
    snap = snapshot(explorer_name, size)
    text = page_html(snap)
    keep = len(snap.values)
    while len(text.encode()) > MAX_PAGE_BYTES and keep > MIN_GRID:
        keep = max(MIN_GRID, keep - 2)
        text = page_html(_thin(snap, keep))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def export_all(directory: str | Path, size: int = GRID_SIZE) -> list[Path]:
    """Write ``<directory>/<ExplorerName>.html`` for every explorer of ``dpviz.widgets``.

    Parameters
    ----------
    directory : str or Path
        The folder (created if missing).
    size : int, default GRID_SIZE
        Grid values per explorer (see :func:`export`).

    Returns
    -------
    list of Path
        The files written, in the order of ``dpviz.widgets.__all__``.
    """
    return [export(name, Path(directory) / f"{name}.html", size) for name in explorer_names()]


def _script(text: str, element_id: str) -> str:
    start = text.index(f'id="{element_id}">') + len(f'id="{element_id}">')
    return text[start:text.index("</script>", start)]


def read_page(path: str | Path) -> dict[str, Any]:
    """Read an exported page back: its grid, and each frame's figure and panels as the page shows them.

    Parameters
    ----------
    path : str or Path
        A page written by :func:`export`.

    Returns
    -------
    dict
        ``meta`` (name, control, label, labels, values, start) and ``frames``: per grid value, ``figure``
        (``{"data", "layout"}`` as plotly JSON, typed arrays base64-encoded) and ``panels`` (HTML strings).
    """
    text = Path(path).read_text(encoding="utf-8")
    meta = json.loads(_script(text, "dpviz-meta"))
    packed = json.loads(gunzip_base64(_script(text, "dpviz-frames")))
    pieces = unpack(packed["pieces"], packed["arrays"], gunzip_base64(_script(text, "dpviz-arrays")))
    frames = [{"figure": {"data": [pieces[i] for i in f["data"]],
                          "layout": {k: pieces[i] for k, i in f["layout"].items()}},
               "panels": f["panels"]} for f in packed["frames"]]
    return {"meta": meta, "frames": frames}
