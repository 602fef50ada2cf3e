"""The command line's missing values and its outputs (issue 21, items 3 and 5)."""

import os
import stat

import numpy as np
import pytest

from skfair_manifold.cli import EXIT_DATA, EXIT_OK, EXIT_USAGE, main
from skfair_manifold.cli import _io
from skfair_manifold.cli._hfm import format_measures_table, summary_label

pd = pytest.importorskip("pandas")


def cli(capsys, *args):
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def decisions(tmp_path_factory):
    """Decisions whose protected groups are the region codes NA and None, ids NA, null."""
    from skfair_manifold.datasets import make_biased_decisions

    data = make_biased_decisions(400, n_groups=(2, 3), bias=(0.5, 0.0), random_state=1,
                                 as_frame=True)
    frame = data.frame.copy()
    frame["s0"] = frame["s0"].map({0: "None", 1: "NA"})
    frame["decision"] = frame["decision"].map({0: "no", 1: "yes"})
    ids = [f"p{i}" for i in range(len(frame))]
    ids[:3] = ["NA", "null", "None"]
    frame.insert(0, "person", ids)
    path = tmp_path_factory.mktemp("rel") / "decisions.csv"
    frame.to_csv(path, index=False, na_rep="")
    return path, frame


AUDIT = ["--decision", "decision", "--positive-label", "yes", "--protected", "s0",
         "--protected-value", "NA", "--id", "person", "--method", "knn", "-k", "5",
         "--quiet"]


# --- item 3: only an empty field is missing -------------------------------------------


def test_na_none_null_are_groups_ids_and_protected_values(capsys, decisions, tmp_path):
    path, frame = decisions
    out = tmp_path / "all.csv"
    code, _, err = cli(capsys, "audit", path, *AUDIT, "--all-rows", "-o", out)
    assert code == EXIT_OK, err
    table = pd.read_csv(out, keep_default_na=False)
    assert table["person"].tolist()[:3] == ["NA", "null", "None"]
    assert set(table["s0"]) == {"NA", "None"}
    # the protected group is the rows whose s0 is the text NA
    flagged = table[table["flagged"].astype(str) == "True"]
    assert (flagged["s0"] == "NA").all()


def test_na_group_in_hfm(capsys, tmp_path):
    rng = np.random.default_rng(0)
    n = 80
    path = tmp_path / "pred.csv"
    pd.DataFrame({"y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n),
                  "region": np.array(["NA", "None", "null"])[rng.integers(0, 3, n)],
                  "x": rng.random(n)}).to_csv(path, index=False)
    code, out, err = cli(capsys, "hfm", path, "--label", "y", "--prediction", "p",
                         "--sensitive", "region", "--method", "exact", "--format", "json")
    assert code == EXIT_OK, err
    import json

    by_group = json.loads(out)["by_group"]["region"]
    assert set(by_group) == {"NA", "None", "null"}
    assert sum(row["count"] for row in by_group.values()) == n


