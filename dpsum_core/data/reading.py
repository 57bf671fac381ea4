"""Reading a table (CSV/TSV/Parquet, bounded by ``limits``) and loading one numeric column.

Deterministic and public-rule based: reading costs no privacy budget.
"""


from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from dpsum_core import limits
from dpsum_core.data import samples
from dpsum_core.data.bounds import (
    SAMPLE_CELLS,
    base_name,
    check_decoded,
    check_present,
    column_list,
)
from dpsum_core.data.bytebudget import ByteBudget
from dpsum_core.data.cleaning import DELIMITER, column_ranking, decimal_comma_hint
from dpsum_core.data.dataset import Dataset, make_dataset
from dpsum_core.data.identifiers import SAMPLE_ROWS, judge_columns, value_choices
from dpsum_core.data.parquet import parquet_head, parquet_rows, read_parquet
from dpsum_core.errors import DataError, DataStatisticError

_DELIMITERS = ",;\t|"
Source = str | os.PathLike | IO[bytes] | bytes


# --------------------------------------------------------------------------------------------
# Reading a table
# --------------------------------------------------------------------------------------------
def read_table(
    source: Source,
    *,
    name: str | None = None,
    columns: list[str] | None = None,
    text_columns: list[str] | None = None,
    budget: ByteBudget | None = None,
) -> pd.DataFrame:
    """Read a CSV, TSV or Parquet file into a DataFrame.

    Parameters
    ----------
    source
        A path, the file's bytes, or a binary file-like object (e.g. a Streamlit upload).
    name
        File name used to pick the format when ``source`` is not a path; defaults to its
        ``name``.
    columns
        Decode only these columns (all by default). Their decoded size is estimated first
        (Parquet: from the metadata; text: from the first rows and the number of lines) and
        refused above ``limits.MAX_DECODED_MB``.
    text_columns
        Columns of a text file kept as text (identifiers: ``007`` and ``7`` stay two people,
        as in the DuckDB and Spark engines, which read CSV cells as text).
    budget
        A process-wide allowance (:class:`~dpsum_core.data.bytebudget.ByteBudget`) that the
        estimate (with ``columns``; for text, with the parser's transient bytes until it is
        done) is reserved from before decoding; the reservation is released when the returned
        DataFrame is garbage collected.

    Raises
    ------
    DataError
        If the file is missing, empty, binary (e.g. an Excel workbook) or cannot be parsed, if
        its header or metadata shows it too large to decode (``limits.MAX_ROWS``,
        ``MAX_COLUMNS``, ``MAX_DECODED_MB``), if a column of ``columns`` is missing, or if the
        budget cannot hold it: refused before anything but the first rows is decoded.
    """
    label = _label(source, name)
    raw = _read_bytes(source, label)
    if _is_parquet(raw, label):
        return read_parquet(raw, label, columns, budget)
    sep = _text_checks(raw, label)
    if columns is None:
        return _parse_text(raw, label, sep, text_columns)
    head = _parse_text(raw, label, sep, text_columns, nrows=_sample_rows(raw, sep))
    check_present(columns, [str(c) for c in head.columns], base_name(label))
    estimate = _text_decoded_bytes(raw, head, columns)
    check_decoded(estimate, base_name(label))
    # While parsing, pandas' tokenizer also holds every field of the file (≈ its bytes and
    # 8 bytes a field): reserved for the parse, given back after it.
    parsing = estimate + len(raw) + 8 * (raw.count(b"\n") + 1) * head.shape[1]
    held = None if budget is None else budget.reserve(parsing, base_name(label))
    try:
        df = _parse_text(raw, label, sep, text_columns, usecols=columns)
    except BaseException:
        if held is not None:
            held.release()
        raise
    if held is not None:
        held.shrink(estimate)
        held.keep(df)
    return df


@dataclass(frozen=True)
class TableHead:
    """What a table offers, read from its header, metadata and first rows only.

    Attributes
    ----------
    name
        The file's base name.
    columns
        Every column (the choices of a privacy identifier).
    candidates
        The numeric columns, best default first (see
        :func:`~dpsum_core.data.cleaning.numeric_columns`): for a text file judged on its first
        rows, for Parquet from the schema (numeric types) and the first rows of text columns.
    skipped
        The candidates put last because their first rows look like a row number, an
        identifier, an index or a count, with why
        (:func:`~dpsum_core.data.identifiers.judge_columns`).
    not_values
        The candidates that cannot be the value column (row numbers, identifiers, an index
        within a person).
    indexes
        The columns that look like an index within a person or a count (not a person).
    """

    name: str
    columns: tuple[str, ...]
    candidates: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    not_values: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()

    def choices(self, id_column: str | None = None) -> tuple[str, ...]:
        """The columns that could be the value column, best first
        (:func:`~dpsum_core.data.identifiers.value_choices`)."""
        return value_choices(self.candidates, self.not_values, id_column=id_column)

    def default_column(self, id_column: str | None = None) -> str:
        """The default value column: the best of :meth:`choices`."""
        return next(iter(self.choices(id_column)), self.candidates[0])


