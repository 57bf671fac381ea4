"""The checks made before a table is decoded (shared by the text and Parquet readers): its
shape, the columns asked for, and its estimated decoded size against ``limits``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dpsum_core import limits
from dpsum_core.errors import DataError, DataStatisticError

SAMPLE_CELLS = 200_000
"""Cells of a table's first rows parsed to list its columns (20 to 1,000 rows, by its width)."""


def base_name(label: str) -> str:
    """A file's name without its folders, as messages name it."""
    return Path(str(label)).name or "the file"


def column_list(columns: Sequence) -> str:
    """The first ten column names, and how many more."""
    shown = [str(c) for c in list(columns)[:10]]
    more = f" … (+{len(columns) - 10})" if len(columns) > 10 else ""
    return ", ".join(shown) + more


def check_present(columns: list[str], names: list[str], name: str) -> None:
    """Refuse a column asked for that the table ``name`` (whose columns are ``names``) lacks."""
    missing = [c for c in columns if c not in names]
    if missing:
        raise DataError(
            f"no column named {missing[0]!r} in {name}; columns are: {column_list(names)}."
        )


def check_shape(rows: int, columns: int, name: str) -> None:
    """Refuse a table of more than ``limits.MAX_ROWS`` rows or ``MAX_COLUMNS`` columns."""
    if rows > limits.MAX_ROWS:
        raise DataStatisticError(
            f"{name} has {rows:,} rows, more than the {limits.MAX_ROWS:,} this tool "
            "handles in memory: sample the rows first, or use the DuckDB engine (--engine duckdb)."
        )
    if columns > limits.MAX_COLUMNS:
        raise DataError(
            f"{name} has {columns:,} columns, more than the {limits.MAX_COLUMNS:,} this tool "
            "reads: keep only the column you need (and a few others) and try again."
        )


def check_decoded(nbytes: int, name: str) -> None:
    """Refuse a decode estimated above ``limits.MAX_DECODED_MB``."""
    if nbytes > limits.MAX_DECODED_MB * 2**20:
        raise DataStatisticError(
            f"{name} decodes to about {nbytes / 2**20:,.0f} MB, more than the "
            f"{limits.MAX_DECODED_MB:,} MB this tool decodes: keep only the column you need "
            "(or sample the rows), or use the DuckDB engine (--engine duckdb)."
        )
