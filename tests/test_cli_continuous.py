"""``report --target-type continuous``: the continuous report's page from a CSV or a Parquet."""


import numpy as np
import pytest

from skfair_manifold.cli import EXIT_DATA, EXIT_OK, main

pd = pytest.importorskip("pandas")


def cli(capsys, *args):
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # pragma: no cover - argparse's own exits
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


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