def inspect_table(
    source: Source, *, name: str | None = None, id_column: str | None = None
) -> TableHead:
    """List a table's columns and numeric candidates without decoding it: the header and
    first rows of a text file, the schema, statistics and first rows of Parquet
    (``id_column``: the identifier of people, if chosen, whose rows an index may number).

    Raises
    ------
    DataError
        As :func:`read_table` for the header and metadata, or no numeric column.
    """
    label = _label(source, name)
    raw = _read_bytes(source, label)
    if _is_parquet(raw, label):
        names, candidates = parquet_head(raw, label)
        rows = parquet_rows(raw, label, SAMPLE_ROWS)
        judged = judge_columns(rows, candidates, id_column=id_column)
        last = dict(judged.skipped)
        candidates = sorted(candidates, key=lambda c: c in last)  # stable: skipped last
    else:
        sep = _text_checks(raw, label)
        sample = _parse_text(raw, label, sep, nrows=_sample_rows(raw, sep))
        names = [str(c) for c in sample.columns]
        candidates, judged = column_ranking(sample, id_column=id_column)
    if not candidates:
        raise DataError(
            f"{base_name(label)} has no numeric column (columns: {column_list(names)}): "
            "upload a file with a column of numbers."
        )
    return TableHead(base_name(label), tuple(names), tuple(candidates), judged.skipped,
                     judged.not_values, judged.indexes)  # fmt: skip


def head_rows(source: Source, *, rows: int, name: str | None = None) -> pd.DataFrame:
    """The first ``rows`` rows of a table, every column as read: what the identifier checks
    (:mod:`dpsum_core.data.identifiers`) judge, as the SQL engines judge their first rows."""
    label = _label(source, name)
    raw = _read_bytes(source, label)
    if _is_parquet(raw, label):
        return parquet_rows(raw, label, rows)
    return _parse_text(raw, label, _text_checks(raw, label), nrows=rows)


def _label(source: Source, name: str | None) -> str:
    return name or getattr(source, "name", None) or (
        "the file" if isinstance(source, bytes) else str(source)
    )


def _is_parquet(raw: bytes, label: str) -> bool:
    if not raw.strip():
        raise DataError(
            f"{base_name(label)} is empty: use a CSV/TSV/Parquet file with a header row."
        )
    return raw[:4] == b"PAR1" or str(label).lower().endswith((".parquet", ".pq"))


def _text_checks(raw: bytes, label: str) -> str:
    """The delimiter of a text table, after refusing a binary file or an over-wide header."""
    check_text_head(raw, base_name(label))
    sep = text_delimiter(raw[:8192], str(label))
    check_header_width(raw[: limits.MAX_HEADER_BYTES + 1], sep, base_name(label))
    return sep


