"""Spark (local mode) agrees exactly with the in-memory path.

Skipped when Java is missing, unless DPSUM_REQUIRE_SPARK=1 (CI), where that is a failure.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pandas as pd
import pytest

from dpsum_core.simulate.config import ExperimentConfig

from .backend_cases import (
    AWKWARD_DOMAINS,
    BAD,
    CENTS_CONFIG,
    CUTS,
    MANIFEST,
    ROOT,
    assert_same_summary,
    awkward_cuts,
    cents_column,
    check_error_agrees,
    check_extend_is_exact,
    check_run_agrees,
    check_second_passes_agree,
    clipped_column,
    memory_summary,
    near_points,
    person_rows,
)

SAMPLE = ROOT / "sample_data" / "incomes.csv"

if shutil.which("java") is None:
    if os.environ.get("DPSUM_REQUIRE_SPARK") == "1":
        raise RuntimeError("DPSUM_REQUIRE_SPARK=1 but no java on PATH: install a Java runtime")
    pytest.skip("Spark needs a Java runtime (java not on PATH)", allow_module_level=True)
pytest.importorskip("pyspark", reason="pyspark is not installed (requirements-dev.txt)")


def backend(spark, path, column=None):
    from dpsum_core.data.backends.spark import SparkBackend

    return SparkBackend(path, upper=800_000.0, column=column, spark=spark)


def test_sample_data_agrees(spark):
    assert_same_summary(memory_summary(SAMPLE), backend(spark, SAMPLE).summarize(CUTS))


@pytest.mark.parametrize(
    "name", ["mixed.csv", "negative.csv", "huge_values.csv", "tab.tsv", "semicolon.csv"]
)
def test_bad_corpus_files_agree(spark, name):
    column = MANIFEST[name].get("column")
    got = backend(spark, BAD / name, column).summarize(CUTS)
    assert_same_summary(memory_summary(BAD / name, column), got)


def test_spark_csv_reader_skips_blank_lines_the_only_known_difference(spark):
    """Spark's CSV reader drops blank lines; pandas and DuckDB read them as empty cells. The
    records kept, counts and sums agree; the report has one row read and missing fewer per
    blank line (documented in the README; Parquet and tables have no blank lines)."""
    path = BAD / "nan_inf_empty.csv"
    mem, got = memory_summary(path), backend(spark, path).summarize(CUTS)
    blank = path.read_text().splitlines().count("")
    assert blank == 1
    assert got.report.rows_read == mem.report.rows_read - blank
    assert got.report.dropped_missing == mem.report.dropped_missing - blank
    assert got.report.rows_kept == mem.report.rows_kept
    assert (got.sums == mem.sums).all() and (got.top == mem.top).all()


@pytest.mark.parametrize(("body", "found"), [("x,y\n2.500,a\n1.234.567,b\n", "(1.234.567)"),
                                           ("x;y\n2.500;a\n12;b\n", "2.500 in a ';' file")])
def test_numbers_with_dots_between_thousands_are_refused_not_misread(spark, tmp_path, body,
                                                                      found):
    """As DuckDB (tests/core/test_backends.py): Spark read "1.234.567" as no number and "2.500"
    in a ';' file as 2.5, where the memory engine reads 1,234,567 and 2,500."""
    from dpsum_core.errors import DataError

    path = tmp_path / "dots.csv"
    path.write_text(body)
    with pytest.raises(DataError, match="1 number written with dots between thousands") as e:
        backend(spark, path, "x").summarize(CUTS)
    assert found in str(e.value)


def test_a_refused_file_is_refused(spark):
    check_error_agrees(lambda p: backend(spark, p), BAD / "all_text.csv")


def test_a_table_and_a_full_run_agree(spark):
    spark.read.csv(str(SAMPLE), header=True).createOrReplaceTempView("incomes")
    from dpsum_core.data.backends.spark import SparkBackend

    table = SparkBackend(None, upper=800_000.0, column="income", spark=spark, table="incomes")
    config = ExperimentConfig(workload="Q3", truncations=("svt", "recursive"), trials=5, seed=1)
    check_run_agrees(table, SAMPLE, config)


def test_values_on_and_next_to_every_edge_and_point_agree(spark, tmp_path):
    """Spark's arithmetic bin and interval of each value next to an edge or extra point equal
    numpy's (as DuckDB's, tests/core/test_backends.py), with the top-k read above its floor."""
    from dpsum_core.data.backends.memory import MemoryBackend
    from dpsum_core.data.backends.spark import SparkBackend

    for domain in AWKWARD_DOMAINS[1:]:
        cuts = awkward_cuts(domain)
        path = tmp_path / f"edges{domain.bins}.parquet"
        pd.DataFrame({"x": near_points(domain, cuts.extra)}).to_parquet(path)
        mem = MemoryBackend(path, upper=domain.upper, column="x").summarize(cuts)
        got = SparkBackend(path, upper=domain.upper, column="x", spark=spark).summarize(cuts)
        assert_same_summary(mem, got)


def test_second_passes_on_clipped_and_dropped_values_agree(spark, tmp_path, monkeypatch):
    path = clipped_column(tmp_path / "c.parquet")
    check_second_passes_agree(backend(spark, path, "income"), path, monkeypatch)


def test_second_pass_counts_sums_and_values_are_exact_everywhere(spark, tmp_path, monkeypatch):
    path = clipped_column(tmp_path / "c.parquet")
    check_extend_is_exact(backend(spark, path, "income"), path, monkeypatch)


def test_a_run_on_dollars_and_cents_equals_the_memory_run(spark, tmp_path):
    path = cents_column(tmp_path / "wages.parquet")
    from dpsum_core.data.backends.spark import SparkBackend

    wages = SparkBackend(path, upper=CENTS_CONFIG.upper, column="wage", spark=spark)
    check_run_agrees(wages, path, CENTS_CONFIG)


def test_a_binary_file_and_a_malformed_csv_are_data_errors(spark, tmp_path, monkeypatch):
    """DataErrors, never an internal error: a binary file renamed .csv is refused before Spark
    reads it; a corrupt Parquet file fails in the JVM only when the query runs (Py4JJavaError)."""
    from dpsum_core.data.backends import spark as spark_backend
    from dpsum_core.errors import DataError

    binary = tmp_path / "b.csv"
    binary.write_bytes(b"x\n" + bytes(range(256)) * 12)
    with pytest.raises(DataError, match="looks like a binary file"):
        backend(spark, binary)
    corrupt = tmp_path / "corrupt.parquet"
    pd.DataFrame({"x": np.arange(200_000, dtype=float)}).to_parquet(corrupt)
    body = bytearray(corrupt.read_bytes())
    body[1000:60_000] = b"Z" * 59_000  # data pages destroyed, footer intact
    corrupt.write_bytes(bytes(body))
    with pytest.raises(DataError, match="Spark could not read the data"):
        backend(spark, corrupt, "x").summarize(CUTS)
    # A missing path is refused before any session starts (no JVM start-up for a typo).
    monkeypatch.setattr(spark_backend, "session", lambda master=None: pytest.fail("started"))
    with pytest.raises(DataError, match="file not found"):
        spark_backend.SparkBackend(tmp_path / "nope.csv", upper=800_000.0)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_summary_by_person_agrees(spark, tmp_path, kind):
    """Rows of one identifier summed by a GROUP BY in Spark SQL equal memory's totals, bit for
    bit (cents, negatives, NaN, ∞, rows without an identifier), second passes included."""
    from dpsum_core.data.backends.memory import MemoryBackend
    from dpsum_core.data.backends.spark import SparkBackend
    from dpsum_core.data.summary import MissingStatistics

    path = person_rows(tmp_path)[0 if kind == "csv" else 1]
    mem = MemoryBackend(path, upper=800_000.0, column="income", id_column="pid")
    got = SparkBackend(path, upper=800_000.0, column="income", id_column="pid", spark=spark)
    a, b = mem.summarize(CUTS), got.summarize(CUTS)
    assert_same_summary(a, b)
    missing = MissingStatistics(np.array([10.5, 5000.0, 79_999.99]), np.array([0, 3, 50]))
    assert_same_summary(mem.extend(a, missing), got.extend(b, missing))


def test_the_clipping_warning_counts_people_as_in_memory(spark, tmp_path):
    """The domain warning of a summary by person counts people (totals above U), as memory."""
    from dpsum_core.data.backends.spark import SparkBackend
    from dpsum_core.data.domain import Domain, domain_warnings
    from dpsum_core.data.summary import CutPoints

    from .test_identifier_columns import _data, clipped_people

    path, domain = clipped_people(tmp_path), Domain(200.0, 10)
    got = SparkBackend(path, upper=200.0, column="wage", id_column="person_id", spark=spark)
    texts = domain_warnings(got.summarize(CutPoints(domain)), domain)
    assert texts == domain_warnings(_data(path, "memory", domain), domain)
    assert texts[0].startswith("3 people (3.0%)")


def test_the_content_a_ledger_binds_to_agrees(spark, tmp_path):
    """Issue 24 §3: Spark hashes the same kept (identifier, value) rows as memory and DuckDB
    (awkward values and identifiers, CSV and Parquet of one table), per row and by person."""
    from dpsum_core.data.backends.duckdb import DuckDBBackend
    from dpsum_core.data.backends.spark import SparkBackend
    from dpsum_core.data.reading import load_column

    from .test_content import IDS, VALUES

    awkward = tmp_path / "awkward.csv"
    pd.DataFrame({"pid": IDS, "income": VALUES}).to_csv(awkward, index=False)
    csv, parquet = person_rows(tmp_path)
    for id_column in (None, "pid"):
        by_table = []
        for path in (awkward, csv, parquet):
            args = dict(upper=800_000.0, column="income", id_column=id_column)
            memory = load_column(path, **args, content=True).report.content
            duck = DuckDBBackend(path, **args).summarize(CUTS, content=True).report.content
            got = SparkBackend(path, **args, spark=spark).summarize(CUTS, content=True)
            assert memory is not None and got.report.content == duck == memory, (path, id_column)
            by_table.append(memory)
        assert by_table[1] == by_table[2]  # the table as CSV and as Parquet


@pytest.mark.parametrize("id_column", [None, "pid"])
def test_values_read_with_a_dollar_or_spaces_removed_are_counted_alike(spark, tmp_path, id_column):
    """Spark counts the kept rows whose '$', '_' or inner white space was removed as the
    memory engine does (its regular expressions are Java's, not RE2's)."""
    from dpsum_core.data.backends.memory import MemoryBackend
    from dpsum_core.data.backends.spark import SparkBackend

    path = tmp_path / "d.csv"
    path.write_text("amount,pid\n$1234.50,a\n$500,a\n1 000,b\n12_000,c\n700,c\n $ 5 ,d\n"
                    "abc$,d\n,e\n5$,\n")  # fmt: skip
    args = dict(upper=800_000.0, column="amount", id_column=id_column)
    mem = MemoryBackend(path, **args).summarize(CUTS, content=True).report
    got = SparkBackend(path, spark=spark, **args).summarize(CUTS, content=True).report
    assert mem == got
    assert (got.dollar_removed, got.spaces_removed) == ((4, 3) if id_column is None else (3, 3))
