"""Pure functions over counts: p-values and FDR, bounds, power, the continuous test."""
