"""The privacy-critical mutants of ``python -m benchmarks.mutation`` (``make mutation``).

Each line below is a place where a wrong constant is a wrong privacy guarantee or a wrong error bar: a noise
calibration, a sensitivity, a budget split, the accountant, constrained inference.  Each mutant names the test
files that must catch it.
"""

from __future__ import annotations

from benchmarks.mutation import Mutant

MECH = ("tests/test_mechanisms.py",)
HIER = ("tests/test_hierarchy.py",)

MUTANTS = (
    # ------------------------------------------------------------------ calibration
    Mutant("Laplace scale halved", "dpviz/mechanisms/laplace_noise.py",
           'b = check_nonnegative("sensitivity", sensitivity) / check_epsilon(epsilon, name)',
           'b = check_nonnegative("sensitivity", sensitivity) / (2 * check_epsilon(epsilon, name))', MECH),
    Mutant("Laplace sampler draws half the scale", "dpviz/mechanisms/laplace_noise.py",
           "checked + as_generator(rng).laplace(0.0, b, size=shape)",
           "checked + as_generator(rng).laplace(0.0, 0.5 * b, size=shape)", MECH),
    Mutant("classic Gaussian: 1.25 -> 2.5 inside the log", "dpviz/mechanisms/gaussian_noise.py",
           "_finite_sigma(math.sqrt(2.0 * math.log(1.25 / delta)) * d / eps, d, eps, delta)",
           "_finite_sigma(math.sqrt(2.0 * math.log(1.25 / (2 * delta))) * d / eps, d, eps, delta)", MECH),
    Mutant("discrete Gaussian calibrated for a real (not integer) shift", "dpviz/mechanisms/discrete_gaussian_noise.py",
           "return float(max(1, math.floor(sensitivity * (1 + 1e-12))))",
           "return float(max(1.0, sensitivity))", ("tests/test_discrete.py",)),
    Mutant("SVT query noise without the factor c", "dpviz/svt/sparse_vector_technique.py",
           "return laplace_scale(delta, eps1), laplace_scale(factor * c * delta, eps2)",
           "return laplace_scale(delta, eps1), laplace_scale(factor * delta, eps2)", ("tests/test_svt.py",)),
    Mutant("SQM per-query budget not divided by m", "dpviz/sums/sqm.py",
           "* sens * laplace_scale(m, eps_ans)", "* sens * laplace_scale(1, eps_ans)", ("tests/test_sums.py",)),
    Mutant("MWEM measurement noise halved", "dpviz/data_aware/mwem_algorithm.py",
           "meas[:, t] = truth[idx] + gen.laplace(0.0, laplace_scale(1.0, em), size=k)",
           "meas[:, t] = truth[idx] + gen.laplace(0.0, laplace_scale(0.5, em), size=k)",
           ("tests/test_data_aware.py",)),
    Mutant("DAWA bucket noise halved", "dpviz/data_aware/dawa_algorithm.py",
           "return z + gen.laplace(0.0, laplace_scale(1.0, eps2), size=z.size)",
           "return z + gen.laplace(0.0, laplace_scale(0.5, eps2), size=z.size)", ("tests/test_data_aware.py",)),
    Mutant("hierarchy level noise at twice the level budget", "dpviz/hierarchy/release.py",
           "scale[tree.offsets[l]: tree.offsets[l + 1]] = laplace_scale(1.0, eps_l[l])",
           "scale[tree.offsets[l]: tree.offsets[l + 1]] = laplace_scale(1.0, 2 * eps_l[l])", HIER),
    Mutant("matrix mechanism noise ignores the strategy's L1 sensitivity", "dpviz/matrix_mechanism/release.py",
           "y = mechanisms.laplace(truth_a, ls.l1, epsilon, rng=rng, size=size)",
           "y = mechanisms.laplace(truth_a, 1.0, epsilon, rng=rng, size=size)", ("tests/test_matrix_mechanism.py",)),
    # ------------------------------------------------------------------ sensitivity
    Mutant("L1 sensitivity as the largest row sum", "dpviz/mechanisms/sensitivity.py",
           "return np.asarray(abs(mat).sum(axis=0)).ravel()", "return np.asarray(abs(mat).sum(axis=1)).ravel()",
           ("tests/test_sensitivity.py",)),
    Mutant("L2 sensitivity without the square root", "dpviz/mechanisms/sensitivity.py",
           "return np.sqrt(np.asarray(mat.multiply(mat).sum(axis=0)).ravel())",
           "return np.asarray(mat.multiply(mat).sum(axis=0)).ravel()", ("tests/test_sensitivity.py",)),
    # ------------------------------------------------------------------ budget splits
    Mutant("geometric allocation ratio b^(1/2) instead of b^(1/3)", "dpviz/hierarchy/budgets.py",
           "w[lv] = float(tree.branching) ** (-lv / 3.0)", "w[lv] = float(tree.branching) ** (-lv / 2.0)", HIER),
    Mutant("optimal allocation with square roots instead of cube roots", "dpviz/hierarchy/budgets.py",
           "w[lv] = np.cbrt(level_usage(tree)[lv])", "w[lv] = np.sqrt(level_usage(tree)[lv])",
           ("tests/test_hierarchy_budgets.py", *HIER)),
    Mutant("advanced composition without the k eps (e^eps - 1) term", "dpviz/composition/theorems.py",
           "total = math.sqrt(2 * k * math.log(1 / dp)) * eps + k * eps * math.expm1(eps)",
           "total = math.sqrt(2 * k * math.log(1 / dp)) * eps", ("tests/test_composition.py",)),
    # ------------------------------------------------------------------ accountant
    Mutant("can_spend ignores delta", "dpviz/accountant/privacy_accountant.py",
           "return e + eps <= self._epsilon and d + dlt <= self._delta", "return e + eps <= self._epsilon",
           ("tests/test_accountant.py",)),
    Mutant("repeat=k charged once", "dpviz/accountant/privacy_accountant.py",
           "return int(repeat) * eps, int(repeat) * dlt", "return eps, dlt", ("tests/test_accountant.py",)),
    Mutant("parallel composition charges the minimum", "dpviz/accountant/privacy_accountant.py",
           "eps, dlt = max(eps_list), max(dlt_list)", "eps, dlt = min(eps_list), min(dlt_list)",
           ("tests/test_accountant.py",)),
    Mutant("a spend may overshoot the budget", "dpviz/accountant/privacy_accountant.py",
           "if e + eps > self._epsilon or d + dlt > self._delta:",
           "if e + eps > 2 * self._epsilon or d + dlt > self._delta:",
           ("tests/test_accountant.py",)),
    Mutant("charge_all records without checking the total", "dpviz/accountant/charging.py",
           "if not acc.can_spend(eps_total, dlt_total):", "if False:", ("tests/test_accountant.py",)),
    # ------------------------------------------------------------------ the size=k rule at each release
    Mutant("hierarchy.measure charges one release for size=k", "dpviz/hierarchy/release.py",
           "    charge(accountant, epsilon, size=size,\n", "    charge(accountant, epsilon, size=None,\n", HIER),
    Mutant("flat_release charges one release for size=k", "dpviz/hierarchy/release.py",
           'charge(accountant, epsilon, size=size, label="flat histogram")',
           'charge(accountant, epsilon, size=None, label="flat histogram")', HIER),
    Mutant("sum-query release charges one release for size=k", "dpviz/sums/pipeline.py",
           "charge_all(acc, stages, size=size)", "charge_all(acc, stages, size=None)", ("tests/test_sums.py",)),
    Mutant("sparse vector charges one run for size=k", "dpviz/svt/sparse_vector_technique.py",
           'charge(accountant, check_epsilon(epsilon), size=size, label=f"sparse vector (c={c})")',
           'charge(accountant, check_epsilon(epsilon), size=None, label=f"sparse vector (c={c})")',
           ("tests/test_svt.py",)),
    Mutant("matrix mechanism charges one release for size=k", "dpviz/matrix_mechanism/release.py",
           "charge(accountant, epsilon, 0.0 if delta is None else delta, size=size,",
           "charge(accountant, epsilon, 0.0 if delta is None else delta, size=None,",
           ("tests/test_matrix_mechanism.py",)),
    Mutant("Privelet charges one release for size=k", "dpviz/wavelet/release.py",
           'charge(accountant, epsilon, size=size, label=f"Privelet (Haar wavelet), n={n}")',
           'charge(accountant, epsilon, size=None, label=f"Privelet (Haar wavelet), n={n}")',
           ("tests/test_wavelet.py",)),
    Mutant("MWEM charges one run for size=k", "dpviz/data_aware/mwem_algorithm.py",
           "charge_all(accountant, stages, size=size)", "charge_all(accountant, stages, size=None)",
           ("tests/test_data_aware.py",)),
    Mutant("BMI Algorithm 1 charges one release for size=k", "dpviz/composition/bmi_example.py",
           "charge_all(accountant, charges, size=size)", "charge_all(accountant, charges, size=None)",
           ("tests/test_composition.py",)),
    # ------------------------------------------------------------------ constrained inference
    Mutant("constrained inference weights node and children the wrong way round", "dpviz/hierarchy/inference.py",
           "own.append(S / (V[l] + S))", "own.append(V[l] / (V[l] + S))", HIER),
    Mutant("constrained inference spreads the gap evenly", "dpviz/hierarchy/inference.py",
           "share.append(below[l - 1] / np.repeat(S, b)[: tree.sizes[l - 1]])",
           "share.append(np.full(tree.sizes[l - 1], 1.0 / b))", HIER),
    # ------------------------------------------------------------------ the GPTT attack as published (reproduction)
    Mutant("GPTT attack: Algorithm 3 groups by answer rows only", "dpviz/svt/partition.py",
           'columns = grouping == "row_and_column"', "columns = False", ("tests/test_svt.py",)),
    Mutant("GPTT attack: expected accuracy ignores the columns", "dpviz/svt/expected_accuracy.py",
           'if grouping == "row_and_column":', "if False:", ("tests/test_svt.py",)),
)
