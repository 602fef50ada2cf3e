"""Results as plain Python values: what ``to_dict`` of every result hands to JSON and HTML."""

from numbers import Integral, Real

import numpy as np


def plain_values(obj, undefined=None):
    """numpy values to Python ones, nan and inf to ``undefined`` (recursively)."""
    def _plain(value):
        return plain_values(value, undefined)

    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (Integral, np.integer)):
        return int(obj)
    if isinstance(obj, (Real, np.floating)):
        value = float(obj)
        return value if np.isfinite(value) else undefined
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)


