"""DuckDB agrees exactly with the in-memory path: cleaning report, counts, sums, top-k, runs."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpsum_core.data.backends import open_backend
from dpsum_core.data.backends.duckdb import DuckDBBackend
from dpsum_core.data.backends.memory import MemoryBackend
from dpsum_core.errors import DataError
from dpsum_core.simulate.config import ExperimentConfig

from .backend_cases import (
    AWKWARD_DOMAINS,
    BAD,
    BAD_COMMAS,
    BAD_ERROR,
    BAD_OK,
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
)

SAMPLE = ROOT / "sample_data" / "incomes.csv"


def duck(path, column=None):
    return DuckDBBackend(path, upper=800_000.0, column=column)


def test_sample_data_agrees():
    assert_same_summary(memory_summary(SAMPLE), duck(SAMPLE).summarize(CUTS))


@pytest.mark.parametrize("name", BAD_OK)
def test_bad_corpus_files_that_load_agree(name):
    column = MANIFEST[name].get("column")
    assert_same_summary(
        memory_summary(BAD / name, column), duck(BAD / name, column).summarize(CUTS)
    )


@pytest.mark.parametrize("name", BAD_COMMAS)
def test_numbers_written_with_commas_are_refused_not_misread(name):
    column = MANIFEST[name].get("column")
    with pytest.raises(DataError, match=r"numbers? written with commas .* --engine memory"):
        duck(BAD / name, column).summarize(CUTS)


@pytest.mark.parametrize(
    ("body", "memory_total", "found"),
    [
        # any file: the memory engine reads "1.234.567" as 1,234,567 (dots between thousands)
        ("x,y\n2.500,a\n1.234.567,b\n12,c\n", 2.5 + 1_234_567 + 12, "(1.234.567)"),
        # a ';' file writes decimal commas: "2.500" is 2,500 to the memory engine
        ("x;y\n2.500;a\n12;b\n3.5;c\n", 2_500 + 12 + 3.5, "2.500 in a ';' file"),
    ],
)  # fmt: skip
def test_numbers_with_dots_between_thousands_are_refused_not_misread(tmp_path, body,
                                                                      memory_total, found):
    """DuckDB (and Spark: the same SQL) read "1.234.567" as no number and, in a ';' file,
    "2.500" as 2.5, where the memory engine reads each cell on its own as 1,234,567 and 2,500:
    a total 1,000 times smaller, or a record dropped. They refuse such a column now."""
    path = tmp_path / "dots.csv"
    path.write_text(body)
    mem = MemoryBackend(path, upper=2e6, column="x").summarize(CUTS)
    assert mem.records == 3 and mem.total == pytest.approx(memory_total, rel=1e-12)
    with pytest.raises(DataError, match=r"1 number written with dots between thousands") as e:
        DuckDBBackend(path, upper=2e6, column="x").summarize(CUTS)
    assert found in str(e.value) and "--engine memory" in str(e.value)


@pytest.mark.parametrize("body", ["x;y\n2.5;a\n12;b\n", "x,y\n2.500,a\n12,b\n$7,c\n"])
def test_plain_numbers_are_read_as_in_memory(tmp_path, body):
    """What DuckDB still reads (a plain "2.5" in a ';' file, three decimals in a ',' file)
    it reads as the memory engine does, to the bit."""
    path = tmp_path / "plain.csv"
    path.write_text(body)
    _agree_or_both_refuse(path)


@pytest.mark.parametrize("name", BAD_ERROR)
def test_bad_corpus_files_refused_in_memory_are_refused(name):
    check_error_agrees(duck, BAD / name)


cell = st.one_of(
    st.sampled_from(
        [
            "0",
            "800",
            "800000",
            "800000.5",
            "50000",
            "60000",
            "-5",
            "-0",
            "1e6",
            "NaN",
            "nan",
            "inf",
            "-inf",
            "Infinity",
            "NA",
            "",
            "  ",
            "abc",
            " $5 ",
            "1_000",
            "0x10",
            "5d",
            "+.5",
            "n/a",
            "None",
            "12.",
            "1e-5",
        ]
    ),
    st.floats(-1e6, 1e7, allow_nan=False).map(repr),
    st.integers(-10, 900_000).map(str),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(cell, min_size=1, max_size=60))
def test_random_text_columns_agree(tmp_path, cells):
    path = tmp_path / "c.csv"
    path.write_text("x\n" + "\n".join(f'"{c}"' if "," in c else c for c in cells) + "\n")
    _agree_or_both_refuse(path)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.floats(-1e3, 2e6),
            st.sampled_from(
                [0.0, 800.0, 50_000.0, 60_000.0, 800_000.0, None, np.nan, np.inf, -np.inf]
            ),
        ),
        min_size=1,
        max_size=80,
    )
)
def test_random_parquet_columns_agree(tmp_path, values):
    path = tmp_path / "c.parquet"
    pd.DataFrame({"x": pd.array(values, dtype="float64")}).to_parquet(path)
    _agree_or_both_refuse(path)


def _agree_or_both_refuse(path):
    try:
        mem = memory_summary(path, "x")
    except DataError:
        with pytest.raises(DataError):
            duck(path, "x").summarize(CUTS)
        return
    assert_same_summary(mem, duck(path, "x").summarize(CUTS))


def test_a_folder_and_a_glob_read_every_file(tmp_path):
    df = pd.read_csv(SAMPLE)
    for i, lo in enumerate(range(0, len(df), 20_000)):
        df.iloc[lo : lo + 20_000].to_parquet(tmp_path / f"part{i}.parquet")
    whole = duck(SAMPLE, "income").summarize(CUTS)
    for source in (tmp_path, str(tmp_path / "part*.parquet")):
        got = DuckDBBackend(source, upper=800_000.0, column="income").summarize(CUTS)
        assert got.report == whole.report
        np.testing.assert_array_equal(got.sums, whole.sums)
        np.testing.assert_array_equal(got.top, whole.top)


def test_missing_sources_are_clear_errors(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        duck(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="no file matches"):
        duck(str(tmp_path / "*.parquet"))
    shutil.copy(SAMPLE, tmp_path / "a.csv")
    with pytest.raises(DataError, match="no column named"):
        duck(tmp_path / "a.csv", "nope")


@pytest.mark.parametrize("truncations", [("none", "fixed", "svt"), ("recursive",)])
def test_a_full_run_from_duckdb_equals_the_memory_run(truncations):
    config = ExperimentConfig(
        workload="Q2",
        truncations=truncations,
        trials=10,
        seed=3,
        truncation_params={"theta": 64_000.5},
    )
    check_run_agrees(open_backend(SAMPLE, upper=800_000.0, engine="duckdb"), SAMPLE, config)


def test_cli_duckdb_writes_the_same_answers_as_memory(tmp_path, capsys):
    from dpsum_core.cli import main

    common = ["run", "--data", str(SAMPLE), "--trials", "3", "--truncation", "svt,recursive"]
    assert main([*common, "--out", str(tmp_path / "m")]) == 0
    assert main([*common, "--engine", "duckdb", "--out", str(tmp_path / "d")]) == 0
    assert (tmp_path / "m" / "answers.csv").read_bytes() == (
        tmp_path / "d" / "answers.csv"
    ).read_bytes()
    engines = [json.loads((tmp_path / x / "run.json").read_text())["dataset"]["engine"]
               for x in "md"]  # fmt: skip
    assert engines == ["memory", "duckdb"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "duckdb", "--data", "/nonexistent/x.parquet"], "file not found"),
        (["--table", "t"], "--data is required"),
        (["--data", str(SAMPLE), "--table", "t"], "need --engine spark"),
        (["--data", str(SAMPLE), "--engine", "duckdb", "--table", "t"], "need --engine spark"),
        (["--data", str(SAMPLE), "--engine", "duckdb", "--spark-master", "x"], "need --engine"),
    ],
)
def test_cli_engine_errors_are_one_line(tmp_path, capsys, args, message):
    from dpsum_core.cli import main

    assert main(["run", *args, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_duckdb_lists_numeric_columns_as_memory_does(tmp_path):
    from dpsum_core.data.cleaning import numeric_columns
    from dpsum_core.data.reading import read_table

    path = tmp_path / "mixed.csv"
    path.write_text("id,note,amount,ratio\n1,a,100,0.5\n2,b,x,1e3\n3,c,7,\n4,d,8,2\n")
    backend = DuckDBBackend(path, upper=1000.0)
    assert backend.numeric_columns == numeric_columns(read_table(path))
    assert backend.column == backend.numeric_columns[0]


@pytest.mark.parametrize("domain", AWKWARD_DOMAINS, ids=str)
def test_values_on_and_next_to_every_edge_and_point_agree(tmp_path, domain):
    """Each value exactly on, or one double away from, an edge or an extra point lands in the
    interval numpy puts it in, on domains whose edges are not round numbers."""
    cuts = awkward_cuts(domain)
    values = near_points(domain, cuts.extra)
    path = tmp_path / "edges.parquet"
    pd.DataFrame({"x": values}).to_parquet(path)
    mem = MemoryBackend(path, upper=domain.upper, column="x").summarize(cuts)
    got = DuckDBBackend(path, upper=domain.upper, column="x").summarize(cuts)
    assert_same_summary(mem, got)
    assert mem.report.clipped_below_zero == 1 and mem.report.clipped_above_upper > 0


def test_the_top_k_read_above_the_last_intervals_agrees(tmp_path, monkeypatch):
    """The top-k scan reads only records above the interval where the k largest begin; with
    ties at that interval's lower point and clipped values it still returns the k largest."""
    from dpsum_core import limits

    rng = np.random.default_rng(5)
    values = np.concatenate(
        [rng.uniform(0, 7.5e5, 3000), np.full(40, 749_600.0), np.full(3, 800_000.0), [9e5, 1e7]]
    )  # 749 600 is a bin edge; the k largest span several intervals for k ≥ 17
    path = tmp_path / "top.parquet"
    pd.DataFrame({"x": values}).to_parquet(path)
    for k in (1, 5, 17, 60, 400, 4000):
        monkeypatch.setattr(limits, "SUMMARY_TOP_K", k)
        mem = MemoryBackend(path, upper=800_000.0, column="x").summarize(CUTS)
        assert mem.top.size == min(k, values.size)
        assert_same_summary(mem, duck(path, "x").summarize(CUTS))


