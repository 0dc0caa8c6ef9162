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
    assert "count" in text and "parallel, 2 parts" in text and "remaining: epsilon=0.5" in text
    assert "<table>" in acc._repr_html_() and "parallel, 2 parts" in acc._repr_html_()
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


# --------------------------------------------------------------------------- one accounting rule (issue 13)
def test_can_spend_respects_the_delta_budget():
    """delta is often the binding constraint: a can_spend that ignored it would answer True here."""
    acc = PrivacyAccountant(10.0, delta=1e-5)
    assert acc.can_spend(0.1, 1e-5)
    assert not acc.can_spend(0.1, 2e-5)
    acc.spend(0.1, 6e-6)
    assert not acc.can_spend(0.1, 6e-6)  # 1.2e-5 > 1e-5
    assert acc.can_spend(0.1, 4e-6)


@pytest.mark.parametrize("epsilon,delta,exc", [
    (0.1, 1.5, ValueError), (0.1, -1e-9, ValueError), (0.1, float("nan"), ValueError), (0, 0, ValueError),
    ("0.1", 0, TypeError), (0.1, None, TypeError), (float("inf"), 0, ValueError), (True, 0, TypeError),
])
def test_can_spend_refuses_what_spend_refuses(epsilon, delta, exc):
    acc = PrivacyAccountant(1.0, delta=0.5)
    with pytest.raises(exc) as err:
        acc.can_spend(epsilon, delta)
    with pytest.raises(exc) as err2:
        acc.spend(epsilon, delta)
    assert type(err.value) is type(err2.value)
    assert acc.history == []


@pytest.mark.parametrize("k", [1, 2, 7, 50])
def test_repeat_charges_k_times_in_one_row(k):
    acc = PrivacyAccountant(100.0, delta=0.5)
    row = acc.spend(0.3, 1e-4, label="release", repeat=k)
    # sequential composition of k (0.3, 1e-4)-DP mechanisms, derived by hand as exact decimals
    assert row.epsilon == Fraction(3, 10) * k and row.delta == Fraction(1, 10_000) * k
    assert acc.spent.epsilon == pytest.approx(0.3 * k, rel=1e-15)
    assert row.parts == k and len(acc.history) == 1
    assert ("sequential" if k == 1 else f"sequential x{k}") in acc.table()


@pytest.mark.parametrize("repeat,exc", [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError),
                                        ("3", TypeError)])
def test_bad_repeat(repeat, exc):
    acc = PrivacyAccountant(1.0)
    with pytest.raises(exc, match="repeat"):
        acc.spend(0.1, repeat=repeat)
    assert acc.history == []


def test_charge_is_size_times_epsilon():
    from dpviz.accountant import charge

    acc = PrivacyAccountant(10.0)
    assert charge(acc, 0.25, size=None, label="one") is not None
    charge(acc, 0.25, size=8, label="eight")
    assert [r.epsilon for r in acc.history] == [Fraction(1, 4), Fraction(2)]
    assert acc.history[-1].label == "eight x8"
    assert charge(None, 0.25, size=8, label="no ledger") is None


@pytest.mark.parametrize("bad", ["acc", 1, object(), [PrivacyAccountant(1.0)]])
def test_charge_type_checks_the_accountant(bad):
    from dpviz.accountant import charge, charge_all

    with pytest.raises(TypeError, match="accountant"):
        charge(bad, 0.1, label="x")
    with pytest.raises(TypeError, match="accountant"):
        charge_all(bad, [("x", 0.1, 0.0)])


def test_charge_validates_even_without_an_accountant():
    from dpviz.accountant import charge

    with pytest.raises(ValueError, match="delta"):
        charge(None, 0.1, 2.0, label="x")
    with pytest.raises(ValueError, match="size"):
        charge(None, 0.1, size=0, label="x")


def test_charge_all_is_all_or_nothing():
    from dpviz.accountant import charge_all

    acc = PrivacyAccountant(1.0)
    acc.spend(0.5, label="earlier")
    with pytest.raises(BudgetExceededError, match="nothing was recorded"):
        charge_all(acc, [("threshold", 0.25, 0.0), ("answers", 0.5, 0.0)])  # 0.75 > 0.5 left
    assert len(acc.history) == 1
    rows = charge_all(acc, [("threshold", 0.1, 0.0), ("answers", 0.15, 0.0)], size=2)
    assert [r.epsilon for r in rows] == [Fraction(1, 5), Fraction(3, 10)]
    assert acc.remaining.epsilon == 0.0
    with pytest.raises(ValueError, match="charges"):
        charge_all(acc, [])


def test_charge_parts_records_parallel_composition():
    from dpviz.accountant import charge

    acc = PrivacyAccountant(10.0)
    row = charge(acc, 0.5, size=3, label="4 disjoint cells", parts=4)
    # three releases, each measuring 4 disjoint parts at 0.5: parallel within a release, sequential across
    assert row is not None and row.epsilon == Fraction(3, 2) and row.composition == "parallel" and row.parts == 4
    # "x3" (three releases) stays visible in the label, and the four parts are not written "x4"
    assert "4 disjoint cells x3" in acc.table() and "parallel, 4 parts" in acc.table() and "x4" not in acc.table()
    with pytest.raises(ValueError, match="parts"):
        charge(acc, 0.5, label="x", parts=0)


def test_charge_all_checks_every_label_before_recording():
    from dpviz.accountant import charge_all

    acc = PrivacyAccountant(1.0)
    with pytest.raises(TypeError, match=r"charges\[1\]"):
        charge_all(acc, [("threshold", 0.1, 0.0), (None, 0.1, 0.0)])
    assert acc.history == []
