import math
from fractions import Fraction

import numpy as np
import pytest

from dpviz import composition as C
from dpviz.accountant import BudgetExceededError, PrivacyAccountant

Z = 4.5


def test_bmi_truth_from_the_table():
    # BMI = 703 w / h^2: 26.96 (M), 33.65 (F), 23.63 (F), 31.88 (M), 28.16 (M)
    np.testing.assert_allclose(C.bmi(C.BMI_TABLE), [26.96, 33.65, 23.63, 31.88, 28.16], atol=0.01)
    np.testing.assert_array_equal(C.bmi_queries(), [0, 3, 1, 2])
    np.testing.assert_array_equal(C.bmi_cells(), [0, 3, 1, 1])


@pytest.mark.parametrize("eps", [0.1, 1.0, 2.5])
def test_lecture_totals(eps):
    assert C.bmi_expected_error(eps, "sequential") == pytest.approx(128 / eps**2)
    assert C.bmi_expected_error(eps, "parallel") == pytest.approx(12 / eps**2)


def test_simulated_total_error_matches_theory():
    k = 100_000
    eps = 0.5
    truth = C.bmi_queries()
    seq = C.bmi_sequential(C.BMI_TABLE, eps, rng=1, size=k)
    par = C.bmi_parallel(C.BMI_TABLE, eps, rng=2, size=k)
    for samples, alg in ((seq, "sequential"), (par, "parallel")):
        per_q = C.bmi_expected_error(eps, alg, per_query=True)
        sq = (samples - truth) ** 2
        total = sq.sum(axis=1)
        se = total.std(ddof=1) / math.sqrt(k)
        assert abs(total.mean() - per_q.sum()) < Z * se
        # Var(X^2) <= 5 v^2 for Laplace and sums of two
        np.testing.assert_allclose(sq.mean(axis=0), per_q, rtol=Z * math.sqrt(5 / k))


def test_accountant_charges():
    acc = PrivacyAccountant(1.0)
    C.bmi_sequential(C.BMI_TABLE, 1.0, accountant=acc, rng=0)
    assert len(acc.history) == 4 and acc.remaining.epsilon == 0.0
    acc2 = PrivacyAccountant(1.0)
    C.bmi_parallel(C.BMI_TABLE, 1.0, accountant=acc2, rng=0)
    assert len(acc2.history) == 1 and acc2.spent.epsilon == 1.0


def test_overspending_plan_refused_and_nothing_recorded():
    # 4 x 0.3 = 1.2 > 1: the plan is refused as a whole, before any noise, and the ledger stays empty
    acc = PrivacyAccountant(1.0)
    with pytest.raises(BudgetExceededError, match="nothing was recorded"):
        C.bmi_sequential(C.BMI_TABLE, 1.0, share=0.3, accountant=acc, rng=0)
    assert acc.history == [] and acc.spent.epsilon == 0.0
    acc.spend(0.5, label="earlier")
    for release in (lambda: C.bmi_parallel(C.BMI_TABLE, 0.3, accountant=acc, rng=0, size=2),
                    lambda: C.bmi_sequential(C.BMI_TABLE, 0.6, accountant=acc, rng=0)):
        with pytest.raises(BudgetExceededError):
            release()
        assert [r.label for r in acc.history] == ["earlier"]
        assert Fraction(acc.history[-1].total_epsilon) == Fraction(1, 2)


@pytest.mark.parametrize("k", [1, 3, 7])
def test_size_k_charges_k_epsilon(k):
    # derived by hand: Algorithm 1 charges 4 queries x share x eps per run, Algorithm 2 eps per run
    # (parallel over disjoint cells); k independent runs compose sequentially: k times that
    acc = PrivacyAccountant(100.0)
    C.bmi_sequential(C.BMI_TABLE, 0.5, share=0.25, accountant=acc, rng=0, size=k)
    assert len(acc.history) == 4
    assert Fraction(acc.history[-1].total_epsilon) == k * Fraction(1, 2)
    acc2 = PrivacyAccountant(100.0)
    C.bmi_parallel(C.BMI_TABLE, 0.5, accountant=acc2, rng=0, size=k)
    assert len(acc2.history) == 1 and Fraction(acc2.history[-1].total_epsilon) == k * Fraction(1, 2)


