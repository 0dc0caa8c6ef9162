"""Real datasets shipped with dpviz, with their provenance.

The DPBench one-dimensional histograms (domain 4096) and the CPS income
records are copied byte for byte into ``dpviz/data`` so notebooks work on
Binder and from a wheel.  ``dpviz/data/PROVENANCE.md`` gives the source
commits, checksums and licensing notes.

References
----------
- [HMMCZ16] M. Hay, A. Machanavajjhala, G. Miklau, Y. Chen, D. Zhang.
  "Principled Evaluation of Differentially Private Algorithms using
  DPBench." SIGMOD 2016.
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

__all__ = ["DatasetInfo", "DatasetIntegrityError", "names", "load", "describe", "provenance", "checksums",
           "CPS_COLUMNS"]

_DPBENCH_SOURCE = ("DPBench (Hay et al., SIGMOD 2016), dpcomp-org/dpcomp_core "
                   "dpcomp_core/datafiles/1D, commit 233cfcc3")
_DPBENCH_LICENSE = ("no stated licence: research benchmark data; cite DPBench and the original source, "
                    "do not re-license")
CPS_COLUMNS = ("income", "age", "marital", "race", "sex")


@dataclass(frozen=True)
class DatasetInfo:
    """What a shipped dataset is, where it came from and under which terms.

    Parameters
    ----------
    name : str
        The dataset's name, as listed by :func:`names`.
    kind : str
        ``"histogram"`` (a 1-D array of counts) or ``"records"`` (one row per person).
    description : str
        What the data measure.
    source : str
        Where the file was copied from (repository and commit).
    license : str
        The terms under which it may be used.
    filename : str
        Path of the file under ``dpviz/data``.

    Examples
    --------
    >>> describe("adult").kind
    'histogram'
    """

    name: str
    kind: str  # "histogram" or "records"
    description: str
    source: str
    license: str
    filename: str

    def __str__(self) -> str:
        return f"{self.name} ({self.kind}): {self.description}\n  source: {self.source}\n  licence: {self.license}"


def _hist(name: str, filename: str, description: str) -> DatasetInfo:
    """Catalogue entry of a DPBench 1-D histogram."""
    return DatasetInfo(name, "histogram", description, _DPBENCH_SOURCE, _DPBENCH_LICENSE, f"dpbench_1d/{filename}")


_CATALOGUE: dict[str, DatasetInfo] = {
    info.name: info
    for info in [
        _hist("ADULT", "ADULTFRANK.n4096.npy", "UCI Adult census, 'capital loss' attribute, 4096 bins"),
        _hist("HEPTH", "HEPTH.n4096.npy", "arXiv HEP-TH citation network, citations per paper, 4096 bins"),
        _hist("INCOME", "INCOME.n4096.npy", "IPUMS-USA personal income 2001-2011, 4096 bins"),
        _hist("MEDCOST", "MEDCOST.n4096.npy",
              "2007 National Home and Hospice Care Survey, personal medical expenses, 4096 bins"),
        _hist("NETTRACE", "NETTRACE.n4096.npy",
              "university IP-level trace, external connections per internal host, 4096 bins"),
        _hist("PATENT", "PATENT.n4096.npy", "NBER US patents 1963-1999, citations per patent, 4096 bins"),
        _hist("SEARCHLOGS", "SEARCHLOGS.n4096.npy", "frequency of the search term 'Obama' over time, 2004-2010"),
        _hist("BIDS-ALL", "bids.npy", "Kaggle 'human or bot' auction bids per IP"),
        _hist("BIDS-FJ", "bids_j.npy", "Kaggle bids per IP, merchandise = jewelry"),
        _hist("BIDS-FM", "bids_m.npy", "Kaggle bids per IP, merchandise = mobile"),
        _hist("MDSALARY", "GrossCompenMDSalary1.npy", "Maryland state salaries 2012, YTD gross compensation"),
        _hist("MDSALARY-FA", "GrossCompenMDSalary2_filtered.npy",
              "Maryland state salaries 2012, pay-type = Annually"),
        _hist("LC-REQ-ALL", "RejectStats_0_4096_no_outliers.npy", "Lending Club rejected loans, amount requested"),
        _hist("LC-REQ-F1", "RejectStats_0_4096_no_outliers_filter_7_1.npy",
              "Lending Club rejected loans, amount requested, employment 0-5 years"),
        _hist("LC-REQ-F2", "RejectStats_0_4096_no_outliers_filter_7_2.npy",
              "Lending Club rejected loans, amount requested, employment 5-10 years"),
        _hist("LC-DTIR-ALL", "RejectStats_4_4096_no_outliers.npy",
              "Lending Club rejected loans, debt-to-income ratio"),
        _hist("LC-DTIR-F1", "RejectStats_4_4096_no_outliers_filter_7_1.npy",
              "Lending Club rejected loans, debt-to-income ratio, employment 0-5 years"),
        _hist("LC-DTIR-F2", "RejectStats_4_4096_no_outliers_filter_7_2.npy",
              "Lending Club rejected loans, debt-to-income ratio, employment 5-10 years"),
        DatasetInfo(
            "CPS", "records",
            "U.S. Current Population Survey extract, 49,427 people; columns income, age, marital, race, sex. "
            "Income is in dollars (1 to 493,356), not binned",
            "dpcomp-org/hdmm branch master, src/app/data/uploads/CPS.csv (commit 736ec521); "
            "the ektelo 'CPS' relation",
            "U.S.-government public-use microdata (Census CPS); the hosting repository states no licence",
            "cps/CPS.csv",
        ),
    ]
}

_ALIASES = {
    "CAPITAL-LOSS": "ADULT", "ADULTFRANK": "ADULT", "ADULT-CAPITAL-LOSS": "ADULT",
    "MEDICALCOST": "MEDCOST", "MEDICAL-COST": "MEDCOST", "BIDS": "BIDS-ALL",
}


def names() -> list[str]:
    """List the names of the shipped datasets (the DPBench 1-D histograms, then ``"CPS"``).

    Returns
    -------
    list of str
        The names :func:`load` accepts.

    Examples
    --------
    >>> names()[0], names()[-1]
    ('ADULT', 'CPS')
    """
    return list(_CATALOGUE)


def _resolve(name: str) -> DatasetInfo:
    """The catalogue entry of ``name`` (case-insensitive, aliases allowed)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    key = name.strip().upper().replace("_", "-")
    key = _ALIASES.get(key, key)
    if key not in _CATALOGUE:
        raise ValueError(f"unknown dataset {name!r}; available: {', '.join(names())}")
    return _CATALOGUE[key]


