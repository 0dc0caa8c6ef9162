import hashlib
import re
from importlib import resources

import numpy as np
import pytest

from dpviz import datasets


def _provenance_hashes() -> dict[str, str]:
    text = datasets.provenance()
    return {path: h for h, path in re.findall(r"^([0-9a-f]{64})  (\S+)$", text, flags=re.M)}


def test_shipped_files_match_provenance_checksums():
    hashes = _provenance_hashes()
    assert len(hashes) == 19
    for rel, expected in hashes.items():
        data = (resources.files("dpviz") / "data" / rel).read_bytes()
        assert hashlib.sha256(data).hexdigest() == expected, rel


def test_every_catalogue_entry_is_shipped_and_hashed():
    hashes = _provenance_hashes()
    for name in datasets.names():
        assert datasets.describe(name).filename in hashes


@pytest.mark.parametrize("name,total,k", [("ADULT", 17665, 15), ("MEDCOST", 9415, 26),
                                          ("INCOME", 20787122, 98), ("HEPTH", 347414, 274)])
def test_gptt_histograms_scale_and_k(name, total, k):
    x = datasets.load(name)
    assert x.shape == (4096,) and x.dtype == np.int64
    assert int(x.sum()) == total
    present = set(np.unique(x).tolist())
    kk = -1
    while kk + 1 in present:
        kk += 1
    assert kk == k


def test_load_is_case_insensitive_aliases_and_returns_copies():
    a = datasets.load("adult")
    a[0] = -5
    assert datasets.load("Capital-Loss")[0] != -5
    np.testing.assert_array_equal(datasets.load("medicalcost"), datasets.load("MEDCOST"))


def test_cps_records():
    income = datasets.load("CPS")
    assert income.shape == (49427,)
    assert income.min() == 1 and income.max() == 493356 and int(income.sum()) == 2669422697
    allcols = datasets.load("cps", column="all")
    assert allcols.shape == (49427, 5)
    age = datasets.load("cps", column="age")
    assert age.min() == 15 and age.max() == 90
    assert "Census" in datasets.describe("cps").license


def test_descriptions_have_source_and_licence():
    for name in datasets.names():
        info = datasets.describe(name)
        assert info.source and info.license and info.description
        assert name in str(info)


def test_unknown_names_listed():
    with pytest.raises(ValueError, match="available: ADULT"):
        datasets.load("nope")
    with pytest.raises(TypeError, match="name"):
        datasets.load(3)
    with pytest.raises(ValueError, match="column"):
        datasets.load("CPS", column="salary")


def test_column_is_refused_for_a_histogram_and_checked_for_cps():
    with pytest.raises(ValueError, match="column"):
        datasets.load("adult", column="age")
    with pytest.raises(TypeError, match="column"):
        datasets.load("CPS", column=3)
    with pytest.raises(ValueError, match="column"):
        datasets.load("CPS", column="")
    np.testing.assert_array_equal(datasets.load("CPS"), datasets.load("CPS", column="income"))


# --------------------------------------------------------------------------- integrity (issue 18)
def test_checksums_cover_exactly_the_catalogue_and_match_the_files():
    import hashlib
    from pathlib import Path

    sums = datasets.checksums()
    files = {datasets.describe(n).filename for n in datasets.names()}
    assert set(sums) == files
    root = Path(datasets.__file__).parent / "data"
    for f, want in sums.items():
        assert hashlib.sha256((root / f).read_bytes()).hexdigest() == want, f


DAMAGE = {
    "one flipped byte": lambda b: b[:200] + bytes([b[200] ^ 0x01]) + b[201:],
    "truncated to half": lambda b: b[: len(b) // 2],
    "emptied": lambda b: b"",
    "garbage appended": lambda b: b + b"\x00garbage",
    "another file's bytes": None,   # filled in the test: ADULT <-> HEPTH, CPS <- a histogram
    "deleted": "delete",
}


@pytest.mark.parametrize("damage", list(DAMAGE))
@pytest.mark.parametrize("name", ["ADULT", "CPS"])
def test_a_damaged_data_file_is_refused_with_dpvizs_own_error(tmp_path, monkeypatch, name, damage):
    """4 of 12 corruptions used to load silently with wrong data (ADULT's total 17,665 -> 17,729 for one byte;
    half of CPS); the other 8 failed with numpy/OS errors that did not name the dataset."""
    import shutil
    from pathlib import Path

    import dpviz.datasets as ds

    src = Path(ds.__file__).parent / "data"
    shutil.copytree(src, tmp_path / "data")
    target = tmp_path / "data" / ds.describe(name).filename
    fix = DAMAGE[damage]
    if fix == "delete":
        target.unlink()
    elif fix is None:
        other = "dpbench_1d/HEPTH.n4096.npy" if name == "ADULT" else "dpbench_1d/ADULTFRANK.n4096.npy"
        target.write_bytes((src / other).read_bytes())
    else:
        target.write_bytes(fix(target.read_bytes()))
    monkeypatch.setattr(ds, "_DATA_ROOT", tmp_path / "data")
    ds._read.cache_clear()
    try:
        with pytest.raises(ds.DatasetIntegrityError, match=f"dataset {name}.*{target.name}.*restore"):
            ds.load(name)
    finally:
        monkeypatch.undo()
        ds._read.cache_clear()
    assert int(ds.load("ADULT").sum()) == 17665      # the shipped copy still loads


@pytest.mark.parametrize("name", ["ADULT", "CPS"])
def test_the_bytes_parsed_are_the_bytes_verified(tmp_path, monkeypatch, name):
    """The file is read once: swapped on disk right after its verified read, the loader still returns the verified
    data (it used to read the file a second time to parse it: ADULT came back as HEPTH's counts, sum 347,414)."""
    import shutil
    from pathlib import Path

    import dpviz.datasets as ds

    src = Path(ds.__file__).parent / "data"
    shutil.copytree(src, tmp_path / "data")
    target = tmp_path / "data" / ds.describe(name).filename
    swap = (src / ("dpbench_1d/HEPTH.n4096.npy" if name == "ADULT" else "dpbench_1d/ADULTFRANK.n4096.npy"))
    real_read = Path.read_bytes

    def read_then_swap(self):
        raw = real_read(self)
        if self == target:
            target.write_bytes(swap.read_bytes())     # the file changes between the check and any second read
        return raw

    want = ds.load(name)
    monkeypatch.setattr(ds, "_DATA_ROOT", tmp_path / "data")
    monkeypatch.setattr(Path, "read_bytes", read_then_swap)
    ds._read.cache_clear()
    try:
        np.testing.assert_array_equal(ds.load(name), want)
    finally:
        monkeypatch.undo()
        ds._read.cache_clear()


def test_provenance_without_checksums_is_an_integrity_error(monkeypatch):
    import dpviz.datasets as ds
    monkeypatch.setattr(ds, "provenance", lambda: "# Provenance\nno checksums here\n")
    with pytest.raises(ds.DatasetIntegrityError, match="sha256"):
        ds.checksums()
