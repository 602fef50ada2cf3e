"""HFM's witnesses in fairness_report, its HTML page and the command line's JSON."""

import html
import json
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skfair_manifold.cli import EXIT_OK, main
from skfair_manifold.metrics import fairness_report, hfm_report
from skfair_manifold.metrics._hfm._witnesses import witness_records

pd = pytest.importorskip("pandas")


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.integers(18, 80, n),
                      "income": rng.normal(4e4, 9e3, n).round(0),
                      "hours": rng.integers(10, 60, n),
                      "tenure": rng.random(n) * 10})
    A = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "region": rng.choice(list("abc"), n)})
    y = (X["income"] > 4e4).astype(int)
    y_pred = pd.Series(np.where(rng.random(n) < 0.2, 1 - y, y), name="pred")
    return X, A, y.rename("label"), y_pred


def _witness_keys(w):
    return (w.labels, str(w.attribute), w.row, w.nearest_row, w.group, w.nearest_group)


@pytest.mark.parametrize("seed", range(3))
def test_fairness_report_carries_hfm_reports_witnesses_with_the_rows_features(seed):
    X, A, y, y_pred = _data(seed)
    report = fairness_report(y, y_pred, sensitive_features=A, X=X, random_state=0,
                             hfm_options={"method": "exact"})
    direct = hfm_report(y, y_pred, X=X, sensitive_features=A, method="exact")
    found = report.hfm_witnesses
    assert found["features"] == list(X.columns)
    assert len(found["maxima"]) == 2 * A.shape[1]
    for item, w in zip(found["maxima"], direct.witnesses.maxima):
        a, b = item["people"]
        assert (item["labels"], str(item["attribute"]), a["row"], b["row"], a["group"],
                b["group"]) == _witness_keys(w)
        assert item["distance"] == w.distance and item["overall"] == w.overall
        labels = y if item["labels"] == "y_true" else y_pred
        for person in (a, b):  # the person's own row of X, unscaled, and label
            assert person["values"] == X.iloc[person["row"]].tolist()
            assert person["label"] == labels.iloc[person["row"]]
            assert A[item["attribute"]].iloc[person["row"]] == person["group"]
        # shares of the squared distance, in the coordinates HFM measures (min-max)
        span = (X.max() - X.min()).to_numpy()
        diff = (X.iloc[a["row"]].to_numpy() - X.iloc[b["row"]].to_numpy()) / span
        squares = np.concatenate([[(a["label"] - b["label"]) ** 2], diff ** 2])
        assert_allclose(np.sqrt(squares.sum()), item["distance"], rtol=1e-12)
        assert_allclose([item["label_share"], *item["shares"]], squares / squares.sum(),
                        rtol=1e-12, atol=1e-15)
    assert [(c["row"], c["change"]) for c in found["changed"]] == [
        (c.row, c.change) for c in direct.witnesses.changed]
    overall = [item for item in found["maxima"] if item["overall"]]
    assert sorted(item["distance"] for item in overall) == sorted(
        [report.hfm_report.d_max, report.hfm_report.d_f_max])


def test_to_dict_carries_the_witnesses_and_is_json():
    X, A, y, y_pred = _data(1)
    report = fairness_report(y, y_pred, sensitive_features=A, X=X, random_state=0,
                             hfm_options={"method": "exact"})
    data = json.loads(json.dumps(report.to_dict()))
    assert data["hfm_witnesses"]["maxima"][0]["people"][0]["values"] == \
        report.hfm_witnesses["maxima"][0]["people"][0]["values"]
    assert data["hfm_witnesses"]["method"] == "exact"
    without = fairness_report(y, y_pred, sensitive_features=A)
    assert without.to_dict()["hfm_witnesses"] is None
    assert "hfm-witnesses" not in without.to_html()


def _cards(page):
    """Per card of the page: its title and its rows of cells (text)."""
    cards = []
    for block in re.findall(r'<div class="pair[^"]*">(.*?)</table>', page, flags=re.S):
        title = re.sub("<[^>]+>", "", re.search(r'<p class="pair-title">(.*?)</p>', block,
                                                 flags=re.S).group(1))
        rows = [[html.unescape(re.sub("<[^>]+>", "", c)).strip()
                 for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, flags=re.S)]
                for r in re.findall(r"<tr[^>]*>(.*?)</tr>", block, flags=re.S)]
        cards.append((html.unescape(title), rows))
    return cards