def describe(name: str) -> DatasetInfo:
    """Describe a shipped dataset: what it is, its source and its licence.

    Parameters
    ----------
    name : str
        One of :func:`names` (case-insensitive; aliases as in :func:`load`).

    Returns
    -------
    DatasetInfo
        The dataset's catalogue entry (``print`` it for a readable summary).

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        For an unknown name (the message lists the available ones).

    Examples
    --------
    >>> describe("cps").kind
    'records'
    """
    return _resolve(name)


class DatasetIntegrityError(OSError):
    """A shipped data file is missing or differs from the checksum PROVENANCE.md lists for it.

    Parameters
    ----------
    message : str
        What is wrong: the dataset, the file and how to restore it.

    Examples
    --------
    >>> issubclass(DatasetIntegrityError, OSError)
    True
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)


#: Where the data files live; tests point it at a damaged copy.
_DATA_ROOT: Path | None = None


def _data_dir() -> Path:
    """The folder of the shipped data (``dpviz/data``) as a filesystem path."""
    return _DATA_ROOT if _DATA_ROOT is not None else Path(str(resources.files("dpviz") / "data"))


def checksums() -> dict[str, str]:
    """The sha256 of every shipped data file, as listed in the ``## sha256`` block of ``PROVENANCE.md``.

    Returns
    -------
    dict of str to str
        File path under ``dpviz/data`` -> hexadecimal sha256.

    Raises
    ------
    DatasetIntegrityError
        If PROVENANCE.md has no ``## sha256`` block.

    Examples
    --------
    >>> len(checksums()["cps/CPS.csv"])
    64
    """
    parts = provenance().split("## sha256", 1)
    blocks = parts[1].split("```") if len(parts) == 2 else []
    if len(blocks) < 3:
        raise DatasetIntegrityError("PROVENANCE.md has no ## sha256 block of checksums; "
                                    f"{_restore_hint('PROVENANCE.md')}")
    return {m.group(2): m.group(1) for m in re.finditer(r"^([0-9a-f]{64})\s+(\S+)$", blocks[1], re.M)}


def _restore_hint(filename: str) -> str:
    return (f"restore it with `git checkout -- dpviz/data/{filename}` in a clone of dpviz, or reinstall the "
            "package (`pip install --force-reinstall dpviz`)")


@functools.cache
def _read(filename: str, name: str) -> np.ndarray:
    """The read-only array stored in ``dpviz/data/<filename>``, its sha256 checked (read once, then cached)."""
    path = _data_dir() / filename
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DatasetIntegrityError(f"dataset {name}: cannot read {path} ({type(exc).__name__}); "
                                    f"{_restore_hint(filename)}") from None
    want = checksums().get(filename)
    got = hashlib.sha256(raw).hexdigest()
    if want is None or got != want:
        raise DatasetIntegrityError(f"dataset {name}: {path} is damaged (sha256 {got[:12]}..., PROVENANCE.md "
                                    f"lists {(want or 'nothing')[:12]}...); {_restore_hint(filename)}")
    # parse the bytes that were verified, never the file a second time (it could change in between)
    if filename.endswith(".npy"):
        arr = np.load(io.BytesIO(raw), allow_pickle=False)
    else:
        # CPS.csv has CR line endings; universal newlines (newline=None) read it correctly
        arr = np.loadtxt(io.StringIO(raw.decode("ascii"), newline=None), delimiter=",", skiprows=1, dtype=np.int64)
    arr.setflags(write=False)
    return arr


def load(name: str, column: str | None = None) -> np.ndarray:
    """Load a shipped dataset as a numpy array (a fresh, writable copy).

    Parameters
    ----------
    name : str
        One of :func:`names` (case-insensitive; ``"capital-loss"`` and
        ``"medicalcost"`` are accepted aliases).
    column : str, optional
        For the ``"CPS"`` records only: which column to return, one of
        ``income`` (the default), ``age, marital, race, sex``, or ``"all"`` for
        the (49427, 5) int64 matrix.  A histogram has no columns: giving one
        is refused rather than ignored.

    Returns
    -------
    numpy.ndarray
        For a histogram: int64 counts of shape (4096,).  For CPS: the column.

    Raises
    ------
    TypeError
        If ``name`` or ``column`` is not a str.
    ValueError
        For an unknown name (the message lists the available ones) or column, or a
        column given for a histogram.
    DatasetIntegrityError
        If the file is missing or its sha256 differs from the one ``PROVENANCE.md`` lists (checked at the
        first load in a process); the message names the dataset and how to restore the file.

    Examples
    --------
    >>> x = load("adult")
    >>> x.shape, int(x.sum())
    ((4096,), 17665)
    """
    info = _resolve(name)
    if column is not None and not isinstance(column, str):
        raise TypeError(f"column must be a str or None, got {type(column).__name__}")
    if info.kind != "records" and column is not None:
        raise ValueError(f"column={column!r} applies only to the CPS records; {name!r} is a histogram "
                         "with no columns: omit column")
    column = "income" if column is None else column
    data = _read(info.filename, info.name)
    if info.kind == "records":
        if column == "all":
            return data.copy()
        if column not in CPS_COLUMNS:
            raise ValueError(f"column must be one of {', '.join(CPS_COLUMNS)} or 'all'; got {column!r}")
        return data[:, CPS_COLUMNS.index(column)].copy()
    return data.copy()


def provenance() -> str:
    """Return the text of the shipped ``PROVENANCE.md`` (sources, commits, checksums, licences).

    Returns
    -------
    str
        The Markdown text.

    Examples
    --------
    >>> provenance().startswith("#")
    True
    """
    return (resources.files("dpviz") / "data" / "PROVENANCE.md").read_text(encoding="utf-8")   # not _DATA_ROOT