def _sample_rows(raw: bytes, sep: str) -> int:
    """Rows parsed to list a text table's columns: :data:`SAMPLE_CELLS` cells, 20 to 1,000."""
    end = raw.find(b"\n")
    fields = 1 if sep == ONE_COLUMN else raw[: end if end >= 0 else None].count(sep.encode()) + 1
    return min(1000, max(20, SAMPLE_CELLS // fields))


def _parse_text(
    raw: bytes,
    label: str,
    sep: str,
    text_columns: list[str] | None = None,
    *,
    nrows: int | None = None,
    usecols: list[str] | None = None,
) -> pd.DataFrame:
    """Parse delimited text (the first ``nrows`` rows, only ``usecols``) with the one rule of
    every engine."""
    text = [c for c in text_columns or [] if usecols is None or c in usecols]
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
            # A ';' file is read as text throughout: pandas would type a column of "2.500"
            # as numbers (2.5) unless one other cell is not a number, and then the per-cell
            # rule reads it as 2,500 (decimal commas): one record changed how every other
            # was read (privacy audit, 27 November). As text, every cell follows that rule.
            dtype=str if sep == ";" else dict.fromkeys(text, str),
            nrows=nrows,
            usecols=usecols,
        )
    except pd.errors.EmptyDataError:
        raise DataError(f"{base_name(label)} has no columns: add a header row and values.") from None
    except (pd.errors.ParserError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(
            f"{base_name(label)} could not be parsed as delimited text ({first}): "
            "check that every row has the same number of fields."
        ) from None
    df.attrs[DELIMITER] = sep  # a ';' file writes decimal commas (see to_numeric)
    if df.shape[1] == 0:
        raise DataError(f"{base_name(label)} has no columns: add a header row and values.")
    if df.shape[0] == 0:
        raise DataError(
            f"{base_name(label)} has a header ({column_list(df.columns)}) but no rows of data: "
            "add one value per row below the header."
        )
    return df


def _text_decoded_bytes(raw: bytes, head: pd.DataFrame, columns: list[str]) -> int:
    """Estimated bytes of ``columns`` of a text table once parsed, from its first rows
    (``head``): per line, 8 bytes for a column read as numbers, else a pointer and a string
    object (about 56 bytes and its text, at most the whole file's)."""
    lines = raw.count(b"\n") + 1
    names = [str(c) for c in head.columns]
    per_row = text = 0
    for column in columns:
        cells = head.iloc[:, names.index(column)]
        if pd.api.types.is_numeric_dtype(cells) or pd.api.types.is_bool_dtype(cells):
            per_row += 8
        else:
            text += len(raw)  # a column's text is at most the file's
            per_row += 8 + 56
    return lines * per_row + text


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


def _read_bytes(source: Source, label: str) -> bytes:
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
    data = source if isinstance(source, bytes) else source.read()
    if isinstance(data, str):
        data = data.encode("utf-8")
    size_mb = len(data) / 2**20
    if size_mb > limits.MAX_UPLOAD_MB:
        raise DataError(
            f"{base_name(label)} is {size_mb:.0f} MB, above the {limits.MAX_UPLOAD_MB} MB upload limit: "
            "upload only the column you need, or sample the rows."
        )
    return data


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
    """The delimiter of a text table, from its header line alone (every engine reads text this
    way): the column names are the file's public schema, while a delimiter sniffed from the
    first records could change with one added record, and with it how every other record is
    read (privacy audit, 27 November).

    The delimiter the header holds most often outside quotes (ties in the order , ; tab |);
    a header with none is a one-column file (:data:`ONE_COLUMN`): the commas in its values are
    decimal commas or thousands separators, never delimiters (``20,67`` is one value).
    """
    if name.lower().endswith((".tsv", ".tab")):
        return "\t"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    header = re.sub(r'"[^"]*"', "", lines[0]) if lines else ""
    counts = {d: header.count(d) for d in _DELIMITERS}
    best = max(counts, key=lambda d: counts[d])  # the first of the most frequent
    return best if counts[best] > 0 else ONE_COLUMN


def _check_rows(df: pd.DataFrame, label: str) -> pd.DataFrame:
    if len(df) > limits.MAX_ROWS:
        raise DataStatisticError(
            f"{base_name(label)} has {len(df):,} rows, more than the {limits.MAX_ROWS:,} this tool "
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
    content: bool = False,
) -> Dataset:
    """Read a file and clean one numeric column of it.

    Parameters
    ----------
    source
        Path or binary file-like object (CSV, TSV or Parquet); ``"sample:NAME"`` reads a
        shipped sample from any folder, as the CLI's ``--data`` does.
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
    content
        Also hash the kept (identifier, value) rows into the report's ``content``
        (:class:`~dpsum_core.data.content.Content`, what a ledger binds to).

    Privacy
    -------
    The guarantee of every mechanism run on the result is per record: per person with
    ``id_column``, else per row.

    Raises
    ------
    DataError
        Unreadable file, unknown column, or no numeric values.
    """
    if isinstance(source, str):
        source = samples.resolve(source)
    label = name or getattr(source, "name", None) or Path(str(source)).name
    text = None if id_column is None else [id_column]
    raw = _read_bytes(source, label)
    if column is None:
        column = inspect_table(raw, name=label, id_column=id_column).default_column(id_column)
    if id_column is not None and id_column == column:  # refused before anything is decoded
        check_id_column(column, id_column, [], base_name(label))
    wanted = [column] if id_column is None else [column, id_column]
    df = _check_rows(read_table(raw, name=label, columns=wanted, text_columns=text), label)
    return table_column(
        df, column, upper=upper, name=base_name(label), id_column=id_column, content=content
    )


def table_column(
    df: pd.DataFrame,
    column: str,
    *,
    upper: float,
    name: str,
    id_column: str | None = None,
    content: bool = False,
) -> Dataset:
    """Clean one column of a table read by :func:`read_table` (its delimiter is the hint for
    decimal commas, see :func:`clean`), one value per person of ``id_column`` if given;
    ``content``: see :func:`load_column`.

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
        raise DataError(f"no column named {column!r} in {name}; columns are: {column_list(df.columns)}.")
    series = _as_text(df.iloc[:, names.index(column)])
    ids = None if id_column is None else _as_text(df.iloc[:, names.index(id_column)])
    hint = decimal_comma_hint(df)
    return make_dataset(
        series, upper=upper, name=name, column=column, decimal_comma=hint, ids=ids,
        id_column=id_column, content=content,
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
            f"columns are: {column_list(names)}."
        )
