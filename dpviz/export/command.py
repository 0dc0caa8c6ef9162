"""``python -m dpviz.export.command DIRECTORY [NAME ...]``: write the explorers' pages (default: all)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from dpviz.export import explorer_names, export


def main(argv: list[str]) -> int:
    """Export the named explorers (default: all) into the folder ``argv[0]``; print each page's size.

    Parameters
    ----------
    argv : list of str
        The folder, then optionally explorer names (as in ``dpviz.widgets.__all__``).

    Returns
    -------
    int
        The exit status: 0, or 2 without a folder.
    """
    if not argv:
        print("usage: python -m dpviz.export.command DIRECTORY [ExplorerName ...]", file=sys.stderr)
        return 2
    directory = Path(argv[0])
    for name in argv[1:] or explorer_names():
        start = time.perf_counter()
        path = export(name, directory / f"{name}.html")
        print(f"{path}: {path.stat().st_size / 1e6:.2f} MB in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
