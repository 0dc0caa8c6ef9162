"""The discrete mechanisms on a grid that is not a power of two: what they release must not depend on the input.

Mironov's attack on float Laplace noise reads the low bits of ``answer + noise``.  The discrete mechanisms avoid it
only if what they release is a function of the noisy *grid point* alone: with granularity 0.1, ``0.4 + 0.1 * 3``
is 0.7000000000000001 but ``0.5 + 0.1 * 2`` is 0.7, so releasing ``answer + g * noise`` in floating point tells
the two inputs apart.  Three independent checks, each of which fails on the code that released ``answer + g * noise``:

* the supports, enumerated: every noise value j in a window is fed through the public mechanism (its sampler
  replaced by the enumeration) on two neighbours D and D' = D + g; the grid point k = D/g + j must be released
  as the same double whichever input produced it, and that double is the one nearest ``k * g`` (``g`` read as a
  decimal), computed here with exact rationals;
* the supports, sampled: with the real samplers, every value seen on D in the central window is seen on D' too;
* the auditor, given the leak event "the output is not of the form 0.5 + 0.1 k", must not disprove epsilon = 1 at
  99.9 % confidence (it printed epsilon >= 7.54 before).
"""

from fractions import Fraction

import numpy as np
import pytest

from dpviz import audit
from dpviz.mechanisms import discrete_gaussian_mechanism, discrete_laplace_mechanism, laplace
from dpviz.mechanisms import discrete_gaussian_noise as dg_module
from dpviz.mechanisms import discrete_laplace_noise as dl_module

GRANULARITIES = [0.1, 1 / 3, 0.25, 1e-3]


def _nearest_double(k: int, g: float) -> float:
    """The double nearest ``k * g`` with ``g`` read as the shortest decimal that prints as it (exact rationals)."""
    return float(Fraction(k) * Fraction(repr(g)))


def _enumerated(mechanism, answer: float, g: float, window: int, monkeypatch) -> np.ndarray:
    """The mechanism's output for each noise value j = -window..window, in that order (sampler replaced)."""
    noise = np.arange(-window, window + 1, dtype=np.int64)

    def enumerate_noise(*args, size=None, **kwargs):
        assert size == noise.size
        return noise.copy()

    module, name = mechanism
    monkeypatch.setattr(module, name, enumerate_noise)
    fn = discrete_laplace_mechanism if name == "discrete_laplace" else discrete_gaussian_mechanism
    args = (g, 1.0) if name == "discrete_laplace" else (g, 1.0, 1e-5)
    return fn([answer], *args, granularity=g, size=noise.size).ravel()


@pytest.mark.parametrize("g", GRANULARITIES)
@pytest.mark.parametrize("mechanism", [(dl_module, "discrete_laplace"), (dg_module, "discrete_gaussian")],
                         ids=["laplace", "gaussian"])
def test_enumerated_supports_on_neighbours_coincide(g, mechanism, monkeypatch):
    window = 400
    d_units = 4   # D = 4 g, D' = 5 g: one record of weight g added
    d, d_prime = 4 * g, 5 * g
    out_d = _enumerated(mechanism, d, g, window, monkeypatch)
    out_d_prime = _enumerated(mechanism, d_prime, g, window, monkeypatch)
    # grid point k = d_units + j from D and k = d_units + 1 + j' from D': the same k must give the same bits
    assert np.array_equal(out_d[1:], out_d_prime[:-1])
    support_d, support_d_prime = set(out_d[1:].tolist()), set(out_d_prime[:-1].tolist())
    assert support_d == support_d_prime
    # and the bits are those of the nearest double to k * g (g a decimal), where k * p fits in a double
    frac = Fraction(repr(g))
    for j, value in zip(range(-window, window + 1), out_d, strict=True):
        k = d_units + j
        if frac.denominator <= 2**53:
            assert value == _nearest_double(k, g)
        else:   # 1/3 prints as 0.3333333333333333: the release is k * g in floating point, still k's alone
            assert value == k * g


@pytest.mark.parametrize("g", GRANULARITIES)
def test_sampled_outputs_on_d_are_possible_on_d_prime(g):
    """With the real (fast) samplers: every value seen on D near the centre is seen on D' as well."""
    n = 200_000
    d, d_prime = 4 * g, 5 * g
    for release in (lambda x, s: discrete_laplace_mechanism([x], g, 1.0, granularity=g, size=n, rng=s),
                    lambda x, s: discrete_gaussian_mechanism([x], g, 1.0, 1e-5, granularity=g, size=n, rng=s)):
        out_d, out_d_prime = release(d, 1).ravel(), release(d_prime, 2).ravel()
        # within +-6 grid steps of both centres each grid point has probability >= 1e-3 under both inputs
        # (Laplace at t = 1 grid step: 0.46 e^-6 = 1.1e-3; the Gaussian's sigma is 3.7 steps): seen ~200 times
        central = out_d[np.abs(out_d / g - 4.5) <= 6]
        unseen = set(central.tolist()) - set(out_d_prime.tolist())
        assert not unseen, f"g={g}: {sorted(unseen)[:5]} released from D but never from D'"


