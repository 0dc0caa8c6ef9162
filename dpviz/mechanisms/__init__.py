"""Noise mechanisms: THE one place in dpviz where noise is calibrated and drawn.

Every Laplace or Gaussian noise scale, variance or quantile used anywhere in
dpviz comes from a function of this package (``laplace_scale``,
``laplace_variance``, ``laplace_quantile``, ``gaussian_sigma``, ...); other
modules call them instead of re-deriving ``sensitivity / epsilon``.  A
mechanism is a pure function of (true answers, parameters, ``rng``) that
returns noisy answers; ``size=k`` draws k independent releases stacked on a
new first axis, so Monte Carlo experiments are one vectorised call.  Each
sampler has its closed-form error beside it.

**Every draw of a release is made here.**  The rule: a random draw belongs to this package when the output
distribution of a release depends on it, whether the release is epsilon-DP or broken (GPTT): the noise added
to answers or scores (``laplace``, ``gaussian``, the discrete samplers, and the bare draws ``scaled_laplace``,
``standard_laplace``, ``standard_gumbel``, ``standard_exponential``) and the coins a mechanism flips on the
data's behalf (``standard_uniform``, ``binomial_heads``: subsampling, the exponential mechanism's inverse-cdf
draw, permute-and-flip's order and coins, DAWA's partition, GPTT's query copies).  Randomness that never meets
the private data is not noise of a release and may use a Generator directly: random workloads, an optimiser's
starting points, the matrix mechanism's fixed numerical probe, the SVT attack's hash multipliers, and the
experiments' synthetic data, random query ranges and seeds.  ``tests/test_architecture.py`` fails on any
other direct draw outside this package and lists each exception with its reason (the exercises are not
checked: a student writing ``x + rng.laplace(...)`` is the exercise).

**Floating point.**  These draws are floating-point numbers.  Mironov (CCS 2012) showed that the low-order
bits of floating-point Laplace outputs can reveal the input, so the epsilon dpviz states for a release with
float noise is that of the idealised real-valued mechanism (lecture 07, section 7).  For integer answers,
``sampler="discrete"`` or ``"exact"`` in :func:`laplace` and :func:`gaussian` adds integer noise instead.

Files
-----
``laplace_noise.py``
    The Laplace mechanism: ``laplace_scale`` (b = sensitivity / epsilon), the
    samplers ``laplace``, ``standard_laplace`` and ``scaled_laplace``, and its closed forms
    ``laplace_variance``, ``laplace_quantile``, ``laplace_halfwidth``,
    ``epsilon_for_laplace_halfwidth``.
``gaussian_noise.py``
    The Gaussian mechanism: ``gaussian_delta`` (exact delta) and its inverse
    ``gaussian_epsilon``, ``gaussian_sigma`` (analytic or classic calibration), the sampler ``gaussian``,
    ``gaussian_variance`` and ``gaussian_halfwidth``.
``randomized_response_noise.py``
    Randomized response (Warner 1965), the first mechanism of the course: the sampler
    ``randomized_response``, its calibration ``randomized_response_probability`` (and its inverse
    ``randomized_response_epsilon``), the output distribution ``randomized_response_pmf``, the unbiased
    ``randomized_response_estimate`` of a proportion and its ``randomized_response_variance``.
``selection_noise.py``
    ``selection_scale``: the scale ``2 Delta / epsilon`` (``Delta / epsilon`` for monotone scores) of the
    exponential mechanism, report-noisy-max and permute-and-flip (lecture 09, :mod:`dpviz.selection`), and
    report-noisy-max's unit noise ``standard_gumbel`` and ``standard_exponential``.
``coin_noise.py``
    The coins of randomised mechanisms: ``standard_uniform`` (coins, random orders, inverse-cdf draws) and
    ``binomial_heads`` (how many of n coins land heads).
``accuracy.py``
    ``expected_squared_error`` of a whole release (Laplace or Gaussian).
``sensitivity.py``
    ``l1`` and ``l2``: sensitivity of a linear query matrix (largest column norm).
``discrete_laplace_noise.py``
    Exact integer noise, discrete Laplace: ``discrete_laplace``,
    ``discrete_laplace_pmf``, ``discrete_laplace_mechanism``.
``discrete_gaussian_noise.py``
    Exact integer noise, discrete Gaussian: ``discrete_gaussian``,
    ``discrete_gaussian_pmf``, ``discrete_gaussian_delta``,
    ``discrete_gaussian_sigma``, ``discrete_gaussian_mechanism``.
``exact_coins.py``
    Private: exact rational coins from raw random bits, and the one-draw exact
    samplers built on them.
``release.py``
    Private: the sampler choices and the checks of answers and output shapes
    every release shares.

The file names end in ``_noise`` so that no submodule is named like a function
it holds (``dpviz.mechanisms.laplace`` is the function, not a module).

References
----------
- [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. "Calibrating Noise to
  Sensitivity in Private Data Analysis." TCC 2006.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential
  Privacy." Foundations and Trends in TCS 9(3-4), 2014.
- [BW18] B. Balle, Y.-X. Wang. "Improving the Gaussian Mechanism for
  Differential Privacy: Analytical Calibration and Optimal Denoising." ICML 2018.
- [CKS20] C. L. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for
  Differential Privacy." NeurIPS 2020.
- [War65] S. L. Warner. "Randomized Response: A Survey Technique for Eliminating
  Evasive Answer Bias." Journal of the American Statistical Association 60(309), 1965.
- [MT07] F. McSherry, K. Talwar. "Mechanism Design via Differential Privacy." FOCS 2007.
- [MS20] R. McKenna, D. Sheldon. "Permute-and-Flip: A New Mechanism for Differentially
  Private Selection." NeurIPS 2020.
- [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
  Linear Counting Queries Under Differential Privacy." PODS 2010.
"""

