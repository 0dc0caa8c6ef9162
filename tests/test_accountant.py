from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.accountant import BudgetExceededError, PrivacyAccountant


def test_ten_tenths_fill_one_exactly():
    acc = PrivacyAccountant(1.0)
    for _ in range(10):
        acc.spend(0.1)
    assert acc.remaining.epsilon == 0.0
    assert acc.spent.epsilon == 1.0
    with pytest.raises(BudgetExceededError):
        acc.spend(1e-12)


def test_many_small_spends_never_drift():
    acc = PrivacyAccountant(1.0)
    for _ in range(1000):
        acc.spend(0.001)
    assert acc.remaining.epsilon == 0.0
    assert acc.history[-1].total_epsilon == Fraction(1)


def test_overspend_refused_and_nothing_recorded():
    acc = PrivacyAccountant(1.0, delta=1e-6)
    acc.spend(0.6, label="a")
    before = acc.history
    with pytest.raises(BudgetExceededError, match="'b'.*nothing was recorded"):
        acc.spend(0.5, label="b")
    with pytest.raises(BudgetExceededError):
        acc.spend(0.1, delta=2e-6, label="c")  # epsilon fits, delta does not: still nothing
    assert acc.history == before
    assert acc.remaining.epsilon == pytest.approx(0.4)
    assert acc.can_spend(0.4) and not acc.can_spend(0.41)


def test_parallel_charges_the_maximum():
    acc = PrivacyAccountant(1.0, delta=1e-5)
    row = acc.spend_parallel([0.2, 0.5, 0.3], deltas=[0, 1e-6, 2e-6], label="cells")
    assert row.epsilon == Fraction(1, 2) and row.delta == Fraction(2, 1_000_000)
    assert row.composition == "parallel" and row.parts == 3
    assert acc.spent.epsilon == 0.5
    with pytest.raises(BudgetExceededError):
        acc.spend_parallel([0.6, 0.1])
    assert len(acc.history) == 1


def test_ledger_table_and_html():
    acc = PrivacyAccountant(2.0)
    acc.spend(0.5, label="count")
    acc.spend_parallel([1.0, 1.0], label="halves")
    text = acc.table()
    assert "count" in text and "parallel x2" in text and "remaining: epsilon=0.5" in text
    assert "<table>" in acc._repr_html_()
    assert "spent epsilon=1.5" in repr(acc)


def test_exact_inputs_accepted():
    acc = PrivacyAccountant(Fraction(1, 3))
    acc.spend(Fraction(1, 9))
    acc.spend(Decimal("0.1"))
    acc.spend(Fraction(1, 3) - Fraction(1, 9) - Fraction(1, 10))
    assert acc.remaining.epsilon == 0.0


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_bad_budget(bad):
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyAccountant(bad)


@pytest.mark.parametrize("bad", [-0.1, 1.0, float("nan")])
def test_bad_delta_budget(bad):
    with pytest.raises(ValueError, match="delta"):
        PrivacyAccountant(1.0, delta=bad)


def test_bad_spends():
    acc = PrivacyAccountant(1.0)
    with pytest.raises(ValueError, match="epsilon"):
        acc.spend(-0.1)
    with pytest.raises(ValueError, match="epsilon"):
        acc.spend(float("nan"))
    with pytest.raises(TypeError, match="epsilon"):
        acc.spend("0.1")
    with pytest.raises(ValueError, match="epsilon=0"):
        acc.spend(0)
    with pytest.raises(ValueError, match="at least one"):
        acc.spend_parallel([])
    with pytest.raises(ValueError, match="deltas"):
        acc.spend_parallel([0.1, 0.1], deltas=[0.0])
    with pytest.raises(TypeError, match="label"):
        acc.spend(0.1, label=3)
    assert acc.history == []


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(min_value=1e-6, max_value=0.5, allow_nan=False), min_size=1, max_size=30))
def test_never_exceeds_budget(spends):
    acc = PrivacyAccountant(1.0)
    for s in spends:
        try:
            acc.spend(s)
        except BudgetExceededError:
            pass
    total = sum(r.epsilon for r in acc.history)
    assert total <= 1
    assert total == (acc.history[-1].total_epsilon if acc.history else 0)
