"""The bias audit: selection or scoring rates and impact ratios, unknowns bounded."""
