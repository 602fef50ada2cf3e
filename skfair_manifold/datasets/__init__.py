"""Data sets: loaders of the papers' data and generators of synthetic data."""

from skfair_manifold.datasets._generators import make_biased_decisions

__all__ = ["make_biased_decisions"]
