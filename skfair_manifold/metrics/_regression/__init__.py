"""The metrics of a continuous outcome: group moments, t intervals, KS and Wasserstein."""
