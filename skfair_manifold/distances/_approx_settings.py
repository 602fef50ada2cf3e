"""The approximation's settings: the paper's m2, n_vectors checked, the projections drawn."""

import math

import numpy as np
from sklearn.utils import check_random_state


MSG_N_VECTORS = (
    "n_vectors={n_vectors} orthogonal vectors do not fit in {n_dims} dimensions (the label "
    "and the features); use n_vectors <= 1 + n_features."
)


def default_m2(n_samples):
    """The paper's comparison count, ``ceil(2 * log10(n))`` (at least 1)."""
    return max(1, math.ceil(2 * math.log10(max(n_samples, 2))))


def resolve_settings(n_samples, n_features, m2, n_vectors):
    """Check ``n_vectors`` against the dimension and return the ``m2`` to use.

    Shared by the public distance functions and the metric layer, which
    validate their other options themselves.
    """
    if n_vectors > n_features + 1:
        raise ValueError(MSG_N_VECTORS.format(n_vectors=n_vectors, n_dims=n_features + 1))
    return default_m2(n_samples) if m2 is None else m2


def draw_projections(n_dims, m1, n_vectors, random_state):
    """``m1`` sets of ``n_vectors`` orthonormal vectors, as columns.

    Each set is the Q factor of a Gaussian matrix, so its vectors are
    orthonormal and uniformly oriented; every coordinate lies in [-1, 1] as
    Algorithm 2 asks.
    """
    rng = check_random_state(random_state)
    blocks = []
    for _ in range(m1):
        q, r = np.linalg.qr(rng.standard_normal((n_dims, n_vectors)))
        blocks.append(q * np.sign(np.diag(r)))  # unique sign, reproducible
    return np.hstack(blocks)
