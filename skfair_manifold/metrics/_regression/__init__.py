"""The metrics of a continuous outcome: per-group moments, t intervals, KS and Wasserstein distances, in memory and on lazy frames."""