@pytest.mark.parametrize("release", [C.bmi_sequential, C.bmi_parallel])
def test_accountant_type_checked(release):
    with pytest.raises(TypeError, match="accountant"):
        release(C.BMI_TABLE, 1.0, accountant="acc", rng=0)


def test_advanced_composition_formula_and_inverse():
    eps, k, dp = 0.05, 1000, 1e-6
    total, d = C.advanced_composition(eps, k, dp, delta=1e-9)
    assert total == pytest.approx(math.sqrt(2 * k * math.log(1 / dp)) * eps + k * eps * (math.exp(eps) - 1))
    assert d == pytest.approx(k * 1e-9 + dp)
    e = C.advanced_epsilon_per_query(total, k, dp)
    assert e == pytest.approx(eps, rel=1e-9)
    # advanced composition beats basic for many queries but not for few
    assert C.advanced_epsilon_per_query(1.0, 10_000, 1e-6) > 1.0 / 10_000
    assert C.advanced_epsilon_per_query(1.0, 5, 1e-6) < 1.0 / 5
    assert C.basic_composition(0.1, 10) == (pytest.approx(1.0), 0.0)


def test_bad_inputs():
    with pytest.raises(ValueError, match="epsilon"):
        C.bmi_sequential(C.BMI_TABLE, 0.0)
    with pytest.raises(ValueError, match="share"):
        C.bmi_sequential(C.BMI_TABLE, 1.0, share=1.5)
    with pytest.raises(ValueError, match="algorithm"):
        C.bmi_expected_error(1.0, "magic")
    with pytest.raises(ValueError, match="delta_prime"):
        C.advanced_composition(0.1, 10, 0.0)
    with pytest.raises(ValueError, match="k"):
        C.basic_composition(0.1, 0)


def test_a_laplace_scale_that_overflows_is_refused_before_the_charge():
    # 1 / (1e-9 * 1e-300) overflows: refused before the four charges, so the ledger stays empty
    acc = PrivacyAccountant(1.0)
    with pytest.raises(ValueError, match=r"share \* epsilon.*too small"):
        C.bmi_sequential(C.BMI_TABLE, 1e-300, share=1e-9, accountant=acc, rng=0)
    assert acc.history == []
    with pytest.raises(ValueError, match="epsilon.*too small"):
        C.bmi_parallel(C.BMI_TABLE, 1e-309, accountant=acc, rng=0)
    assert acc.history == []


def test_quarter_shares_fill_any_float_budget_exactly():
    # slider values are arbitrary floats; 4 x (share x eps) must equal eps exactly, never exceed it
    rng = np.random.default_rng(5)
    for eps in np.concatenate([rng.uniform(0.01, 10, 200), [0.9332543007969911, 0.1, 0.3, 1 / 3]]):
        acc = PrivacyAccountant(float(eps))
        C.bmi_sequential(C.BMI_TABLE, float(eps), accountant=acc, rng=0)
        assert acc.remaining.epsilon == 0.0


def test_advanced_epsilon_per_query_for_a_huge_total():
    # root of sqrt(2k ln(1/d')) e + k e (e^e - 1) = total; for total = 1e300, k = 1: e ~ ln(1e300) - ln(e) ~ 684
    e = C.advanced_epsilon_per_query(1e300, 1, 1e-6)
    assert math.isfinite(e) and 680 < e < 691
    lhs = math.sqrt(2 * math.log(1e6)) * e + e * math.expm1(e)
    assert lhs == pytest.approx(1e300, rel=1e-9)


@pytest.mark.parametrize("call,match", [
    (lambda: C.advanced_composition(800.0, 10, 1e-5), "overflows"),
    (lambda: C.basic_composition(1e300, 10**10), "overflows"),
    (lambda: C.basic_composition(1.0, 10, delta=0.5), "vacuous"),
    (lambda: C.advanced_composition(1.0, 10, 1e-5, delta=0.2), "vacuous"),
    (lambda: C.advanced_epsilon_per_query(1e-300, 10**15, 1e-300), "underflows"),
    (lambda: C.basic_composition(1.0, 10**400), "k"),
])
def test_composition_theorems_refuse_results_that_say_nothing(call, match):
    """Review finding: an OverflowError, a total delta of 5.0 and a per-query epsilon of 0.0 came back calmly."""
    with pytest.raises(ValueError, match=match):
        call()
