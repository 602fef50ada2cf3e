"""The situation-testing report's headline: what the audit found, in sentences."""


def report_headline(report):
    """The flagged by verdict, what the candidates not flagged could have shown, how many
    were harmed (or how much is owed), and a graph without the protected arc."""
    settings = report.settings
    n, m = len(report), settings.get("n_candidates", len(report))
    who = ("protected rows" if settings.get("decision_kind") == "continuous"
           else "protected rows with a negative decision")
    counts = report.verdict_counts()
    verdicts = (": verdicts " + ", ".join(f"{v} {c}" for v, c in counts.items())
                if counts and n else "")
    sentences = [f"{n} of the {m} candidates ({who}) are flagged by the rule"
                 f"{verdicts}. Only 'discriminated' holds at K/2 and 2K testers; "
                 f"'fragile' and 'insufficient' flags are leads, not findings."
                 if n else f"None of the {m} candidates ({who}) is flagged by the rule."]
    quiet = report.not_flagged_gaps()
    if quiet is not None and quiet["n"] and quiet["median"] is not None:
        sentences.append(f"The {quiet['n']} candidates not flagged: with these testers a "
                         f"gap below {quiet['median']:.3g} (the median candidate's) "
                         f"could not have been seen.")
    harm = settings.get("harm") or {}
    level = f"{100 * harm['confidence']:g}%" if harm else ""
    if "expected_harmed" in harm:
        sentences.append(
            f"Expected number refused because protected: {harm['expected_harmed']:.1f} "
            f"({level} interval [{harm['harmed_low']:.1f}, {harm['harmed_high']:.1f}]); "
            f"{harm['more_likely_than_not']} more likely than not harmed (pn_low > 0.5).")
    elif "total_shortfall" in harm:
        sentences.append(
            f"Total shortfall of the protected: {harm['total_shortfall']:.6g} ({level} "
            f"interval [{harm['shortfall_low']:.6g}, {harm['shortfall_high']:.6g}]).")
    if report.provenance.get("protected_arc") is False:
        sentences.append("The causal graph has no arc from the protected attribute to "
                         "the decision: every flag is fragile.")
    return sentences
