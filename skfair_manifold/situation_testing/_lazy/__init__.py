"""CBN-DD where the data lives: fit, flag and per-cell verdicts of a lazy frame."""