def test_limb_halves_recombine_exactly_and_a_group_too_large_is_refused():
    from dpsum_core.data.backends.dialect import DUCKDB, SPARK

    halves = (3, 2**26 - 1, 0, 7, 2**26 - 1, 2**26 - 1)
    assert SPARK.limb_units(10, halves) == (3 * 2**26 + 2**26 - 1, 7, 2**52 - 1)
    assert SPARK.limb_units(1, (None,) * 6) == (0, 0, 0)  # a group of NULL values sums to NULL
    with pytest.raises(DataError, match="exact 64-bit sums"):
        SPARK.limb_units(2**36, halves)
    # DuckDB's 128-bit sums need no halves and no bound on the group size.
    wide = (2**80 + 1, 2**70, 2**52 - 1)
    assert DUCKDB.limb_units(2**40, wide) == wide
    assert DUCKDB.limb_units(1, (None,) * 3) == (0, 0, 0)


def test_duckdb_limb_sums_are_128_bit_and_exact_past_64_bits():
    """sum() of BIGINT limbs is HUGEINT in DuckDB: 2¹² limbs of 2⁵² − 1 sum past 2⁶³ exactly
    (a 64-bit or floating sum would overflow or round)."""
    import duckdb

    from dpsum_core.data.backends.dialect import DUCKDB

    limb = 2**52 - 1
    sql = f"SELECT {DUCKDB.limb_sums()} FROM (SELECT {DUCKDB.limb_columns()} FROM "
    sql += f"(SELECT CAST({limb} AS DOUBLE) AS i, CAST({limb} AS DOUBLE) AS f1, "
    sql += "CAST(1 AS DOUBLE) AS f2 FROM range(4096)))"
    row = duckdb.connect().execute(sql).fetchall()[0]
    assert DUCKDB.limb_units(4096, row) == (4096 * limb, 4096 * limb, 4096)


