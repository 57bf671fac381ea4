"""Reading a table (CSV/TSV/Parquet, bounded by ``limits``) and loading one numeric column.

Deterministic and public-rule based: reading costs no privacy budget.
"""


from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from dpsum_core import limits
from dpsum_core.data.cleaning import DELIMITER, decimal_comma_hint, numeric_columns
from dpsum_core.data.dataset import Dataset, make_dataset
from dpsum_core.errors import DataError

_DELIMITERS = ",;\t|"


# --------------------------------------------------------------------------------------------
# Reading a table
# --------------------------------------------------------------------------------------------
def read_table(
    source: str | os.PathLike | IO[bytes],
    *,
    name: str | None = None,
    columns: list[str] | None = None,
    text_columns: list[str] | None = None,
) -> pd.DataFrame:
    """Read a CSV, TSV or Parquet file into a DataFrame.

    Parameters
    ----------
    source
        A path, or a binary file-like object (e.g. a Streamlit upload).
    name
        File name used to pick the format when ``source`` is file-like; defaults to its ``name``.
    columns
        Decode only these columns of a Parquet file (a text file is parsed whole).
    text_columns
        Columns of a text file kept as text (identifiers: ``007`` and ``7`` stay two people,
        as in the DuckDB and Spark engines, which read CSV cells as text).

    Raises
    ------
    DataError
        If the file is missing, empty, binary (e.g. an Excel workbook) or cannot be parsed, or
        if its header or metadata shows it too large to decode (``limits.MAX_ROWS``,
        ``MAX_COLUMNS``, ``MAX_DECODED_MB``): refused before anything is decoded.
    """
    label = name or getattr(source, "name", None) or str(source)
    raw = _read_bytes(source, label)
    if not raw.strip():
        raise DataError(
            f"{_base(label)} is empty: upload a CSV/TSV/Parquet file with a header row."
        )
    if raw[:4] == b"PAR1" or str(label).lower().endswith((".parquet", ".pq")):
        return _read_parquet(raw, label, columns)
    check_text_head(raw, _base(label))
    sep = text_delimiter(raw[:8192], str(label))
    check_header_width(raw[: limits.MAX_HEADER_BYTES + 1], sep, _base(label))
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
            dtype=dict.fromkeys(text_columns or [], str),
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


