"""Exact budget shares for the data-aware mechanisms.

Every data-aware mechanism splits its epsilon into stages (a noisy total, the
rounds of MWEM, the two stages of DAWA).  The shares are computed as exact
fractions, so the stages add up to epsilon with no rounding; the stages are
then charged together with :func:`dpviz.accountant.charge_all` (``size=k``
runs cost ``k * epsilon``; a refusal records nothing).
"""

from __future__ import annotations

from fractions import Fraction

from dpviz.accountant import exact


def _fraction(name: str, value: float) -> Fraction:
    """An exact budget amount (floats read as their shortest decimal, like the accountant)."""
    return exact(name, value)


#: Largest Laplace scale 1/epsilon a stage may use: beyond it, squared errors and sums of noisy answers overflow.
MAX_NOISE_SCALE = 1e100


def _check_stages(params: str, **stages: Fraction) -> None:
    """Refuse up front a stage whose budget is so small that its noise scale 1/eps would overflow later sums.

    ``params`` names the arguments that set the stages (and their values), for the message.
    """
    for stage, eps in stages.items():
        if 0 < eps and eps * Fraction(MAX_NOISE_SCALE) < 1:  # noise scale 1/eps above the cap (exact: a float
            # product underflows to 0 for a subnormal share, and would pass)
            raise ValueError(f"the stage {stage} gets epsilon={float(eps):.3g} (from {params}), whose noise scale "
                             f"1/epsilon exceeds {MAX_NOISE_SCALE:g} and would overflow; use a larger epsilon "
                             f"(each stage needs epsilon >= {1 / MAX_NOISE_SCALE:g})")
