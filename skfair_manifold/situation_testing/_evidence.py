"""The evidence of situation testing: a long table and one object per person.

``SituationTestingAuditor.report`` returns a :class:`SituationTestingReport`.
Its structure is stable (a report renderer builds on it):

``report.summary`` -- dict of equal-length arrays, one entry per flagged
person (``report.summary_frame()`` is the pandas version):
    ``row`` (position in X), ``p1``, ``p2``, ``diff``, ``diff_lower``,
    ``diff_upper``, ``p_value`` (the exact one-sided test of ``p1 <= p2``),
    ``q_value`` (its false discovery rate across the audit's candidates),
    ``n1``, ``n2`` (testers on each side), ``n1_eff``, ``n2_eff``
    (effective testers), ``rule`` (the flag rule, a string), ``verdict``
    and ``verdict_reason`` (see ``_verdict``), ``detectable_gap`` (the
    smallest ``p1 - p2`` these testers would have flagged with probability
    0.8, see ``_power``).

``report.audit`` -- dict of arrays over every row of X: ``candidate``
(protected group, negative decision), ``flagged``, ``p_value``,
``q_value`` (NaN outside the candidates), ``verdict``,
``verdict_reason`` (``""`` outside the candidates) and ``detectable_gap``
(NaN outside the candidates, and where no gap up to ``p1 = 1`` would be
flagged with probability 0.8); for a yes/no decision ``pn``, ``pn_low``,
``pn_high`` (each candidate's probability of necessity and its interval at
``1 - alpha_test``, see ``_harm``) and ``more_likely_than_not``
(``pn_low > 0.5``); for an amount ``shortfall``, ``shortfall_low``,
``shortfall_high``. NaN outside the candidates.

``report.harm`` -- a DataFrame, one row per CBN-DD situation (its values
of ``q_``) and a last row ``"total"``: ``candidates``,
``expected_harmed``, ``harmed_low``, ``harmed_high`` (an amount:
``total_shortfall``, ``shortfall_low``, ``shortfall_high``);
``report.settings["harm"]`` the totals, the confidence, the calibration
and the assumptions in words. ``report.counterfactual`` (None unless
``counterfactual_decisions`` was given the report) the model's flips beside
the verdicts.

``report.provenance`` -- what the evidence rests on: ``package`` (name and
version), ``date`` (UTC), ``options`` (the auditor's parameters),
``graph`` and ``graph_source`` (``"given"`` or ``"learned"``, None for
KNN-DD), ``protected_arc`` and ``column_kinds`` (column -> its kind and
whether it was ``"declared"`` or ``"inferred"``). The CLI adds
``input_file`` and ``input_sha256``.

``report.settings`` -- the audit's settings and counts: ``method`` (and
``method_title``; ``distance``: how CBN-DD weighs the causes, None for
KNN-DD), ``k``, ``tau``, ``flag_rule``, ``rule``, ``bound``,
``alpha_test``, ``fdr``, ``fdr_method`` (and its name, ``fdr_name``), ``protected``,
``protected_value``, ``decision``, ``positive_label``, ``n_rows``,
``n_candidates``, ``n_flagged``, ``q``, ``columns``, ``attribute_kinds``,
``bin_edges``, ``identifier_columns`` (and ``alpha``, ``n_bins`` for a
method with a graph).

``report.records`` -- column -> the values of the fitted records that are
testers of a flagged person (``report.record_rows``: their fitted
positions, sorted); with the claimants' values, what the page shows.

``report.to_html()`` -- the evidence page (``skfair_manifold._html``'s
``_evidence_page`` renders it; the command line's ``audit --html`` writes
the same page).

``report.testers`` -- dict of equal-length arrays, one entry per flagged
person, side and *cell* of equally treated fitted records
(``report.frame()`` is the pandas version, the long DataFrame):
    ``row``; ``side`` (``"unprotected"``: S+, ``"protected"``: S-);
    ``certain`` (every record of the cell is a tester); ``distance`` (from
    the person); ``n_records`` and ``n_positive`` (records of the cell
    available to this person and their positive decisions); ``weight`` (the
    probability that each record of the cell is a tester, 1 when certain);
    ``testers`` and ``positives`` (``weight * n_records`` and
    ``weight * n_positive``: per person and side they sum to ``n`` and
    ``p * n``); ``cell`` (the unit id under KNN-DD, the subgroup id under
    CBN-DD); then the cell's attribute values: under KNN-DD a cell is a set
    of identical records, with every column and the decision; under CBN-DD
    it is one side of a subgroup, with the values of ``q_`` (interval
    attributes as their bin).

``report[i]`` -- a :class:`PersonEvidence` (a dict) for the ``i``-th
flagged person (its keys: the class's docstring).

The report holds arrays, strings and numbers only: it pickles, and renders
without the auditor.
"""