def test_an_empty_field_is_still_missing(capsys, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("person,s0,x,decision\nNA,a,1,yes\n,b,2,no\nnull,a,3,no\nq,b,4,yes\n")
    code, _, err = cli(capsys, "audit", path, "--decision", "decision", "--positive-label",
                       "yes", "--protected", "s0", "--protected-value", "a", "--id", "person",
                       "--method", "knn", "-k", "1", "--quiet")
    assert code == EXIT_DATA
    assert "column 'person' has missing values at row(s) 1" in err


def test_na_in_a_numeric_column_is_named_as_not_a_number(capsys, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("y,p,s,x\n1,0,a,0.1\nNA,1,b,0.2\n0,1,a,0.3\n1,1,b,0.4\n")
    code, _, err = cli(capsys, "hfm", path, "--label", "y", "--prediction", "p",
                       "--sensitive", "s")
    assert code == EXIT_DATA
    assert "the value 'NA' at row 1" in err


def test_summary_row_label_never_collides_with_an_attribute():
    assert summary_label(["sex", "race"]) == "all attributes"
    assert summary_label(["all attributes", "sex"]) == "all attributes (summary)"
    assert summary_label(["all attributes", "all attributes (summary)"]) == \
        "all attributes (summary 2)"
    result = {"hfm_max": 0.5, "hfm_avg": 0.25,
              "per_attribute": {"all attributes": {"hfm_max": 0.1, "hfm_avg": 0.05}},
              "info": {"n_rows": 10, "n_features": 1, "scale": True, "method": "exact"}}
    lines = format_measures_table(result).splitlines()
    assert lines[2].startswith("all attributes ")
    assert lines[3].startswith("all attributes (summary)")
    assert "0.5000" in lines[3] and "0.1000" in lines[2]


# --- item 5: outputs that never overwrite each other ------------------------------------


def test_two_outputs_naming_one_file_are_refused(capsys, decisions, tmp_path):
    path, _ = decisions
    same = tmp_path / "same.csv"
    code, _, err = cli(capsys, "audit", path, *AUDIT, "--testers", same, "-o", same)
    assert code == EXIT_USAGE
    assert "-o/--output and --testers name the same file" in err
    assert not same.exists()
    os.symlink(tmp_path / "x.csv", tmp_path / "link.csv")
    code, _, err = cli(capsys, "audit", path, *AUDIT, "--html", tmp_path / "link.csv",
                       "-o", tmp_path / "sub" / ".." / "x.csv")
    assert code == EXIT_USAGE
    assert "name the same file" in err


def test_only_one_output_on_standard_output(capsys, decisions):
    path, _ = decisions
    code, out, err = cli(capsys, "audit", path, *AUDIT, "--html", "-")
    assert code == EXIT_USAGE
    assert out == ""
    assert "-o/--output and --html all go to standard output" in err
    code, out, err = cli(capsys, "audit", path, *AUDIT, "--html", "-", "--testers", "-",
                         "-o", "-")
    assert code == EXIT_USAGE and "--html and --testers" in err


def test_outputs_put_in_place_only_when_all_are_complete(capsys, decisions, tmp_path,
                                                         monkeypatch):
    from skfair_manifold.situation_testing import _evidence as _evidence_page  # the page's caller

    path, _ = decisions
    out, page = tmp_path / "out.csv", tmp_path / "page.html"
    out.write_text("old\n")

    def broken(*args, **kwargs):
        raise RuntimeError("page failed")

    monkeypatch.setattr(_evidence_page, "render_evidence", broken)
    code, _, err = cli(capsys, "audit", path, *AUDIT, "--html", page, "--testers",
                       tmp_path / "t.csv", "-o", out)
    assert code == EXIT_DATA and "page failed" in err
    # the testers were computed before the page failed, but nothing was put in place
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_interruption_says_exactly_what_changed(capsys, decisions, tmp_path, monkeypatch):
    path, _ = decisions
    targets = [tmp_path / name for name in ("page.html", "t.csv", "out.csv")]
    for target in targets:
        target.write_text("old\n")
    real_replace = os.replace
    calls = []

    def interrupted_second(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", interrupted_second)
    code, _, err = cli(capsys, "audit", path, *AUDIT, "--html", targets[0], "--testers",
                       targets[1], "-o", targets[2])
    assert code == 130
    first = str(calls[0])
    left = [str(t) for t in targets if str(t) != first]
    assert f"interrupted. Written: {first}; not changed: {', '.join(left)}." in err
    changed = [t for t in targets if t.read_text() != "old\n"]
    assert [str(t) for t in changed] == [first]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_interruption_before_the_outputs(capsys, decisions, tmp_path, monkeypatch):
    from skfair_manifold.cli import _audit

    path, _ = decisions
    out = tmp_path / "out.csv"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_audit, "fit_and_report", interrupted)
    code, _, err = cli(capsys, "audit", path, *AUDIT, "-o", out)
    assert code == 130 and "interrupted. No output file was changed." in err
    assert not out.exists()


def test_read_only_file_is_not_replaced(capsys, decisions, tmp_path):
    path, _ = decisions
    out = tmp_path / "out.csv"
    out.write_text("keep\n")
    out.chmod(0o444)
    code, _, err = cli(capsys, "audit", path, *AUDIT, "-o", out)
    assert code == EXIT_DATA
    assert f"cannot write {out}: the file is read-only (mode 444)" in err
    assert out.read_text() == "keep\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o444


def test_read_only_check_follows_os_access(tmp_path, monkeypatch):
    # an unprivileged user: the mode lets the owner write, access() says no
    target = tmp_path / "f.csv"
    target.write_text("x")
    assert not _io.is_read_only(target)
    monkeypatch.setattr(os, "access", lambda p, mode: False)
    assert _io.is_read_only(target)
    with pytest.raises(_io.CLIError, match="the file is read-only"):
        _io.check_output(str(target))


def test_read_only_folder_is_named(tmp_path, monkeypatch):
    target = tmp_path / "f.csv"
    target.write_text("x")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if os.fspath(p) == str(tmp_path)
                        else real(p, mode))
    with pytest.raises(_io.CLIError, match=f"the folder {tmp_path} is not writable"):
        _io.check_output(str(target))


def test_folder_without_room_for_a_temporary_file_is_named(tmp_path, monkeypatch):
    import tempfile

    def denied(**kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(_io.CLIError, match=f"no temporary file can be made in its folder "
                                           f"{tmp_path} \\(permission denied\\)"):
        _io.write_text(str(tmp_path / "f.csv"), "x")


@pytest.mark.skipif(not os.path.exists("/proc/version"), reason="no /proc")
def test_proc_version_is_read_only_not_missing(capsys, decisions):
    path, _ = decisions
    code, _, err = cli(capsys, "audit", path, *AUDIT, "-o", "/proc/version")
    assert code == EXIT_DATA
    assert "cannot write /proc/version: the file is read-only" in err
    assert "no such file" not in err
