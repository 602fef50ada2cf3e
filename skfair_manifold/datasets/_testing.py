"""What benchmarks and tests need of the data generators that no public name gives.

Who may use it: the scripts of ``benchmarks/`` and the test suite, nobody
else. It is not public API: a name here may change or go in any release,
without notice or deprecation.

Re-exported as they are:

- ``planted_cells(n, rng, share)``: nominal records whose situation is their cell
  (region x edu), women's positive decisions turned negative with probability
  ``share`` in two regions: ``(X, y, flipped, clean)``;
- ``null_decisions(n, rng, kind)``: records whose decisions do not depend on sex,
  ``(X, y)`` (``kind`` "continuous" or "nominal");
- ``fair_rate(income, age, edu, region)``: ``make_planted_bias``'s fair ``P(e+)`` of
  each row (``region`` as its index in ``REGIONS``); ``BIASED_REGIONS``: the regions
  where it plants the bias.
"""

from ._situation_testing import (
    BIASED_REGIONS,
    REGIONS,
    fair_rate,
    null_decisions,
    planted_cells,
)

__all__ = ["BIASED_REGIONS", "REGIONS", "fair_rate", "null_decisions", "planted_cells"]
