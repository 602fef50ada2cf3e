"""Moved to :mod:`skfair_manifold.datasets` (``make_planted_bias``); kept for old imports."""

from ..datasets._situation_testing import (  # noqa: F401
    BIASED_REGIONS,
    REGION_EFFECT,
    REGIONS,
    make_planted_bias,
)
