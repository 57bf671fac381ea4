"""Fixtures shared by tests/core: one Spark session for the whole test run (TESTING.md), and
no PNG/SVG export by the commands a test calls in its own process (:func:`no_images`)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    """A local[2] SparkSession, started once (≈5 s) and stopped at the end; modules that use it
    skip themselves when Java or pyspark is missing."""
    from dpsum_core.data.backends.spark import quiet_pyspark

    with quiet_pyspark():
        from pyspark.sql import SparkSession

        session = (
            SparkSession.builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.driver.memory", "1g")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def no_images(monkeypatch):
    """``dpsum run`` and ``reproduce`` called in the test's process (``cli.main``) find no
    browser, as on a machine without Chromium: their images cost about 5 s per command
    (Chromium's start), and only the tests of the images need them. Those run the command in
    a subprocess (tests/core/test_cli.py), which this does not reach."""
    monkeypatch.setattr("dpsum_core.plots.files.browser_available", lambda: False)