from collections.abc import Sequence

import numpy as np

from .._html import render_evidence
from ..utils._plain import plain_values
from ._headline import report_headline
from ._stats._power import not_flagged_gaps

SIDES = np.array(["unprotected", "protected"], dtype=object)

#: the verdicts a flagged person can have (``_verdict``), in the order they are counted
FLAGGED_VERDICTS = ("discriminated", "fragile", "insufficient")

_NUMBERS = ("p1", "p2", "mean1", "mean2", "diff", "diff_lower", "diff_upper", "p_value",
            "q_value", "n1", "n2", "diff_se", "df", "detectable_gap")


class PersonEvidence(dict):
    """The evidence for one person: a dict with attribute access.

    Made by :class:`SituationTestingReport` on access. Keys: ``row``,
    ``method``, ``k``, ``claimant`` (column -> value), ``decision``, ``p1``,
    ``p2``, ``diff``, ``diff_lower``, ``diff_upper``, ``n1``, ``n2``,
    ``rule``, ``testers`` (the person's rows of the long table, as dicts),
    ``testers_unprotected`` and ``testers_protected`` (fitted row positions
    of every record with a positive weight, the person's own row excluded),
    ``weights_unprotected``, ``weights_protected`` and
    ``decisions_unprotected``, ``decisions_protected``.
    """

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class SituationTestingReport(Sequence):
    """Evidence of every flagged person: a sequence of :class:`PersonEvidence`.

    Built by :meth:`SituationTestingAuditor.report`; the per-person objects
    are made on access (``report[i]``, ``report.person(row)``).

    Attributes
    ----------
    summary : dict of ndarray
        One entry per flagged person: ``row`` (position in X), ``p1``,
        ``p2``, ``diff``, ``diff_lower``, ``diff_upper``, ``p_value``,
        ``q_value``, ``n1``, ``n2`` (testers), ``n1_eff``, ``n2_eff``
        (effective testers of the weighted rates), ``rule``, ``verdict``,
        ``verdict_reason`` and ``detectable_gap``. :meth:`summary_frame`
        gives it as a DataFrame.
    testers : dict of ndarray
        The long table, one entry per flagged person, side and cell of
        equally treated fitted records: ``row``, ``side`` (``"unprotected"``
        or ``"protected"``), ``certain``, ``distance``, ``n_records``,
        ``n_positive``, ``weight`` (probability that each record of the cell
        is a tester), ``testers`` (``weight * n_records``), ``positives``
        (``weight * n_positive``), ``cell`` (unit id under KNN-DD, subgroup
        id under CBN-DD), then the cell's values: every column and the
        decision under KNN-DD, the columns of ``q_`` under CBN-DD (interval
        columns as their bin). :meth:`frame` gives it as a DataFrame.
    method : str
    k : int
    rule : str
        The flag rule, in words.
    audit : dict of ndarray
        Over every audited row: ``candidate``, ``flagged``, ``p_value``,
        ``q_value``, ``verdict``, ``verdict_reason``, ``detectable_gap``
        (the smallest gap this person's testers would have flagged with
        probability 0.8: for a person not flagged, "a gap below it could
        not have been seen").
        With the harm of each candidate (``pn``, ``pn_low``, ``pn_high``,
        ``more_likely_than_not``; an amount: ``shortfall`` and its interval).
    provenance : dict
        Package version, date, options, graph and its source, the weak
        parents left out of Q, the column kinds and whether each was
        declared or inferred.
    harm : DataFrame
        How many were harmed (or how much is owed): per CBN-DD situation and
        in a last row ``"total"``, with the interval at ``1 - alpha_test``.
    counterfactual : DataFrame or None
        Filled by
        :func:`~skfair_manifold.situation_testing.counterfactual_decisions`.
    index : ndarray or None
        The labels of the audited ``X``'s index (a pandas frame whose index
        is not its positions), which name the rows on the page; None:
        the rows are named by their position.
    headline : list of str
        What the audit found, in sentences: the people flagged by the rule
        and the count of each verdict among them, what the candidates not
        flagged could have shown.
    """

    def __init__(self, *, summary, testers, claimants, decisions, own_rows, cell_rows,
                 y_fit, method, k, rule, audit=None, provenance=None, settings=None,
                 records=None, record_rows=None, audited_fitted=False, harm=None,
                 harm_settings=None):
        self.summary = summary
        self.testers = testers
        self.method = method
        self.k = k
        self.rule = rule
        self.audit = {} if audit is None else audit
        self.provenance = {} if provenance is None else provenance
        self.settings = {} if settings is None else settings
        self.records = {} if records is None else records
        self.record_rows = np.zeros(0, dtype=np.intp) if record_rows is None else record_rows
        self.audited_fitted = bool(audited_fitted)
        self.harm = harm
        self.counterfactual = None
        self.settings["harm"] = {} if harm_settings is None else dict(harm_settings)
        self.index = None
        self.fitted_index = None
        self._claimants = claimants
        self._decisions = decisions
        self._own_rows = own_rows
        self._rows_of_cell = cell_rows
        self._y_fit = y_fit
        row = testers["row"]
        order = np.argsort(row, kind="stable")
        self._order = order
        self._bounds = np.searchsorted(row[order], summary["row"]), \
            np.searchsorted(row[order], summary["row"], side="right")

    def not_flagged_gaps(self):
        """The candidates not flagged and their smallest detectable gaps, summarised.

        A dict ``n``, ``n_undefined``, ``median``, ``low``, ``high``
        (:func:`._power.not_flagged_gaps`); None without ``detectable_gap``.
        """
        if "detectable_gap" not in self.audit:
            return None
        return not_flagged_gaps(self.audit["detectable_gap"], self.audit["candidate"],
                                self.audit["flagged"])

    def verdict_counts(self):
        """How many flagged people have each verdict: a dict, ``FLAGGED_VERDICTS`` first."""
        counts = dict.fromkeys(FLAGGED_VERDICTS, 0)
        for verdict in np.asarray(self.summary.get("verdict", []), dtype=str).tolist():
            counts[verdict] = counts.get(verdict, 0) + 1
        return counts if "verdict" in self.summary else {}

    @property
    def headline(self):
        """What the audit found, in sentences (see the class's attributes)."""
        return report_headline(self)

    def to_frame(self):
        """One row per flagged person (:meth:`summary_frame`), named by ``index`` if any."""
        frame = self.summary_frame()
        if self.index is not None:
            frame.insert(0, "index", self.index[np.asarray(self.summary["row"], dtype=np.intp)])
        return frame

    def to_dict(self, *, undefined=None):
        """The audit as plain Python values (JSON-ready; nan becomes ``undefined``).

        Returns
        -------
        data : dict
            ``headline``, ``verdicts`` (verdict -> flagged people), ``harm``
            (the rows of :attr:`harm`),
            ``flagged`` (a list of rows, as :meth:`to_frame`), ``not_flagged``
            (:meth:`not_flagged_gaps`), ``method``, ``k``, ``rule``,
            ``settings`` and ``provenance``.
        """
        rows = self.to_frame().to_dict(orient="records")
        harm = None if self.harm is None else \
            self.harm.reset_index().to_dict(orient="records")
        return plain_values({"headline": self.headline, "verdicts": self.verdict_counts(),
                             "harm": harm,
                             "flagged": rows, "not_flagged": self.not_flagged_gaps(),
                             "method": self.method, "k": self.k, "rule": self.rule,
                             "settings": self.settings, "provenance": self.provenance},
                            undefined=undefined)

    def _repr_html_(self):
        """The page's summary and list of the flagged, compact, for notebooks (no sheets)."""
        return render_evidence(self, max_sheets=0, title="Situation testing",
                               fragment=True)

    def __len__(self):
        return int(self.summary["row"].shape[0])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"report index {i} out of range ({n} flagged people)")
        i = int(i) % n
        sel = self._order[self._bounds[0][i]:self._bounds[1][i]]
        names = list(self.testers)
        # one slice per column, then plain Python values (tolist), row by row
        columns = [self.testers[c][sel].tolist() for c in names]
        rows = [dict(zip(names, values)) for values in zip(*columns)]
        k = self.summary["k"][i] if "k" in self.summary else self.k
        entry = PersonEvidence(row=int(self.summary["row"][i]), method=self.method, k=int(k))
        entry["claimant"] = {c: python_value(v[i]) for c, v in self._claimants.items()}
        entry["decision"] = python_value(self._decisions[i])
        for name in _NUMBERS:
            if name in self.summary:
                entry[name] = float(self.summary[name][i])
        entry["rule"] = self.rule
        for name in ("verdict", "verdict_reason"):
            if name in self.summary:
                entry[name] = str(self.summary[name][i])
        entry["testers"] = rows
        own = int(self._own_rows[i])
        for s, side in enumerate(SIDES):
            ids, weights = [], []
            for t in sel:
                if self.testers["side"][t] != side:
                    continue
                fitted = self._rows_of_cell(int(self.testers["cell"][t]), s)
                fitted = fitted[fitted != own] if own in fitted else \
                    fitted[: int(round(self.testers["n_records"][t]))]
                ids.append(fitted)
                weights.append(np.full(fitted.shape[0], self.testers["weight"][t]))
            ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.intp)
            order = np.argsort(ids, kind="stable")
            entry[f"testers_{side}"] = ids[order]
            entry[f"weights_{side}"] = (np.concatenate(weights) if weights
                                        else np.zeros(0))[order]
            entry[f"decisions_{side}"] = self._y_fit[ids[order]]
        return entry

    def person(self, row):
        """The evidence of the person at position ``row`` of X."""
        hit = np.flatnonzero(self.summary["row"] == row)
        if not hit.size:
            raise KeyError(f"row {row} was not flagged")
        return self[int(hit[0])]

    def frame(self):
        """The long table of testers as a pandas DataFrame."""
        pd = _pandas()
        return pd.DataFrame(self.testers)

    def summary_frame(self):
        """One row per flagged person as a pandas DataFrame."""
        pd = _pandas()
        return pd.DataFrame(self.summary)

    def to_html(self, *, ids=None, fitted_ids=None, max_sheets=500,
                title="Situation testing: evidence"):
        """The HTML evidence page: a summary, then one sheet per flagged person.

        The summary gives the settings, the flag rule, what situation
        testing can and cannot show, the provenance (package version, date,
        options, the graph and whether it was learned or given, the column
        kinds and whether they were declared or inferred; the input file and
        its SHA-256 from the command line), the causal graph with Q marked,
        and every flagged person with ``p1``, ``p2``, ``diff`` and its
        interval, ``p_value``, ``q_value`` and the verdict. Each sheet shows
        the claimant, why the rule flagged, and the testers of both sides
        with their attributes, decisions and weights (1 for a tester taken
        for certain; the share taken of a tie group otherwise). The page is
        self-contained: styles inline, nothing requested from the network.

        Parameters
        ----------
        ids : array-like of shape (n_rows,) or None, default=None
            A distinct name per audited row. None: the audited DataFrame's
            index (``index``), or the row's position when it has none (the
            page then says "position"). The sheet of a person is found in
            the page as ``#person-<id>`` (characters other than ASCII
            letters, digits, ``-`` and ``_`` become ``_``, and a short hash
            of the id follows).
        fitted_ids : array-like or None, default=None
            A distinct name per fitted row, for the testers. None: ``ids``
            when the audited rows were the fitted data, else the fitted
            DataFrame's index, or the positions.
        max_sheets : int, default=500
            Sheets for at most the first ``max_sheets`` flagged people; all
            are listed in the summary.
        title : str, default="Situation testing: evidence"

        Returns
        -------
        html : str

        Examples
        --------
        >>> import pickle
        >>> from skfair_manifold.datasets import make_biased_decisions
        >>> from skfair_manifold.situation_testing import SituationTestingAuditor
        >>> data = make_biased_decisions(400, random_state=0, as_frame=True)
        >>> X, y = data.frame.drop(columns="decision"), data.frame["decision"]
        >>> auditor = SituationTestingAuditor(protected="s0", protected_value=1, k=10,
        ...                                   method="knn").fit(X, y)
        >>> report = pickle.loads(pickle.dumps(auditor.report(X, y)))
        >>> page = report.to_html()
        >>> page.startswith("<!DOCTYPE html>") and 'id="flagged-table"' in page
        True
        """
        return render_evidence(self, ids=ids, fitted_ids=fitted_ids, max_sheets=max_sheets,
                               title=title)

    def __repr__(self):
        return (f"SituationTestingReport({len(self)} flagged, method={self.method!r}, "
                f"k={self.k}, rule={self.rule!r})")


def _pandas():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("the report's tables need pandas: pip install pandas") from None
    return pd


def python_value(v):
    """A numpy scalar as the Python value it holds; anything else as it is."""
    return v.item() if isinstance(v, np.generic) else v
