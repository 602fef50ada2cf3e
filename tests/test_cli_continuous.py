"""``report --target-type continuous``: the continuous report's page from a CSV or a Parquet."""


import numpy as np
import pytest

from skfair_manifold.cli import EXIT_DATA, EXIT_OK

pd = pytest.importorskip("pandas")

from _cli import run_cli  # noqa: E402

cli = run_cli


@pytest.fixture(scope="module")
def wages_frame():
    from skfair_manifold.datasets import make_biased_wages

    wages = make_biased_wages(1500, gap=0.1, random_state=0)
    noise = np.random.default_rng(0).normal(0, 0.1, 1500)
    return wages.data.assign(wage=wages.target, predicted=wages.target * np.exp(noise))


ARGS = ["--label", "wage", "--prediction", "predicted", "--sensitive", "sex", "region",
        "--target-type", "continuous", "--no-hfm"]


def test_a_csv_gives_the_page_of_the_in_memory_report(tmp_path, capsys, wages_frame):
    from skfair_manifold.metrics import fairness_report

    path = tmp_path / "wages.csv"
    wages_frame.to_csv(path, index=False)
    out = tmp_path / "report.html"
    code, _, err = cli(capsys, "report", path, *ARGS, "-o", out)
    assert code == EXIT_OK, err
    page = out.read_text(encoding="utf-8")
    expected = fairness_report(wages_frame.wage, wages_frame.predicted,
                               sensitive_features=wages_frame[["sex", "region"]])
    assert expected.headline[0].split(" (")[0] in page
    assert "Continuous target" in page


def test_a_parquet_file_is_summed_by_duckdb(tmp_path, capsys, wages_frame):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "wages.parquet"
    duckdb.from_df(wages_frame).write_parquet(str(path))
    out = tmp_path / "report.html"
    code, _, err = cli(capsys, "report", path, *ARGS, "-o", out)
    assert code == EXIT_OK, err
    assert "needs the rows" in err  # the Wasserstein distance is left undefined
    assert "group female has the lowest mean prediction" in out.read_text(encoding="utf-8")


def test_class_options_are_refused_in_one_line(tmp_path, capsys, wages_frame):
    path = tmp_path / "wages.csv"
    wages_frame.to_csv(path, index=False)
    code, _, err = cli(capsys, "report", path, *ARGS, "--pos-label", "1")
    assert code == EXIT_DATA
    assert err.strip().splitlines()[-1].startswith("skfair-manifold report: error: "
                                                   "--pos-label is for class labels")
    assert "Traceback" not in err


AUDIT = ["--decision", "wage", "--protected", "sex", "--protected-value", "female",
         "--features", "education", "experience", "region", "sector",
         "--interval", "experience", "--tau", "1000"]


def test_audit_of_amounts_from_a_csv(tmp_path, capsys):
    """``audit --decision-type continuous``: the auditor's flags, the means, the page."""
    from skfair_manifold.situation_testing import SituationTestingAuditor

    from skfair_manifold.datasets import make_biased_wages

    wages = make_biased_wages(2000, gap=0.3, random_state=0)  # a gap 50 testers can see
    frame = wages.data.assign(wage=wages.target)
    path = tmp_path / "wages.csv"
    frame.to_csv(path, index=False)
    html = tmp_path / "evidence.html"
    code, out, err = cli(capsys, "audit", path, *AUDIT, "--decision-type", "continuous",
                         "--method", "knn", "--html", html)
    assert code == EXIT_OK, err
    table = pd.read_csv(__import__("io").StringIO(out))
    assert {"mean1", "mean2", "diff_se", "df"} <= set(table.columns)
    read = pd.read_csv(path)
    X = read[["sex", "education", "experience", "region", "sector"]]
    expected = SituationTestingAuditor(
        protected="sex", protected_value="female", method="knn", decision="continuous",
        tau=1000.0, interval=["experience"]).fit(X, read.wage).flag(X, read.wage)
    assert sorted(table["row"]) == np.flatnonzero(expected).tolist()
    assert len(table) > 0 and "negative decision" not in err and "mean1 - mean2" in err
    assert "Welch" in html.read_text(encoding="utf-8")


@pytest.mark.parametrize("extra, message", [
    (["--decision-type", "continuous", "--positive-label", "1"], "higher amount"),
    ([], "--positive-label is required"),
    (["--positive-label", "1"], "must lie in [0, 1]"),  # --tau 1000 for a yes/no decision
])
def test_audit_decision_options_are_checked_in_one_line(tmp_path, capsys, wages_frame,
                                                        extra, message):
    path = tmp_path / "wages.csv"
    wages_frame.to_csv(path, index=False)
    code, _, err = cli(capsys, "audit", path, *AUDIT, *extra)
    assert code != EXIT_OK and message in err and "Traceback" not in err


def test_audit_of_amounts_refuses_a_parquet_file(tmp_path, capsys, wages_frame):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "wages.parquet"
    duckdb.from_df(wages_frame).write_parquet(str(path))
    code, _, err = cli(capsys, "audit", path, *AUDIT, "--decision-type", "continuous")
    assert code == EXIT_DATA and "audits a CSV file" in err and "Traceback" not in err