from __future__ import annotations

from dpviz.mechanisms.accuracy import expected_squared_error
from dpviz.mechanisms.coin_noise import binomial_heads, standard_uniform
from dpviz.mechanisms.discrete_gaussian_noise import (
    discrete_gaussian,
    discrete_gaussian_delta,
    discrete_gaussian_mechanism,
    discrete_gaussian_pmf,
    discrete_gaussian_sigma,
)
from dpviz.mechanisms.discrete_laplace_noise import (
    discrete_laplace,
    discrete_laplace_mechanism,
    discrete_laplace_pmf,
)
from dpviz.mechanisms.gaussian_noise import (
    GAUSSIAN_CALIBRATIONS,
    gaussian,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_halfwidth,
    gaussian_sigma,
    gaussian_variance,
)
from dpviz.mechanisms.laplace_noise import (
    epsilon_for_laplace_halfwidth,
    laplace,
    laplace_halfwidth,
    laplace_quantile,
    laplace_scale,
    laplace_variance,
    scaled_laplace,
    standard_laplace,
)
from dpviz.mechanisms.randomized_response_noise import (
    randomized_response,
    randomized_response_epsilon,
    randomized_response_estimate,
    randomized_response_pmf,
    randomized_response_probability,
    randomized_response_variance,
)
from dpviz.mechanisms.selection_noise import selection_scale, standard_exponential, standard_gumbel
from dpviz.mechanisms.sensitivity import l1, l2

__all__ = [
    # the Laplace and Gaussian mechanisms (today's dpviz.mechanisms)
    "laplace",
    "laplace_scale",
    "standard_laplace",
    "scaled_laplace",
    "laplace_variance",
    "laplace_halfwidth",
    "laplace_quantile",
    "epsilon_for_laplace_halfwidth",
    "gaussian",
    "gaussian_sigma",
    "GAUSSIAN_CALIBRATIONS",
    "gaussian_variance",
    "gaussian_halfwidth",
    "gaussian_delta",
    "gaussian_epsilon",
    "expected_squared_error",
    # randomized response (lecture 00)
    "randomized_response",
    "randomized_response_probability",
    "randomized_response_epsilon",
    "randomized_response_pmf",
    "randomized_response_estimate",
    "randomized_response_variance",
    # private selection (exponential mechanism, report-noisy-max, permute-and-flip)
    "selection_scale",
    "standard_gumbel",
    "standard_exponential",
    # the coins of randomised mechanisms
    "standard_uniform",
    "binomial_heads",
    # exact integer noise (formerly dpviz.discrete)
    "discrete_laplace",
    "discrete_gaussian",
    "discrete_laplace_pmf",
    "discrete_gaussian_pmf",
    "discrete_gaussian_delta",
    "discrete_gaussian_sigma",
    "discrete_laplace_mechanism",
    "discrete_gaussian_mechanism",
    # sensitivity of linear queries (formerly dpviz.sensitivity)
    "l1",
    "l2",
]
