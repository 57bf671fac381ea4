"""Issue 17, "stays up for everyone": hostile files (generated here, never committed) are
refused before they are decoded, and one-column European files are read as one column."""

from __future__ import annotations

import io

import numpy as np
import pytest

from dpsum_core.cli import main
from dpsum_core.data.reading import load_column
from tests.core.hostile import load_in_fresh_process, parquet_bomb, wide_csv

EUROPEAN = b"earnings\n20,67\n12,5\n3,00\n\"1.234,5\"\n"


def test_a_one_column_european_file_is_read_with_decimal_commas():
    """``20,67`` in a file whose header has no delimiter is one value, not 20 and a column
    of cents."""
    data = load_column(io.BytesIO(EUROPEAN), upper=2000, name="eu.csv")
    assert data.column == "earnings"
    np.testing.assert_array_equal(data.values, [3.0, 12.5, 20.67, 1234.5])
    assert data.report.decimal_comma == 4 and data.report.rows_kept == 4


def test_the_cli_reads_a_one_column_european_file(tmp_path, capsys):
    path = tmp_path / "eu.csv"
    path.write_bytes(EUROPEAN)
    code = main(["run", "--data", str(path), "--upper", "2000", "--workload", "Q3", "--trials", "3",
                 "--out", str(tmp_path / "out")])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "4 rows read, 4 kept." in out and "4 values read with a decimal comma" in out


def test_the_duckdb_engine_refuses_a_one_column_european_file_clearly(tmp_path, capsys):
    path = tmp_path / "eu.csv"
    path.write_bytes(EUROPEAN)
    code = main(["run", "--data", str(path), "--upper", "2000", "--engine", "duckdb",
                 "--workload", "Q3", "--trials", "3", "--out", str(tmp_path / "out")])  # fmt: skip
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "written with commas" in err and "--engine memory" in err


@pytest.mark.parametrize("text", [b"income\n100\n200\n", b"a,b\n1,2\n3,4\n", b"a;b\n1,5;2\n3;4\n"])
def test_other_files_keep_their_delimiter(text):
    data = load_column(io.BytesIO(text), upper=1000, name="x.csv")
    assert data.report.rows_kept == 2


# --------------------------------------------------------------------------------------------
# Bounded reading (issue 17): refused or decoded within bounds, judged by metadata and header
# --------------------------------------------------------------------------------------------
def test_a_parquet_of_repeated_strings_is_read_in_bounded_memory(tmp_path):
    """1 GB of text when decoded (10⁵ rows × 10 columns × 1000 characters), < 200 kB on
    disk: the peak memory of reading it stays far below its decoded size (text columns stay
    dictionaries; today every string is decoded)."""
    rows, cols, width = 100_000, 10, 1000
    path = parquet_bomb(tmp_path / "bomb.parquet", rows=rows, text_columns=cols, width=width)
    assert path.stat().st_size < 200_000
    loaded = load_in_fresh_process(path)
    peak, size = loaded["peak_added_bytes"], loaded["rows"]
    assert size == rows
    assert peak < rows * cols * width / 4, f"peak {peak / 2**20:.0f} MB"


@pytest.mark.parametrize(
    ("limit", "value", "message", "ids"),
    [
        ("MAX_ROWS", 1000, "more than the 1,000 this tool handles in memory", None),
        ("MAX_COLUMNS", 3, "more than the 3 this tool reads", None),
        # the chosen columns' decoded size: 50 000 rows of 200 characters as identifiers
        ("MAX_DECODED_MB", 1, "more than the 1 MB this tool decodes", "note0"),
    ],
)
def test_a_parquet_beyond_a_limit_is_refused_from_its_metadata(
    tmp_path, monkeypatch, limit, value, message, ids
):
    """Rows, columns and decoded size come from the metadata: the refusal names the limit and
    no page is decoded."""
    import pyarrow.parquet as pq

    from dpsum_core import limits
    from dpsum_core.errors import DataError

    path = parquet_bomb(tmp_path / "b.parquet", rows=50_000, text_columns=3, dictionary=False)
    monkeypatch.setattr(limits, limit, value)
    monkeypatch.setattr(pq.ParquetFile, "read", lambda *a, **k: pytest.fail("decoded"))
    monkeypatch.setattr(pq, "read_table", lambda *a, **k: pytest.fail("decoded"))
    with pytest.raises(DataError, match=message):
        load_column(path, upper=1000, id_column=ids)


def test_only_the_chosen_parquet_column_is_decoded(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    path = parquet_bomb(tmp_path / "b.parquet", rows=1000, text_columns=3)
    seen = []
    real = pq.ParquetFile.read

    def read(self, columns=None, **kw):
        seen.append(columns)
        return real(self, columns=columns, **kw)

    monkeypatch.setattr(pq.ParquetFile, "read", read)
    data = load_column(path, upper=1000, column="income")
    assert seen == [["income"]] and data.size == 1000


def test_a_very_wide_csv_is_refused_from_its_header_before_parsing(tmp_path, monkeypatch):
    """100 000 columns (parsing them took minutes): refused from the header line, naming the
    limit; pandas never parses it."""
    import pandas as pd

    from dpsum_core import limits

    path = wide_csv(tmp_path / "wide.csv", columns=100_000)
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: pytest.fail("parsed"))
    with pytest.raises(Exception, match=f"100,000 columns, more than the {limits.MAX_COLUMNS:,}"):
        load_column(path, upper=1000)
    code = main(["run", "--data", str(path), "--upper", "1000", "--out", str(tmp_path / "o")])
    assert code == 2


def test_a_csv_header_longer_than_the_limit_is_refused(tmp_path, monkeypatch):
    from dpsum_core import limits
    from dpsum_core.errors import DataError

    monkeypatch.setattr(limits, "MAX_HEADER_BYTES", 1000)
    path = tmp_path / "long.csv"
    path.write_text("a" * 5000 + "\n1\n")
    with pytest.raises(DataError, match="header line is longer than"):
        load_column(path, upper=1000)


def test_parquet_text_columns_read_as_dictionaries_give_the_same_numbers(tmp_path):
    """A text column of a Parquet file (numbers written as text, nulls, unused dictionary
    entries) is ranked and cleaned as the same column read from CSV."""
    import pandas as pd

    from dpsum_core.data.reading import inspect_table

    df = pd.DataFrame({"note": ["a", "b", None, "a"] * 5, "amount": ["1,5", "2", None, "x"] * 5})
    df.to_parquet(tmp_path / "t.parquet")
    df.to_csv(tmp_path / "t.csv", index=False, sep=";")
    pq_cols = inspect_table(tmp_path / "t.parquet").candidates
    csv_cols = inspect_table(tmp_path / "t.csv").candidates
    assert pq_cols == csv_cols == ("amount",)
    a = load_column(tmp_path / "t.parquet", upper=10, column="amount")
    b = load_column(tmp_path / "t.csv", upper=10, column="amount")
    np.testing.assert_array_equal(a.values, [1.5] * 5 + [2.0] * 5)
    assert a.report.dropped_missing == b.report.dropped_missing == 5
    assert a.report.dropped_non_numeric == b.report.dropped_non_numeric == 5
