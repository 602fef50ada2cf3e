"""The distance engine: how far each row lies from the nearest row of another group.

Exact values (HFM paper, Eq. 4-7) and their approximation by random
projections (Algorithms 1-3).
"""

from skfair_manifold.distances._approx_api import accele_dist, approx_dist, extend_dist
from skfair_manifold.distances._exact_api import extended_set_distance, set_distance

__all__ = [
    "set_distance",
    "extended_set_distance",
    "accele_dist",
    "approx_dist",
    "extend_dist",
]
