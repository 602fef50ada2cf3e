"""The group metrics: demographic parity, equal opportunity and predictive quality parity over one cell table (counts per groups, label and prediction), its rates, intervals and GROUP BY."""