def check_header_width(head: bytes, sep: str, name: str) -> None:
    """Refuse a text table whose header line (within the first ``head`` bytes) is longer than
    ``limits.MAX_HEADER_BYTES`` or names more than ``limits.MAX_COLUMNS`` columns, before any
    row is parsed (parsing 10⁵ columns takes minutes)."""
    end = head.find(b"\n")
    line = head if end < 0 else head[:end]
    if end < 0 and len(head) > limits.MAX_HEADER_BYTES:
        raise DataError(
            f"{name}'s header line is longer than {limits.MAX_HEADER_BYTES // 2**20} MiB: "
            f"keep only the columns you need (at most {limits.MAX_COLUMNS:,}) and try again."
        )
    if sep == ONE_COLUMN:
        return
    fields = line.count(sep.encode()) + 1
    if fields > limits.MAX_COLUMNS:
        raise DataError(
            f"{name} has {fields:,} columns, more than the {limits.MAX_COLUMNS:,} this tool "
            "reads: keep only the column you need (and a few others) and try again."
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


def _read_parquet(raw: bytes, label: str, columns: list[str] | None) -> pd.DataFrame:
    """Decode a Parquet file after checking its metadata: rows, columns and decoded size are
    refused (DataError naming the limit) before any page is decoded; only ``columns`` (all by
    default) are decoded, text columns as dictionaries (pandas Categoricals: each distinct
    string once)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = _base(label)
    try:
        pf = pq.ParquetFile(io.BytesIO(raw))
    except Exception as exc:  # pyarrow raises many types; all mean "unreadable"
        raise DataError(
            f"{name} could not be read as Parquet ({type(exc).__name__}): "
            "check the file or export it as CSV."
        ) from None
    meta, schema = pf.metadata, pf.schema_arrow
    names = [str(n) for n in schema.names]
    if columns is not None:
        missing = [c for c in columns if c not in names]
        if missing:
            raise DataError(
                f"no column named {missing[0]!r} in {name}; columns are: {_list(pd.Index(names))}."
            )
    wanted = names if columns is None else [c for c in names if c in columns]
    if meta.num_rows > limits.MAX_ROWS:
        raise DataError(
            f"{name} has {meta.num_rows:,} rows, more than the {limits.MAX_ROWS:,} this tool "
            "handles in memory: sample the rows first, or use the DuckDB engine (--engine duckdb)."
        )
    if len(wanted) > limits.MAX_COLUMNS:
        raise DataError(
            f"{name} has {len(wanted):,} columns, more than the {limits.MAX_COLUMNS:,} this tool "
            "reads: keep only the column you need (and a few others) and try again."
        )
    chosen = {
        i for i in range(meta.num_columns) if meta.schema.column(i).path.split(".")[0] in wanted
    }
    pages = sum(
        meta.row_group(g).column(i).total_uncompressed_size
        for g in range(meta.num_row_groups)
        for i in chosen
    )
    decoded = pages + 8 * meta.num_rows * len(wanted)
    if decoded > limits.MAX_DECODED_MB * 2**20:
        raise DataError(
            f"{name} decodes to about {decoded / 2**20:,.0f} MB, more than the "
            f"{limits.MAX_DECODED_MB:,} MB this tool decodes: keep only the column you need "
            "(or sample the rows), or use the DuckDB engine (--engine duckdb)."
        )
    text = [
        f.name
        for f in schema
        if f.name in wanted and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
    ]
    try:
        pf = pq.ParquetFile(io.BytesIO(raw), read_dictionary=text)
        table = pf.read(columns=wanted)
        df = table.to_pandas()
    except Exception as exc:  # pyarrow raises many types; all mean "unreadable"
        raise DataError(
            f"{name} could not be read as Parquet ({type(exc).__name__}): "
            "check the file or export it as CSV."
        ) from None
    return df  # text columns are Categorical: see numeric_columns and table_column


def _as_text(series: pd.Series) -> pd.Series:
    """A Categorical column (Parquet text) as object strings, each row referring to its
    category's one string (no copy of the text)."""
    if not isinstance(series.dtype, pd.CategoricalDtype):
        return series
    cats = np.append(series.cat.categories.to_numpy(dtype=object), [None])  # code −1 → None
    return pd.Series(
        cats[series.cat.codes.to_numpy()], index=series.index, dtype=object, name=series.name
    )


ONE_COLUMN = "\x1f"
"""Delimiter for a one-column text file (the unit separator, never in a CSV): its cells are
never split, so ``20,67`` stays one cell, read with a decimal comma by the cleaning."""


def text_delimiter(head: bytes, name: str) -> str:
    """The delimiter of a text table from its first 8 KiB (every engine reads text this way).

    A header with no delimiter outside quotes is a one-column file (:data:`ONE_COLUMN`): the
    commas in its values are decimal commas or thousands separators, never delimiters (sniffing
    would split ``20,67`` into a value 20 and a column of cents).
    """
    if name.lower().endswith((".tsv", ".tab")):
        return "\t"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    header = re.sub(r'"[^"]*"', "", lines[0]) if lines else ""
    if lines and not any(d in header for d in _DELIMITERS):
        return ONE_COLUMN
    return _sniff_delimiter(text)


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
    source: str | os.PathLike | IO[bytes],
    *,
    name: str | None = None,
    columns: list[str] | None = None,
    text_columns: list[str] | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Read a table and list its numeric columns (best default first, see :func:`numeric_columns`).

    Raises
    ------
    DataError
        Unreadable file, too many rows, or no numeric column.
    """
    label = name or getattr(source, "name", None) or Path(str(source)).name
    table = read_table(source, name=label, columns=columns, text_columns=text_columns)
    df = _check_rows(table, label)
    candidates = numeric_columns(df)
    if not candidates:
        raise DataError(
            f"{_base(label)} has no numeric column (columns: {_list(df.columns)}): "
            "upload a file with a column of numbers."
        )
    return df, candidates


def _check_rows(df: pd.DataFrame, label: str) -> pd.DataFrame:
    if len(df) > limits.MAX_ROWS:
        raise DataError(
            f"{_base(label)} has {len(df):,} rows, more than the {limits.MAX_ROWS:,} this tool "
            "handles in memory: sample the rows first, or use the DuckDB engine (--engine duckdb)."
        )
    return df


def load_column(
    source: str | os.PathLike | IO[bytes],
    *,
    upper: float,
    column: str | None = None,
    name: str | None = None,
    id_column: str | None = None,
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
    id_column
        Privacy identifier: the rows with the same value in it are one person, whose values
        are summed before clipping (see :func:`~dpsum_core.data.cleaning.clean`). None: one
        row is one person.

    Privacy
    -------
    The guarantee of every mechanism run on the result is per record: per person with
    ``id_column``, else per row.

    Raises
    ------
    DataError
        Unreadable file, unknown column, or no numeric values.
    """
    label = name or getattr(source, "name", None) or Path(str(source)).name
    text = None if id_column is None else [id_column]
    if column is None:
        df, candidates = read_numeric_table(source, name=label, text_columns=text)
        column = next((c for c in candidates if c != id_column), candidates[0])
        return table_column(df, column, upper=upper, name=_base(label), id_column=id_column)
    wanted = [column] if id_column is None else [column, id_column]
    df = _check_rows(read_table(source, name=label, columns=wanted, text_columns=text), label)
    return table_column(df, column, upper=upper, name=_base(label), id_column=id_column)


def table_column(
    df: pd.DataFrame, column: str, *, upper: float, name: str, id_column: str | None = None
) -> Dataset:
    """Clean one column of a table read by :func:`read_table` (its delimiter is the hint for
    decimal commas, see :func:`clean`), one value per person of ``id_column`` if given.

    Privacy
    -------
    See :func:`load_column`: per person with ``id_column``, else per row.

    Raises
    ------
    DataError
        Unknown column (value or identifier), the identifier the value column, no numeric
        values, or mixed number formats.
    """
    names = [str(c) for c in df.columns]
    check_id_column(column, id_column, names, name)
    if column not in names:
        raise DataError(f"no column named {column!r} in {name}; columns are: {_list(df.columns)}.")
    series = _as_text(df.iloc[:, names.index(column)])
    ids = None if id_column is None else _as_text(df.iloc[:, names.index(id_column)])
    hint = decimal_comma_hint(df)
    return make_dataset(
        series, upper=upper, name=name, column=column, decimal_comma=hint, ids=ids,
        id_column=id_column,
    )  # fmt: skip


def check_id_column(column: str | None, id_column: str | None, names: list[str], name: str) -> None:
    """Refuse an identifier column that is not in the table, or that is the value column."""
    if id_column is None:
        return
    if id_column == column:
        raise DataError(
            f"the privacy identifier {id_column!r} is the value column: choose the column that "
            "names the person (e.g. a person id), not the one holding the values."
        )
    if id_column not in names:
        raise DataError(
            f"no column named {id_column!r} (privacy identifier) in {name}; "
            f"columns are: {_list(pd.Index(names))}."
        )


def _list(columns: pd.Index) -> str:
    shown = [str(c) for c in list(columns)[:10]]
    more = f" … (+{len(columns) - 10})" if len(columns) > 10 else ""
    return ", ".join(shown) + more
