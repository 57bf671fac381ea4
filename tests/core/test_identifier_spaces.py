"""Issue 27 §10: one rule for white space around identifiers (and in values), in every engine.

An identifier is compared with its white space at both ends removed — any Unicode white space,
as Python's ``str.strip`` has it (a no-break space, an em space, an ideographic space, a tab) —
and one that is empty then is missing. Memory and Spark found 6 people where DuckDB found 5: the
engines' ``ltrim`` and ``\\s`` differ (DuckDB's ltrim strips Unicode spaces, Spark's only ' ';
their regular expressions' ``\\s`` is ASCII, Python's Unicode)."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

from dpsum_core.data.backends import open_backend
from dpsum_core.data.cleaning import SPACES, person_codes
from dpsum_core.data.domain import Domain
from dpsum_core.data.summary import cut_points

from .backend_cases import assert_same_summary

U = 100.0
CUTS = cut_points(Domain(U, 10), theta=33.3)
NBSP, EM, IDEO = "\u00a0", "\u2003", "\u3000"
# (identifier, value): people a, b, c, NA (a text identifier "NA" once a space precedes it
# in a way pandas' skipinitialspace keeps) and d; one row whose identifier is only white space.
ROWS = [
    ("a", "1"), (f"{NBSP}a", "2"), (" a", "3"), ("b ", "4"), ("b", "5"), (NBSP, "6"),
    (f"{EM}c", "7"), (f"c{IDEO}", "8"), (f"{NBSP}NA", "9"), ("\tNA", "10"), ("d", f"{NBSP}11"),
]  # fmt: skip
PEOPLE = 5


def test_the_white_space_set_is_pythons():
    assert set(SPACES) == {chr(c) for c in range(0x110000) if chr(c).isspace()}


@pytest.fixture(params=["csv", "parquet"])
def path(request, tmp_path):
    text = "pid,income\n" + "".join(f"{i},{v}\n" for i, v in ROWS)
    csv = tmp_path / "ids.csv"
    csv.write_text(text, encoding="utf-8")
    if request.param == "csv":
        return csv
    parquet = tmp_path / "ids.parquet"
    pd.read_csv(csv, dtype=str, keep_default_na=False).to_parquet(parquet)
    return parquet


def _summary(path, engine, **kw):
    backend = open_backend(path, upper=U, column="income", id_column="pid", engine=engine, **kw)
    return backend.summarize(CUTS)


def test_memory_and_duckdb_find_the_same_people(path):
    mem, duck = _summary(path, "memory"), _summary(path, "duckdb")
    assert mem.report.people == PEOPLE and mem.report.dropped_missing_id == 1
    assert_same_summary(mem, duck)


spark_missing = shutil.which("java") is None and os.environ.get("DPSUM_REQUIRE_SPARK") != "1"


@pytest.mark.skipif(spark_missing, reason="Spark needs a Java runtime (java not on PATH)")
def test_spark_finds_the_same_people(path, spark):
    pytest.importorskip("pyspark")
    mem, got = _summary(path, "memory"), _summary(path, "spark", spark=spark)
    assert got.report.people == PEOPLE
    assert_same_summary(mem, got)


def test_codes_strip_text_keep_numbers_and_na():
    mixed = pd.Series([1, " 1", "1", 1.5, f"{NBSP}1", 2], dtype=object)
    assert person_codes(mixed).tolist() == [0, 1, 1, 2, 1, 3]  # 1 and "1" stay two people
    assert person_codes(pd.Series(["a", " a", None, "b"], dtype="string")).tolist() == [0, 0, -1, 1]
    assert person_codes(pd.Series([3.0, 3.0, 4.0])).tolist() == [0, 0, 1]
