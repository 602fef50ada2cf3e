"""Every Python example of the README runs, in order, as one script; the cluster examples
(Dask, Spark) run after the Parquet example they read, each where its library is installed."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_MISSING = [name for name in ("pandas", "matplotlib", "skfair_manifold.metrics",
                              "skfair_manifold.scorers", "skfair_manifold.situation_testing")
            if importlib.util.find_spec(name) is None]

#: what marks a block as a cluster example, run by its own test
CLUSTERS = {"dask": "import dask", "spark": "from pyspark"}


def _blocks():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def _cluster(block):
    return next((name for name, mark in CLUSTERS.items() if mark in block), None)


def _run(blocks, tmp_path, warning_options=("-W", "error"), timeout=300):
    script = tmp_path / "readme_examples.py"
    script.write_text("\n".join(blocks), encoding="utf-8")
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, *warning_options, str(script)], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.skipif(bool(_MISSING), reason=f"not installed or not in this checkout: {_MISSING}")
def test_readme_python_examples_run(tmp_path):
    blocks = _blocks()
    assert len(blocks) >= 5
    assert sorted(filter(None, map(_cluster, blocks))) == sorted(CLUSTERS)
    _run([b for b in blocks if _cluster(b) is None], tmp_path)


def _cluster_example(name):
    """The README's Parquet example, then its ``name`` cluster example, as written."""
    blocks = _blocks()
    parquet = [b for b in blocks if "read_parquet" in b and _cluster(b) is None]
    assert len(parquet) == 1
    return [parquet[0], *(b for b in blocks if _cluster(b) == name)]


# the libraries' own deprecations (dask's read_parquet calls a pandas method pandas 3.1
# deprecates) are not this package's; every other warning is still an error
THIRD_PARTY = ("-W", "error", "-W", "ignore::DeprecationWarning", "-W", "ignore::FutureWarning",
               "-W", "ignore::ResourceWarning")


@pytest.mark.slow  # about 20 s (a cluster's start and the libraries' imports), 45 s under load
def test_readme_dask_example_runs(tmp_path):
    pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("duckdb")
    stdout = _run(_cluster_example("dask"), tmp_path, THIRD_PARTY)
    # the cluster's DP difference is the one of the rows in memory
    pd = pytest.importorskip("pandas")
    from skfair_manifold.metrics import demographic_parity

    rows = pd.read_parquet(tmp_path / "decisions.parquet")
    want = demographic_parity(rows["y"], rows["p"], sensitive_features=rows[["sex", "region"]])
    assert float(stdout.strip().splitlines()[-1]) == pytest.approx(want, rel=1e-12)


@pytest.mark.slow  # about 100 s under load (a Java process)
def test_readme_spark_example_runs(tmp_path):
    pytest.importorskip("pyspark")
    pytest.importorskip("duckdb")
    if shutil.which("java") is None:
        pytest.skip("a local Spark session needs Java (17 or later), which is not installed")
    stdout = _run(_cluster_example("spark"), tmp_path, THIRD_PARTY, timeout=600)
    assert "demographic_parity_difference" in stdout
