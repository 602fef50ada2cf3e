"""Fixtures shared by the test folders."""

import shutil

import pytest


@pytest.fixture(scope="session")
def spark():
    """A local Spark session (two cores), for the tests of every frame path; skipped without
    pyspark or Java."""
    pytest.importorskip("pyspark", exc_type=ImportError)
    if shutil.which("java") is None:
        pytest.skip("a local Spark session needs Java (17 or later), which is not installed")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("skfair_manifold-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
