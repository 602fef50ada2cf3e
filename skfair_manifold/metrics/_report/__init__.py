"""The group report: fairness_report, its report objects, rows, HFM section and scores."""
