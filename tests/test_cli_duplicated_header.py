"""A CSV header that names a column twice is refused by name, by every command.

pandas reads ``sex,sex,...`` with the second column renamed ``sex.1``, without
a word: ``--sensitive sex`` would then silently take the first. Every command
that reads a CSV file (from a path or standard input) refuses it, naming the
column, its positions and the fix, with the data exit code and no traceback.
"""

import io
import sys

import numpy as np
import pytest

from skfair_manifold.cli import EXIT_DATA, EXIT_OK, main

pd = pytest.importorskip("pandas")

HEADER = "sex,sex,y,p\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("header")
    rng = np.random.default_rng(0)
    rows = [f"{a},{b},{y},{p}" for a, b, y, p in zip(
        rng.choice(["f", "m"], 80), rng.choice(["f", "m"], 80), rng.integers(0, 2, 80),
        rng.integers(0, 2, 80))]
    duplicated = tmp / "duplicated.csv"
    duplicated.write_text(HEADER + "\n".join(rows) + "\n")
    spaced = tmp / "spaced.csv"  # the same name once padded: equal once stripped
    spaced.write_text("sex,y,p, sex \n" + "\n".join(rows) + "\n")
    fine = tmp / "fine.csv"
    fine.write_text("sex,sex.1,y,p\n" + "\n".join(rows) + "\n")
    return tmp, duplicated, spaced, fine


def _commands(path, out):
    return [
        ["report", path, "--label", "y", "--prediction", "p", "--sensitive", "sex",
         "-o", out],
        ["hfm", path, "--label", "y", "--prediction", "p", "--sensitive", "sex"],
        ["audit", path, "--decision", "y", "--positive-label", "1", "--protected", "sex",
         "--protected-value", "f", "--method", "knn", "-k", "5", "-o", out],
        ["bias-audit", path, "--decision", "p", "--sensitive", "sex", "-o", out],
    ]


@pytest.mark.parametrize("which", [1, 2])
def test_every_command_refuses_a_duplicated_header_by_name(files, capsys, which):
    tmp, *paths = files
    path = paths[which - 1]
    for args in _commands(path, tmp / "out"):
        code = main([str(a) for a in args])
        err = capsys.readouterr().err
        assert code == EXIT_DATA, (args[0], err)
        assert "Traceback" not in err
        assert "names column 'sex' 2 times" in err, (args[0], err)
        assert "columns 1, 2" in err if which == 1 else "columns 1, 4" in err
        assert "give each column its own name" in err.lower()


def test_standard_input_is_checked_too(files, capsys, monkeypatch):
    tmp, duplicated, *_ = files
    monkeypatch.setattr(sys, "stdin", io.StringIO(duplicated.read_text()))
    code = main(["report", "-", "--label", "y", "--prediction", "p", "--sensitive", "sex",
                 "-o", str(tmp / "out")])
    err = capsys.readouterr().err
    assert code == EXIT_DATA and "'sex.1'" in err and "Traceback" not in err


def test_distinct_names_that_look_renamed_are_read(files, capsys):
    tmp, *_, fine = files
    code = main(["report", str(fine), "--label", "y", "--prediction", "p", "--sensitive",
                 "sex.1", "-o", str(tmp / "out")])
    assert code == EXIT_OK, capsys.readouterr().err
