"""Harm: each person's probability of necessity or shortfall, the totals, the counterfactuals."""
