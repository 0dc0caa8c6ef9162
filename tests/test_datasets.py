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
