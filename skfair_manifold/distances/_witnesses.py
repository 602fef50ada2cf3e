"""Who the distances are about: the rows behind each maximum, and the rows a model moved.

The maximum of Eq. 4 is decided by one row and the nearest row of another
group; a reader of "HFM max 0.12" can look at both. The nearest row is found
by a plain search over all rows (:func:`._exact.nearest_scaled`), with the
engine's pair values, so the distance shown equals the engine's bit for bit.
"""

import numpy as np
from sklearn.utils import Bunch

from skfair_manifold.distances._exact import nearest_scaled
from skfair_manifold.distances._numerics import scaled_features

#: Rows in the table of the rows whose distance the model changed most.
N_CHANGED = 10
LABEL_NAMES = ("y_true", "y_pred")


def witnesses(X, labels, codes, names, groups, rows, *, minmax=None):
    """The people behind the maxima, and the rows the model moved most.

    ``rows`` (2, K, n) are the row distances of the true labels and of the
    predictions (exact or approximate). ``maxima``: per label vector and
    attribute, the row of the largest row distance (the first such row;
    with the approximation, the largest approximate one), the nearest row of
    another group found by a plain search over all rows, both groups and the
    exact distance between them; ``overall`` marks the attribute of Eq. 6's
    maximum. ``changed``: the ``N_CHANGED`` rows whose mean distance over
    the attributes moved most from the true labels to the predictions
    (``d_f - d``, largest magnitude first, ties by row). ``minmax``: the
    min-max scaling of ``X`` the engines applied (see :func:`._numerics.min_max`).
    """
    Z, scale = scaled_features(X, minmax)  # once for every search below
    maxima = []
    for l, name in enumerate(LABEL_NAMES):
        found = []
        for k, attribute in enumerate(names):
            i = int(np.argmax(rows[l, k]))
            j, dist = nearest_scaled(Z, scale, np.asarray(labels[l], dtype=np.float64),
                                     np.asarray(codes[k]), [i])
            found.append(Bunch(labels=name, attribute=attribute, row=i,
                               group=groups[k][codes[k][i]], nearest_row=int(j[0]),
                               nearest_group=groups[k][codes[k][j[0]]],
                               distance=float(dist[0]), overall=False))
        top = max(range(len(found)), key=lambda k: (found[k].distance, -k))
        found[top].overall = True
        maxima.extend(found)
    d, d_f = rows[0].mean(axis=0), rows[1].mean(axis=0)
    change = d_f - d
    order = np.lexsort((np.arange(change.size), -np.abs(change)))[:N_CHANGED]
    changed = [Bunch(row=int(i), d=float(d[i]), d_f=float(d_f[i]), change=float(change[i]))
               for i in order]
    return Bunch(maxima=maxima, changed=changed)
