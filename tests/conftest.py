"""Shared test settings."""

import os

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

#: z-value for two-sided statistical tolerances: P(|Z| > 4.5) ~ 7e-6, so a correct
#: implementation fails a seeded test by chance essentially never.
Z = 4.5
