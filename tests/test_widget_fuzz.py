"""The explorers' controls under the widget fuzzer (tests/widget_fuzz.py): nothing clipped, raised, foreign or stale."""

from __future__ import annotations

import pytest

from tests.widget_fuzz import explorers, fuzz


@pytest.mark.parametrize("cls", explorers(), ids=lambda c: c.__name__)
def test_controls_refuse_bad_values_and_the_figure_matches_the_controls(cls):
    counts, failures = fuzz(cls, changes=60, seed=1)
    assert not failures, "\n".join(failures[:20])
    assert counts["refused"] > 0 and counts["accepted"] > 0