def test_the_page_shows_both_people_of_each_maximum_on_their_features():
    X, A, y, y_pred = _data(2)
    report = fairness_report(y, y_pred, sensitive_features=A, X=X, random_state=0,
                             hfm_options={"method": "exact"})
    page = report.to_html()
    cards = _cards(page)
    assert len(cards) == len(report.hfm_witnesses["maxima"])
    by_title = {title.split(": distance")[0]: rows for title, rows in cards}
    for item in report.hfm_witnesses["maxima"]:
        reading = "true labels" if item["labels"] == "y_true" else "predictions"
        rows = by_title[f"{item['attribute']}, {reading}"]
        a, b = item["people"]
        assert rows[0][1:3] == [f"position {a['row']}group {a['group']}",
                                f"position {b['row']}group {b['group']}"]
        shown = {r[0]: r[1:3] for r in rows[1:]}
        assert shown["label" if item["labels"] == "y_true" else "pred"] == [
            str(a["label"]), str(b["label"])]
        for j, name in enumerate(report.hfm_witnesses["features"]):
            if a["values"][j] != b["values"][j]:  # every differing feature, both values
                assert shown[name] == [f"{a['values'][j]:.6g}", f"{b['values'][j]:.6g}"]
            else:
                assert name not in shown
    assert 'id="hfm-changed-table"' in page
    first = report.hfm_witnesses["changed"][0]
    assert f"position {first['row']}</td>" in page


def test_the_hfm_command_json_carries_the_witnesses(tmp_path, capsys):
    X, A, y, y_pred = _data(3, n=200)
    frame = pd.concat([X, A, y, y_pred], axis=1)
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    code = main(["hfm", str(path), "--label", "label", "--prediction", "pred",
                 "--sensitive", "sex", "region", "--method", "exact", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == EXIT_OK, err
    result = json.loads(out)
    direct = hfm_report(y, y_pred, X=X, sensitive_features=A, method="exact")
    found = result["witnesses"]
    assert found["features"] == list(X.columns)
    for item, w in zip(found["maxima"], direct.witnesses.maxima):
        a, b = item["people"]
        assert (item["labels"], item["attribute"], a["row"], b["row"], a["group"],
                b["group"]) == _witness_keys(w)
        assert item["distance"] == pytest.approx(w.distance, rel=1e-5)  # 6 digits in JSON
        assert a["values"] == pytest.approx(X.iloc[a["row"]].tolist(), rel=1e-5)
    assert [c["row"] for c in found["changed"]] == [c.row for c in direct.witnesses.changed]
    # the report command's page shows them too
    page_path = tmp_path / "report.html"
    assert main(["report", str(path), "--label", "label", "--prediction", "pred",
                 "--sensitive", "sex", "region", "--method", "exact", "-o", str(page_path),
                 "-q"]) == EXIT_OK
    assert len(_cards(page_path.read_text())) == 4


def test_witness_records_of_an_array_and_of_equal_people():
    X = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    r = hfm_report([0, 0, 1], [0, 0, 1], X=X, sensitive_features=[0, 1, 1], method="exact",
                   scale=False)
    found = witness_records(r.witnesses, X, [0, 0, 1], [0, 0, 1], scale=False)
    assert found["features"] == ["x0", "x1"]
    top = found["maxima"][0]
    assert [p["row"] for p in top["people"]] == [2, 0]
    assert_allclose(top["distance"], np.sqrt(3.0))
    assert_allclose([top["label_share"], *top["shares"]], [1 / 3, 1 / 3, 1 / 3])


def test_the_hfm_command_json_carries_the_intervals_over_rows(tmp_path, capsys):
    X, A, y, y_pred = _data(4, n=200)
    path = tmp_path / "predictions.csv"
    pd.concat([X, A, y, y_pred], axis=1).to_csv(path, index=False)
    code = main(["hfm", str(path), "--label", "label", "--prediction", "pred",
                 "--sensitive", "sex", "region", "--method", "exact", "--format", "json",
                 "--n-boot", "100", "--seed", "3"])
    out, err = capsys.readouterr()
    assert code == EXIT_OK, err
    result = json.loads(out)
    low, high = result["row_ci"]["hfm_avg"]
    assert low <= result["hfm_avg"] <= high
    assert result["row_ci"]["n_boot"] == 100 and "maxima" in result["row_ci"]
