"""The group report: fairness_report, FairnessReport and RegressionReport, the report's rows, HFM section, scores and target type."""
