"""DuckDB backend: embedded, out-of-core and multi-threaded SQL over CSV/Parquet files.

A file, a folder of CSV/Parquet files or a glob is read as one relation; cleaning, bins, exact
sums and the top-k are SQL aggregations (:mod:`dpsum_core.data.backends.sql`); no record is fetched
into Python, only aggregates and the top-k values.

Privacy
-------
The summary returned is private data; nothing is released.
"""


from __future__ import annotations

import glob
import os
from pathlib import Path

from dpsum_core import limits
from dpsum_core.data.backends.dialect import DUCKDB
from dpsum_core.data.backends.sql import SQLBackend
from dpsum_core.data.reading import check_header_width, check_text_head, text_delimiter
from dpsum_core.errors import DataError

_PARQUET = (".parquet", ".pq")
_TEXT = (".csv", ".tsv", ".tab", ".txt")
DATA_SUFFIXES = _PARQUET + _TEXT
"""File names a folder's scan reads (:func:`resolve_files`)."""


def resolve_files(source: str | os.PathLike | list[Path]) -> list[Path]:
    """The files of ``source``: a file, a folder (its Parquet or its CSV/TSV files, in
    sub-folders too, as in a Hive-partitioned dataset ``year=2020/part-0.parquet``) or a glob
    pattern. Raises DataError when nothing matches, or when a folder mixes Parquet and CSV
    (reading one kind only would silently leave out records). A list of files is read as given
    (already checked, e.g. by the app's server data rules): exactly these files, no others."""
    if isinstance(source, list):
        if not source:
            raise DataError("no file to read")
        return [Path(p) for p in source]
    text = str(source)
    path = Path(text)
    if path.is_dir():
        inside = sorted(p for p in path.rglob("*") if p.is_file() and not hidden(p, path))
        parquet = [p for p in inside if p.suffix.lower() in _PARQUET]
        text_files = [p for p in inside if p.suffix.lower() in _TEXT]
        if parquet and text_files:
            raise DataError(
                f"{path.name} holds both Parquet ({len(parquet)}) and CSV/TSV "
                f"({len(text_files)}) files: one dataset is one format. Move one kind out, or "
                f"name the files with a glob such as '{path.name}/**/*.parquet'."
            )
        if not (parquet or text_files):
            raise DataError(f"{path.name} holds no .parquet or .csv files")
        return parquet or text_files
    if path.is_file():
        return [path]
    if any(ch in text for ch in "*?["):
        files = sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
        if not files:
            raise DataError(f"no file matches {text}")
        return files
    raise DataError(f"file not found: {path}")


def hidden(file: Path, root: Path) -> bool:
    """Files and folders whose name starts with '.' or '_' (Spark's _SUCCESS, .crc files)."""
    return any(part.startswith((".", "_")) for part in file.relative_to(root).parts)


def is_parquet(files: list[Path]) -> bool:
    """True for Parquet files (by name or magic bytes); mixing formats is refused."""
    kinds = {f.suffix.lower() in _PARQUET or _magic(f) == b"PAR1" for f in files}
    if len(kinds) > 1:
        raise DataError("mixing Parquet and CSV files in one dataset is not supported")
    return kinds.pop()


def text_delimiter_checked(files: list[Path]) -> str:
    """The delimiter of a CSV/TSV dataset (from its first file's first 8 KiB), after refusing,
    as :func:`dpsum_core.data.reading.read_table` refuses them, any file that is empty, an
    Excel workbook or binary, or whose header line is longer than ``limits.MAX_HEADER_BYTES``
    or names more than ``limits.MAX_COLUMNS`` columns: checked on every file before DuckDB or
    Spark parses any (a 10⁵-column header costs them minutes, and every file of a folder is
    read)."""
    sep = ""
    for path in files:
        head = _header_bytes(path)
        check_text_head(head[:8192], path.name)
        if not sep:
            sep = text_delimiter(head[:8192], path.name)
        check_header_width(head, sep, path.name)
    return sep