def test_second_passes_on_clipped_and_dropped_values_agree(tmp_path, monkeypatch):
    path = clipped_column(tmp_path / "c.parquet")
    check_second_passes_agree(duck(path, "income"), path, monkeypatch)


def test_second_pass_counts_sums_and_values_are_exact_everywhere(tmp_path, monkeypatch):
    path = clipped_column(tmp_path / "c.parquet")
    check_extend_is_exact(duck(path, "income"), path, monkeypatch)


def test_crossover_searches_fetch_ahead_and_take_few_passes(monkeypatch):
    """SQM's per-query recursive θ runs one binary search per query; with a tiny top-k most
    probes are undecided. Each pass fetches every search's next undecided probes (4 levels
    ahead), so the searches end in a few passes — with exactly the records' i*."""
    from dpsum_core import limits
    from dpsum_core.data.summary import MissingStatistics
    from dpsum_core.truncation.recursive import crossover_index

    monkeypatch.setattr(limits, "SUMMARY_TOP_K", 20)
    backend = duck(SAMPLE)
    data = MemoryBackend(SAMPLE, upper=800_000.0).data
    counts = data.count_at_most(CUTS.domain.edges)
    want = crossover_index(data, beta=4e-4, theta0=1e5, counts=counts)
    passes = {}
    for depth in (1, 4):
        monkeypatch.setattr(limits, "SUMMARY_SPECULATIVE_PROBES", depth)
        summary, passes[depth] = backend.summarize(CUTS), 0
        while True:
            try:
                got = summary.crossover_index(beta=4e-4, theta0=1e5, counts=counts)
                break
            except MissingStatistics as missing:
                passes[depth] += 1
                summary = backend.extend(summary, missing)
        np.testing.assert_array_equal(got, want)
    assert passes[4] <= 2 < passes[1], passes


