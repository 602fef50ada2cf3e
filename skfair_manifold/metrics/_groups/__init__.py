"""The group metrics (DP, EO, PQP) over one cell table: its rates, intervals and GROUP BY."""