def _header_bytes(path: Path) -> bytes:
    """The start of ``path`` up to its first line end, or ``limits.MAX_HEADER_BYTES`` + 1
    bytes if the line is longer (and at least 8 KiB, for the delimiter and binary checks):
    read in blocks, so a normal header costs one small read."""
    block = 65536
    with path.open("rb") as fh:
        head = fh.read(block)
        while b"\n" not in head and len(head) <= limits.MAX_HEADER_BYTES:
            more = fh.read(block)
            if not more:
                break
            head += more
    return head[: limits.MAX_HEADER_BYTES + 1]


def _magic(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.read(4)


class DuckDBBackend(SQLBackend):
    """Summary passes run by an in-process DuckDB connection.

    Parameters
    ----------
    source
        A file, a folder of Parquet/CSV files, a glob, or a list of files (read as given).
    upper
        Public U.
    column
        Column name (default: the most numeric, as :func:`dpsum_core.data.cleaning.numeric_columns`).
    id_column
        Privacy identifier: rows with the same value are one person (a GROUP BY in the SQL).
    threads, memory_limit
        DuckDB settings (defaults: all cores, DuckDB's default memory limit).
    """

    engine = "duckdb"
    dialect = DUCKDB

    def __init__(
        self,
        source: str | os.PathLike | list[Path],
        *,
        upper: float,
        column: str | None = None,
        name: str | None = None,
        threads: int | None = None,
        memory_limit: str | None = None,
        id_column: str | None = None,
    ):
        import duckdb

        self.files = resolve_files(source)
        parquet = is_parquet(self.files)
        delim = "" if parquet else text_delimiter_checked(self.files)  # before any parsing
        self.con = duckdb.connect()
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")
        if memory_limit:
            self.con.execute(f"SET memory_limit = '{memory_limit}'")
        self._duckdb_error = duckdb.Error
        listed = "[" + ", ".join(DUCKDB.lit(str(f)) for f in self.files) + "]"
        if parquet:
            self._source = f"read_parquet({listed})"
        else:
            self._source = (
                f"read_csv({listed}, header = true, all_varchar = true, delim = {DUCKDB.lit(delim)}, "
                "quote = '\"', escape = '\"', null_padding = false, strict_mode = true"
            )
            try:  # pandas replaces undecodable bytes; their cells are non-numeric either way
                self.con.execute(f"DESCRIBE SELECT * FROM {self._source})")
                self._source += ")"
            except duckdb.Error as exc:
                if "unicode" not in str(exc).lower():
                    raise self._error(exc) from None
                self._source += ", encoding = 'latin-1')"
        label = name or (self.files[0].name if len(self.files) == 1 else str(source))
        self.query(f"CREATE VIEW records AS SELECT * FROM {self._source}")
        super().__init__(upper=upper, column=column, id_column=id_column, name=label,
                         csv=not parquet, decimal_comma=delim == ";")  # fmt: skip

    def relation(self) -> str:
        return "records"

    def keep(self, sql: str) -> str:
        """The people's totals as a temporary table of this connection (one double per person,
        never fetched): grouped once, not once per pass."""
        self.query(f"CREATE TEMP TABLE people AS {sql}")
        return "people"

    def columns(self) -> dict[str, str]:
        rows = self.query("DESCRIBE records")
        return {str(r[0]): _kind(str(r[1])) for r in rows}

    def query(self, sql: str) -> list[tuple]:
        try:
            return self.con.execute(sql).fetchall()
        except self._duckdb_error as exc:
            raise self._error(exc) from None

    def _error(self, exc: Exception) -> DataError:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return DataError(f"{self.files[0].name}: DuckDB could not read the data ({first})")


def _kind(sql_type: str) -> str:
    t = sql_type.upper()
    if t in ("VARCHAR", "TEXT", "STRING") or t.startswith("VARCHAR"):
        return "text"
    numeric = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "REAL")
    if t.startswith(("DECIMAL", "U")) or t in numeric:
        return "number"
    return "other"
