"""HFM (Eq. 8): hfm_max, hfm_avg, hfm_report, their options, witnesses and intervals.

The names below are this wing's face for the package's other rooms (the
scorers' entry, the command line's witnesses); inside ``metrics`` the
modules are imported directly.
"""

from ._metrics import scorer_report, warn_kind
from ._witnesses import witness_records

__all__ = ["scorer_report", "warn_kind", "witness_records"]