def test_exact_sampler_releases_the_same_grid_values():
    out = discrete_laplace_mechanism([0.4], 0.1, 1.0, granularity=0.1, size=2000, rng=3, method="exact").ravel()
    k = np.rint(out / 0.1).astype(int)
    assert all(v == _nearest_double(int(kk), 0.1) for v, kk in zip(out, k, strict=True))


def test_auditor_given_the_leak_event_does_not_disprove_the_claim():
    """The event that separated the inputs when answers + g * noise was released: 'not of the form 0.5 + 0.1 k'."""
    def off_d_prime_lattice(y):
        y = np.asarray(y).ravel()
        k = np.rint((y - 0.5) / 0.1)
        return y != 0.5 + 0.1 * k

    event = audit.PredicateEvent(off_d_prime_lattice, "output is not 0.5 + 0.1k")
    for name, mech in [
        ("laplace", lambda x, rng, size: discrete_laplace_mechanism(x, 0.1, 1.0, granularity=0.1, rng=rng,
                                                                    size=size)),
        ("gaussian", lambda x, rng, size: discrete_gaussian_mechanism(x, 0.1, 1.0, 1e-5, granularity=0.1,
                                                                      rng=rng, size=size)),
    ]:
        delta = 0.0 if name == "laplace" else 1e-5
        res = audit.epsilon_lower_bound(mech, np.array([0.4]), np.array([0.5]), event=event, samples=200_000,
                                        confidence=0.999, delta=delta, claimed_epsilon=1.0, rng=11)
        assert not res.violation, (name, res.epsilon_lower)
        assert res.epsilon_lower <= 1.0


@pytest.mark.parametrize("answer", [0.3, 0.6, 0.7, 1.2, 0.1 + 0.2, -0.7, 123456.7])
def test_decimal_answers_are_on_the_grid(answer):
    out = discrete_laplace_mechanism([answer], 0.1, 1.0, granularity=0.1, rng=0, size=50)
    assert np.all(np.abs(out / 0.1 - np.rint(out / 0.1)) < 1e-6)


@pytest.mark.parametrize("answer, pattern", [(0.35, "multiples of granularity"), (0.3 + 1e-7, "multiples"),
                                             (1e20, "grid steps from 0")])
def test_off_grid_or_far_answers_are_refused(answer, pattern):
    with pytest.raises(ValueError, match=pattern):
        discrete_laplace_mechanism([answer], 0.1, 1.0, granularity=0.1, rng=0)
    with pytest.raises(ValueError, match=pattern):
        discrete_gaussian_mechanism([answer], 0.1, 1.0, 1e-5, granularity=0.1, rng=0)


def test_integer_grid_releases_are_unchanged():
    """Granularity 1 (the default, and ``laplace(..., sampler="discrete")``): answer + noise, as integers."""
    out = laplace([3.0, 10.0], 1.0, 0.5, rng=7, size=1000, sampler="discrete")
    assert np.all(out == np.round(out))
    noise = dl_module.discrete_laplace(2.0, size=2000, rng=7)
    assert np.array_equal(out.ravel(), np.tile([3.0, 10.0], 1000) + noise)


def test_answers_just_off_the_grid_are_calibrated_for_the_integer_shift(monkeypatch):
    """Answers accepted within the grid tolerance can round to grid points a whole step further apart than their
    sensitivity: 0.9e-9 and 2 - 0.9e-9 (sensitivity 1.9999999982 steps) land on grid points 0 and 2.  The noise
    must be calibrated for a shift of 2: the discrete Gaussian's exact delta at that shift is at most the delta
    claimed, and the discrete Laplace spends at most epsilon on it."""
    a, b = 0.9e-9, 2 - 0.9e-9
    seen = {}

    def capture(module, name):
        real = getattr(module, name)

        def wrapped(scale, **kw):
            seen[name] = scale
            return real(scale, **kw)
        monkeypatch.setattr(module, name, wrapped)

    capture(dg_module, "discrete_gaussian")
    capture(dl_module, "discrete_laplace")
    from fractions import Fraction

    from dpviz.mechanisms import discrete_gaussian_delta
    out_a = discrete_gaussian_mechanism([a], b - a, 1.0, 1e-5, rng=0, size=10)
    out_b = discrete_gaussian_mechanism([b], b - a, 1.0, 1e-5, rng=0, size=10)
    assert np.array_equal(out_b - out_a, np.full((10, 1), 2.0))     # the grid points really are 2 apart
    assert discrete_gaussian_delta(seen["discrete_gaussian"], 2.0, 1.0) <= 1e-5
    discrete_laplace_mechanism([a], b - a, 1.0, rng=0, size=10)
    assert 2 / Fraction(seen["discrete_laplace"]) <= 1     # a shift of 2 grid points at scale t spends 2 / t
