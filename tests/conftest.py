"""Shared test settings."""

import os

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

#: z-value for two-sided statistical tolerances: P(|Z| > 4.5) ~ 7e-6, so a correct
#: implementation fails a seeded test by chance essentially never.
Z = 4.5

# `pytest --slow` runs the property-based suites with many more examples (hypothesis profile "slow").
from hypothesis import settings  # noqa: E402

settings.register_profile("slow", max_examples=2000, deadline=None)


def pytest_addoption(parser):  # type: ignore[no-untyped-def]
    parser.addoption("--slow", action="store_true", default=False,
                     help="run the property-based suites with 2000 examples each")


def pytest_configure(config):  # type: ignore[no-untyped-def]
    if config.getoption("--slow"):
        settings.load_profile("slow")
