"""Reading a table (CSV/TSV/Parquet, bounded by ``limits``) and loading one numeric column.

Deterministic and public-rule based: reading costs no privacy budget.
"""


from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import IO

import pandas as pd

from dpsum_core import limits
from dpsum_core.data.cleaning import DELIMITER, decimal_comma_hint, numeric_columns
from dpsum_core.data.dataset import Dataset, make_dataset
from dpsum_core.errors import DataError

_DELIMITERS = ",;\t|"


# --------------------------------------------------------------------------------------------
# Reading a table
# --------------------------------------------------------------------------------------------
def read_table(source: str | os.PathLike | IO[bytes], *, name: str | None = None) -> pd.DataFrame:
    """Read a CSV, TSV or Parquet file into a DataFrame.

    Parameters
    ----------
    source
        A path, or a binary file-like object (e.g. a Streamlit upload).
    name
        File name used to pick the format when ``source`` is file-like; defaults to its ``name``.

    Raises
    ------
    DataError
        If the file is missing, empty, binary (e.g. an Excel workbook) or cannot be parsed.
    """
    label = name or getattr(source, "name", None) or str(source)
    raw = _read_bytes(source, label)
    if not raw.strip():
        raise DataError(
            f"{_base(label)} is empty: upload a CSV/TSV/Parquet file with a header row."
        )
    if raw[:4] == b"PAR1" or str(label).lower().endswith((".parquet", ".pq")):
        return _read_parquet(raw, label)
    check_text_head(raw, _base(label))
    text_head = raw[:8192].decode("utf-8", errors="replace")
    sep = "\t" if str(label).lower().endswith((".tsv", ".tab")) else _sniff_delimiter(text_head)
    try:
        df = pd.read_csv(
            io.BytesIO(raw),
            sep=sep,
            engine="c",
            encoding="utf-8",
            encoding_errors="replace",
            skipinitialspace=True,
            skip_blank_lines=False,  # a blank line in a one-column file is an empty cell
            low_memory=False,
        )
    except pd.errors.EmptyDataError:
        raise DataError(f"{_base(label)} has no columns: add a header row and values.") from None
    except (pd.errors.ParserError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(
            f"{_base(label)} could not be parsed as delimited text ({first}): "
            "check that every row has the same number of fields."
        ) from None
    df.attrs[DELIMITER] = sep  # a ';' file writes decimal commas (see to_numeric)
    if df.shape[1] == 0:
        raise DataError(f"{_base(label)} has no columns: add a header row and values.")
    if df.shape[0] == 0:
        raise DataError(
            f"{_base(label)} has a header ({_list(df.columns)}) but no rows of data: "
            "add one value per row below the header."
        )
    return df


def check_text_head(head: bytes, name: str) -> None:
    """Refuse a would-be CSV/TSV file that is empty, an Excel workbook or binary (judged on its
    first 8 KiB), with a message saying what to do (every engine reads text this way)."""
    if not head.strip():
        raise DataError(f"{name} is empty: give a CSV/TSV/Parquet file with a header row.")
    if head[:4] == b"PK\x03\x04" or head[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise DataError(
            f"{name} looks like an Excel workbook, not a text file: "
            "save the sheet as CSV and upload that."
        )
    if b"\x00" in head[:8192]:
        raise DataError(
            f"{name} looks like a binary file, not CSV/TSV text: "
            "export the column as CSV (comma, semicolon or tab separated) and try again."
        )


def _read_bytes(source: str | os.PathLike | IO[bytes], label: str) -> bytes:
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            if any(ch in str(source) for ch in "*?["):
                raise DataError(
                    f"file not found: {path} (the memory engine reads one file; "
                    "read a glob of files with --engine duckdb)"
                )
            raise DataError(f"file not found: {path}")
        if path.is_dir():
            raise DataError(
                f"{path} is a folder, not a file: pass a CSV/TSV/Parquet file, or read the "
                "folder's files with --engine duckdb."
            )
        size_mb = path.stat().st_size / 2**20
        if size_mb > limits.MAX_UPLOAD_MB * 8:
            raise DataError(
                f"{path.name} is {size_mb:.0f} MB: too large to load in memory; "
                "use the DuckDB engine (--engine duckdb), which reads it out of core."
            )
        return path.read_bytes()
    data = source.read()
    if isinstance(data, str):
        data = data.encode("utf-8")
    size_mb = len(data) / 2**20
    if size_mb > limits.MAX_UPLOAD_MB:
        raise DataError(
            f"{_base(label)} is {size_mb:.0f} MB, above the {limits.MAX_UPLOAD_MB} MB upload limit: "
            "upload only the column you need, or sample the rows."
        )
    return data


def _read_parquet(raw: bytes, label: str) -> pd.DataFrame:
    try:
        return pd.read_parquet(io.BytesIO(raw))
    except Exception as exc:  # pyarrow raises many types; all mean "unreadable"
        raise DataError(
            f"{_base(label)} could not be read as Parquet ({type(exc).__name__}): "
            "check the file or export it as CSV."
        ) from None


def _sniff_delimiter(text: str) -> str:
    """Pick the delimiter that appears consistently in the first lines (default: comma)."""
    lines = [ln for ln in text.splitlines()[:20] if ln.strip()]
    if len(lines) > 1:
        lines = lines[:-1]  # the last line of the sample may be cut off
    try:
        return csv.Sniffer().sniff("\n".join(lines), delimiters=_DELIMITERS).delimiter
    except csv.Error:
        counts = {d: lines[0].count(d) if lines else 0 for d in _DELIMITERS}
        best = max(counts, key=lambda d: counts[d])
        return best if counts[best] > 0 else ","


def _base(label: str) -> str:
    return Path(str(label)).name or "the file"


def read_numeric_table(
    source: str | os.PathLike | IO[bytes], *, name: str | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """Read a table and list its numeric columns (best default first, see :func:`numeric_columns`).

    Raises
    ------
    DataError
        Unreadable file, too many rows, or no numeric column.
    """
    label = name or getattr(source, "name", None) or Path(str(source)).name
    df = read_table(source, name=label)
    if len(df) > limits.MAX_ROWS:
        raise DataError(
            f"{_base(label)} has {len(df):,} rows, more than the {limits.MAX_ROWS:,} this tool "
            "handles in memory: sample the rows first, or use the DuckDB engine (--engine duckdb)."
        )
    candidates = numeric_columns(df)
    if not candidates:
        raise DataError(
            f"{_base(label)} has no numeric column (columns: {_list(df.columns)}): "
            "upload a file with a column of numbers."
        )
    return df, candidates


def load_column(
    source: str | os.PathLike | IO[bytes],
    *,
    upper: float,
    column: str | None = None,
    name: str | None = None,
) -> Dataset:
    """Read a file and clean one numeric column of it.

    Parameters
    ----------
    source
        Path or binary file-like object (CSV, TSV or Parquet).
    upper
        Public upper bound U of the domain; values above it are clipped to it.
    column
        Column to use; by default the column with the most numeric cells.
    name
        Display name (defaults to the file name).

    Raises
    ------
    DataError
        Unreadable file, unknown column, or no numeric values.
    """
    label = name or getattr(source, "name", None) or Path(str(source)).name
    df, candidates = read_numeric_table(source, name=label)
    return table_column(df, column or candidates[0], upper=upper, name=_base(label))


def table_column(df: pd.DataFrame, column: str, *, upper: float, name: str) -> Dataset:
    """Clean one column of a table read by :func:`read_table` (its delimiter is the hint for
    decimal commas, see :func:`clean`).

    Raises
    ------
    DataError
        Unknown column, no numeric values, or mixed number formats.
    """
    names = [str(c) for c in df.columns]
    if column not in names:
        raise DataError(f"no column named {column!r} in {name}; columns are: {_list(df.columns)}.")
    series = df.iloc[:, names.index(column)]
    hint = decimal_comma_hint(df)
    return make_dataset(series, upper=upper, name=name, column=column, decimal_comma=hint)


def _list(columns: pd.Index) -> str:
    shown = [str(c) for c in list(columns)[:10]]
    more = f" … (+{len(columns) - 10})" if len(columns) > 10 else ""
    return ", ".join(shown) + more