def test_a_run_on_dollars_and_cents_equals_the_memory_run(tmp_path):
    """Non-integer values: true answers, every algorithm (RawSum's bin sums included) and
    every truncation method agree bit for bit, because both paths use correctly rounded sums."""
    path = cents_column(tmp_path / "wages.parquet")
    backend = open_backend(path, upper=CENTS_CONFIG.upper, engine="duckdb")
    check_run_agrees(backend, path, CENTS_CONFIG)


def test_a_folder_mixing_parquet_and_csv_is_refused_not_half_read(tmp_path):
    df = pd.read_csv(SAMPLE).head(100)
    df.to_parquet(tmp_path / "a.parquet")
    df.to_csv(tmp_path / "b.csv", index=False)
    with pytest.raises(DataError, match=r"both Parquet \(1\) and CSV/TSV \(1\) files.*\*\*/\*\.parquet"):
        duck(tmp_path, "income")
    # The glob the message suggests reads the Parquet files only, as asked.
    assert duck(str(tmp_path / "**" / "*.parquet"), "income").summarize(CUTS).size == 100


def test_a_hive_partitioned_folder_is_read_with_its_sub_folders(tmp_path):
    """year=2020/part-0.parquet, … as Spark and Hive write them; _SUCCESS and .crc skipped."""
    df = pd.read_csv(SAMPLE)
    for i, year in enumerate((2019, 2020, 2021)):
        part = tmp_path / f"year={year}"
        part.mkdir()
        df.iloc[i * 15_000 : (i + 1) * 15_000].to_parquet(part / "part-0.parquet")
        (part / ".part-0.parquet.crc").write_bytes(b"crc")
    (tmp_path / "_SUCCESS").write_text("")
    got = DuckDBBackend(tmp_path, upper=800_000.0, column="income").summarize(CUTS)
    assert_same_summary(memory_summary(SAMPLE), got)


def test_a_header_only_file_says_so(tmp_path):
    path = tmp_path / "header.csv"
    path.write_text("income,age\n")
    with pytest.raises(DataError, match="has a header but no rows of data"):
        duck(path)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_a_wide_or_long_csv_header_is_refused_before_the_engine_parses_it(
    tmp_path, monkeypatch, engine
):
    """Issue 17: the memory reader's bounds (``MAX_COLUMNS``, ``MAX_HEADER_BYTES``) hold for
    DuckDB and Spark too, on every file of a folder (the wide one is not the first), before the
    engine parses anything or a Spark session starts (its start is made to fail here)."""
    import duckdb

    from dpsum_core import limits
    from dpsum_core.data.backends import spark as spark_backend
    from tests.core.hostile import wide_csv

    monkeypatch.setattr(spark_backend, "session", lambda *a: pytest.fail("session started"))
    monkeypatch.setattr(duckdb, "connect", lambda *a, **k: pytest.fail("DuckDB opened"))
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.csv").write_text("income,note\n5,x\n")
    wide_csv(folder / "b.csv", columns=limits.MAX_COLUMNS + 1)
    cols = f"{limits.MAX_COLUMNS + 1:,} columns, more than the {limits.MAX_COLUMNS:,}"
    with pytest.raises(DataError, match=f"b\\.csv has {cols}"):
        open_backend(folder, upper=10.0, column="income", engine=engine)
    monkeypatch.setattr(limits, "MAX_HEADER_BYTES", 1000)
    long = tmp_path / "long.csv"
    long.write_text("a" * 5000 + "\n1\n")
    with pytest.raises(DataError, match=r"long\.csv.s header line is longer than"):
        open_backend(long, upper=10.0, engine=engine)


@pytest.mark.parametrize("id_column", [None, "pid"])
@pytest.mark.parametrize("content", [False, True])
def test_values_read_with_a_dollar_or_spaces_removed_are_counted_alike(tmp_path, id_column, content):
    """DuckDB counts the kept rows whose '$', '_' or inner white space was removed as the
    memory engine does, one row per person or by person (rows without an identifier and
    non-numeric cells are not counted)."""
    path = tmp_path / "d.csv"
    path.write_text("amount,pid\n$1234.50,a\n$500,a\n1 000,b\n12_000,c\n700,c\n $ 5 ,d\n"
                    "abc$,d\n,e\n5$,\n")  # fmt: skip
    mem = MemoryBackend(path, upper=800_000.0, column="amount", id_column=id_column)
    got = DuckDBBackend(path, upper=800_000.0, column="amount", id_column=id_column)
    a, b = (x.summarize(CUTS, content=content).report for x in (mem, got))
    assert a == b
    assert (b.dollar_removed, b.spaces_removed) == ((4, 3) if id_column is None else (3, 3))
