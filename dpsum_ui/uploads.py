"""Uploaded files: kept in memory (never spooled to disk by the web server), listed from
their header and metadata, and decoded one chosen column at a time within one process-wide
byte budget."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from dpsum_core import limits
from dpsum_core.data.bytebudget import ByteBudget
from dpsum_core.data.reading import TableHead, check_id_column, inspect_table, read_table
from dpsum_core.publish.ledger import bytes_fingerprint

# The file names the uploaders accept: what dpsum_core.data.reading reads, Parquet
# (.parquet, .pq) and delimited text (CSV, TSV). An Excel workbook is not read (the reader
# answers one renamed .csv with "save the sheet as CSV"), so .xlsx/.xls are not offered.
UPLOAD_TYPES = ["csv", "tsv", "tab", "txt", "parquet", "pq"]
UPLOAD_HELP_FORMATS = "Excel workbooks are not read: save the sheet as CSV first."


def uploader_size(refused: int) -> int | None:
    """``max_upload_size`` of an uploader that refused ``refused`` files: the server's limit
    (None), and the same limit given explicitly after an odd number of refusals. Streamlit
    resets an uploader whose ``max_upload_size`` changes (its key stays), so a file the app
    refused is not left listed in the box as if it were loaded; the error under the box says
    why it was refused."""
    return None if refused % 2 == 0 else limits.MAX_UPLOAD_MB


def keep_uploads_in_memory() -> None:
    """Raise Starlette's multipart spool threshold to the upload limit.

    Streamlit's Starlette server parses uploads with ``starlette.formparsers.MultiPartParser``,
    which writes any part above ``spool_max_size`` (1 MB by default) to a temporary file
    before Streamlit reads it into memory. dpsum promises that uploaded data never touches the
    disk, and uploads are capped at ``limits.MAX_UPLOAD_MB`` anyway (server.maxUploadSize), so
    the threshold is raised to that cap: every accepted upload stays in memory. Idempotent;
    a no-op when the server is not Starlette-based.
    """
    try:
        from starlette.formparsers import MultiPartParser
    except ImportError:  # pragma: no cover - Tornado server: bodies are kept in memory
        return
    cap = (limits.MAX_UPLOAD_MB + 1) * 2**20  # + headroom for the multipart envelope
    if MultiPartParser.spool_max_size < cap:
        MultiPartParser.spool_max_size = cap


# --------------------------------------------------------------------------------------------
# What an upload holds (issue 27): its bytes and the columns decoded from it, within one
# process-wide budget
# --------------------------------------------------------------------------------------------
HELD = ByteBudget(limits.MAX_UPLOADS_HELD_MB * 2**20)
"""What all sessions' uploads hold at once: each file's bytes, reserved when it is read, and
the columns decoded from it, reserved before they are decoded; each reservation is released
when the session drops the object holding it (another upload, an evicted memo, the session
closing)."""


@dataclass(frozen=True)
class Upload:
    """One uploaded file of this session: its bytes and what its header, metadata and first
    rows show (nothing else is decoded until a column is chosen, see :func:`decoded`)."""

    name: str
    id: str
    raw: bytes = field(repr=False)
    head: TableHead
    fingerprint: str

    @property
    def columns(self) -> list[str]:
        """The numeric columns, best default first."""
        return list(self.head.candidates)

    @property
    def names(self) -> list[str]:
        """Every column (the choices of a privacy identifier)."""
        return list(self.head.columns)

    @property
    def size_text(self) -> str:
        """The file's size as the uploader box writes it: 812 B, 2.7 KB, 14.2 MB."""
        size = float(len(self.raw))
        for unit in ("B", "KB", "MB"):
            if size < 1000 or unit == "MB":
                return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
            size /= 1000
        raise AssertionError("unreachable")


def read_upload(raw: bytes, name: str, file_id: str) -> Upload:
    """Keep an uploaded file's bytes ``raw`` (reserved from :data:`HELD`) and list its columns.

    Raises
    ------
    DataError
        The engine's checks (:func:`~dpsum_core.data.reading.inspect_table`: size, format,
        header, metadata, no numeric column) or the process-wide budget is full.
    """
    held = HELD.reserve(len(raw), name)
    try:
        head = inspect_table(raw, name=name)
    except BaseException:
        held.release()
        raise
    upload = Upload(name, file_id, raw, head, bytes_fingerprint(raw))
    held.keep(upload)
    return upload


def decoded(upload: Upload, column: str, id_column: str | None) -> pd.DataFrame:
    """The value column (and the identifier column) of an upload, decoded alone: their size is
    estimated and checked first, then reserved from :data:`HELD` while the frame lives.

    Raises
    ------
    DataError
        An identifier that is the value column or missing, a decoded size above
        ``limits.MAX_DECODED_MB``, or the process-wide budget is full.
    """
    check_id_column(column, id_column, upload.names, upload.name)
    wanted = [column] if id_column is None else [column, id_column]
    text = None if id_column is None else [id_column]
    return read_table(upload.raw, name=upload.name, columns=wanted, text_columns=text, budget=HELD)
