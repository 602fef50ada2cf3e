"""Pure functions over counts: per-person p-values and FDR, bounds of diff, power and the detectable gap, the continuous decision's test. Imports no other wing."""
